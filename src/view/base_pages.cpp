#include "view/base_pages.hpp"

#include <algorithm>
#include <cstring>

namespace grundy::view {

BasePages::BasePages(uint64_t width, uint64_t height, uint64_t side)
    : width_(width),
      height_(height),
      page_w_(side ? side : std::max<uint64_t>(width, 1)),
      page_h_(side ? side : std::max<uint64_t>(height, 1)),
      pages_x_((width + page_w_ - 1) / page_w_),
      pages_((height + page_h_ - 1) / page_h_ * pages_x_),
      owned_(side ? pages_.size() : 0) {
    if (side == 0 && !pages_.empty()) {
        // One page of the whole base, in pages of the system's that nobody touches before the
        // engine's threads write them (zeroing 16 MiB of blocks before the run starts, at
        // 16384^2, took one thread 40-55 ms while the others waited).
        whole_ = std::make_unique<base::SmallPageBlock>(width * height * sizeof(BlockStats));
        pages_[0].store(static_cast<BlockStats*>(whole_->data()), std::memory_order_relaxed);
    }
}

BlockStats* BasePages::make_page(uint64_t page) {
    owned_[page] = std::make_unique<BlockStats[]>(page_w_ * page_h_);
    pages_[page].store(owned_[page].get(), std::memory_order_relaxed);
    return owned_[page].get();
}

void BasePages::copy_rows(uint64_t by0, uint64_t count, BlockStats* out) const {
    for (uint64_t by = by0; by < by0 + count; ++by, out += width_)
        for (uint64_t px = 0; px < pages_x_; ++px) {
            const uint64_t bx0 = px * page_w_, n = std::min(page_w_, width_ - bx0);
            const BlockStats* p =
                pages_[by / page_h_ * pages_x_ + px].load(std::memory_order_relaxed);
            if (p)
                std::memcpy(out + bx0, p + by % page_h_ * page_w_, n * sizeof(BlockStats));
            else
                std::fill(out + bx0, out + bx0 + n, BlockStats{});
        }
}

void BasePages::drop_below(uint64_t by) {
    if (whole_) return;  // the one page holds rows still to come until the end
    const uint64_t page_rows = pages_.size() / std::max<uint64_t>(pages_x_, 1);
    for (; dropped_rows_ < page_rows && std::min((dropped_rows_ + 1) * page_h_, height_) <= by;
         ++dropped_rows_)
        for (uint64_t px = 0; px < pages_x_; ++px) {
            const uint64_t page = dropped_rows_ * pages_x_ + px;
            pages_[page].store(nullptr, std::memory_order_relaxed);
            owned_[page].reset();
        }
}

uint64_t BasePages::pages_held() const {
    return static_cast<uint64_t>(
        std::count_if(pages_.begin(), pages_.end(), [](const std::atomic<BlockStats*>& p) {
            return p.load(std::memory_order_relaxed) != nullptr;
        }));
}

}  // namespace grundy::view
