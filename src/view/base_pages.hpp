// The base level of a pyramid written while it is built (grundy compute): its blocks in pages of
// one tile each, made when the tile's blocks are first written and dropped once their rows are
// in the file. A square table's mirrors fill blocks of rows whose own tiles come later, so the
// rows waiting for the file still hold, at the middle band of the wavefront, its mirrors in
// every band below it (a quarter of the pages) and the band being swept: a third of the base
// at 65536^2 on two threads, where the whole base was held to the end (256 MiB there, 1 GiB at
// 131072^2).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/big_memory.hpp"
#include "io/pyramid_file.hpp"

namespace grundy::view {

using io::BlockStats;

class BasePages {
  public:
    // `width` x `height` blocks, in square pages of `side` blocks (the tiles' side in blocks),
    // or in one page when `side` is 0 (tiles that share blocks). Pages are made on first use.
    BasePages(uint64_t width, uint64_t height, uint64_t side);

    // Block (bx, by) and those after it in its row up to its page's end (`room` of them, at
    // least one), its page made if it is not yet. Pages are made by whichever thread writes
    // them: two threads may write blocks of different pages at once, never of one page (each
    // tile's blocks are written by the task of that tile).
    struct Span {
        BlockStats* blocks;
        uint64_t room;
    };
    Span span(uint64_t bx, uint64_t by) {
        const uint64_t page = by / page_h_ * pages_x_ + bx / page_w_;
        BlockStats* p = pages_[page].load(std::memory_order_relaxed);
        if (!p) p = make_page(page);
        const uint64_t at = bx % page_w_;
        return {p + by % page_h_ * page_w_ + at, std::min(page_w_ - at, width_ - bx)};
    }
    // Rows [by0, by0 + count) whole, row-major into `out`; the blocks of pages never made are
    // zeros (a run stopped before its tiles came).
    void copy_rows(uint64_t by0, uint64_t count, BlockStats* out) const;
    // Drops every page whose rows all lie below row `by` (their rows are written).
    void drop_below(uint64_t by);
    uint64_t pages_held() const;  // tests

  private:
    BlockStats* make_page(uint64_t page);
    uint64_t width_, height_, page_w_, page_h_, pages_x_;
    // Null: not made, or dropped. Atomic only so that pages_held may count them while workers
    // make theirs: each page is made and read in order by the stream's counts of cells.
    std::vector<std::atomic<BlockStats*>> pages_;
    std::vector<std::unique_ptr<BlockStats[]>> owned_;  // tile pages
    std::unique_ptr<base::SmallPageBlock> whole_;       // the one page, zero until written
    uint64_t dropped_rows_ = 0;                         // rows of pages dropped, from the top
};

}  // namespace grundy::view
