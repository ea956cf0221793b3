// PyramidCache: the zoomed-out levels' blocks as `grundy view` serves them, from a pyramid held
// whole in memory (built now) or read from its file (io::PyramidReader) one tile's blocks at a
// time, those pages kept in a cache of bounded size, so that opening a table reads none of its
// pyramid's blocks but a few samples. Any thread may call it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "io/pyramid_reader.hpp"
#include "view/lru_cache.hpp"
#include "view/pyramid.hpp"

namespace grundy::view {

class PyramidCache {
  public:
    // The blocks of one tile: (i, j) is block (256 tx + i, 256 ty + j) of its level.
    struct Blocks {
        std::shared_ptr<const std::vector<BlockStats>> keep;  // the page, while it is used
        const BlockStats* first = nullptr;
        uint64_t stride = 0;
        const BlockStats& at(uint64_t i, uint64_t j) const { return first[j * stride + i]; }
    };

    // None at first: every zoom from the cells.
    PyramidCache() = default;
    void hold(Pyramid pyramid);
    // Pages of 256 x 256 blocks (1 MiB) read as tiles ask for them, the least recently used
    // dropped beyond cache_bytes (one kept at least).
    void read_from(std::unique_ptr<io::PyramidReader> reader, uint64_t cache_bytes);

    bool has(int level) const;
    // The blocks of tile (tx, ty) at `level`, which the level must hold. Throws grundy::Error
    // when the file cannot be read (cut short or gone since it was opened).
    Blocks tile(int level, uint64_t tx, uint64_t ty);
    // The blocks' bytes in memory now: the whole pyramid held, or the pages kept.
    uint64_t bytes() const;
    // Bytes of blocks read from the file so far.
    uint64_t bytes_read() const { return reader_ ? reader_->bytes_read() : 0; }

  private:
    Pyramid held_;
    std::unique_ptr<io::PyramidReader> reader_;
    mutable std::mutex mutex_;  // over pages_
    ByteBoundedLru<std::tuple<int, uint64_t, uint64_t>, std::vector<BlockStats>> pages_{0};
};

}  // namespace grundy::view
