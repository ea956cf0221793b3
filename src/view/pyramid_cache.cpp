#include "view/pyramid_cache.hpp"

#include <algorithm>

namespace grundy::view {

void PyramidCache::hold(Pyramid pyramid) {
    held_ = std::move(pyramid);
    reader_.reset();
}

void PyramidCache::read_from(std::unique_ptr<io::PyramidReader> reader, uint64_t cache_bytes) {
    held_ = Pyramid{};
    reader_ = std::move(reader);
    const std::lock_guard<std::mutex> lock(mutex_);
    pages_ = decltype(pages_)(cache_bytes);
}

bool PyramidCache::has(int level) const {
    return held_.level(level) != nullptr || (reader_ && reader_->has(level));
}

PyramidCache::Blocks PyramidCache::tile(int level, uint64_t tx, uint64_t ty) {
    const uint64_t bx0 = tx * kTileSize, by0 = ty * kTileSize;
    if (const PyramidLevel* l = held_.level(level))
        return {nullptr, &l->blocks[by0 * l->width + bx0], l->width};
    const uint64_t w = std::min<uint64_t>(kTileSize, reader_->width(level) - bx0);
    const uint64_t h = std::min<uint64_t>(kTileSize, reader_->height(level) - by0);
    const auto key = std::make_tuple(level, tx, ty);
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (auto page = pages_.find(key)) return {page, page->data(), w};
    }
    // Read without the lock: other tiles are served meanwhile, from the cache or the file.
    auto page = std::make_shared<std::vector<BlockStats>>(w * h);
    reader_->read(level, bx0, by0, w, h, page->data());
    const std::lock_guard<std::mutex> lock(mutex_);
    auto kept = pages_.put(key, std::move(page), w * h * sizeof(BlockStats));
    return {kept, kept->data(), w};
}

uint64_t PyramidCache::bytes() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return held_.bytes() + pages_.bytes();
}

}  // namespace grundy::view
