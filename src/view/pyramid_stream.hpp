// The pyramid written while it is built (grundy compute): each row of the base level goes to
// the file once every cell under it has come, and each row of a level above is made from the
// two rows under it, written, and dropped, as soon as they are. The run's end then writes only
// the rows still missing, where it wrote the whole pyramid: 22 MB at 16384^2, 1.3 GiB at
// 131072^2, and the levels above the base are never held whole.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "io/pyramid_file.hpp"
#include "view/base_pages.hpp"

namespace grundy::view {

using io::BlockStats;
using io::PyramidLevel;

// Rows [from, to) of `up` from the rows of `below` (its shape) under them, where up.blocks and
// below_blocks hold their levels' rows from rows up_first and below_first on
// (pyramid_builder.cpp).
void reduce_rows(const PyramidLevel& below, const BlockStats* below_blocks, uint64_t below_first,
                 PyramidLevel& up, uint64_t up_first, uint64_t from, uint64_t to, uint64_t rows,
                 uint64_t cols);

class PyramidStream {
  public:
    // The levels kPyramidBase..top of a rows x cols table to PATH (io::PyramidFileWriter), the
    // base level (of the shape of `base`) read from `pages` as its rows are done, and their
    // pages dropped. Throws grundy::Error when the file cannot be made.
    PyramidStream(const std::string& path, uint64_t rows, uint64_t cols, int top,
                  const PyramidLevel& base, BasePages& pages);

    // The cells of rows [y0, y0 + height) x `width` columns have their blocks' statistics in
    // the base level; each base row is written when it has them all. From any thread.
    void add_cells(uint64_t y0, uint64_t width, uint64_t height);
    // Every row not written yet (the base level is complete now), then the file made durable
    // and renamed into place. Throws grundy::Error when a write failed.
    void finish();
    uint64_t rows_written() const;  // of the base level so far (tests)

  private:
    void write_done_rows();
    static void drop_rows(PyramidLevel& level, uint64_t& first, uint64_t until);
    uint64_t rows_, cols_;
    BasePages& pages_;
    std::vector<std::atomic<uint64_t>> left_;  // cells of each base row still to come
    mutable std::mutex mutex_;                 // guards the members below
    bool finishing_ = false;                   // every base row counts as done
    std::vector<uint64_t> written_;            // rows written, per level from the base up
    // Every level, the base first, each holding only its rows from first_ on that the level
    // above has yet to be made from: a few rows, where whole the levels above the base were a
    // third of it.
    std::vector<PyramidLevel> held_;
    std::vector<uint64_t> first_;
    // Last, so that it goes first: its thread, which writes copies of the rows handed to it,
    // is stopped before anything else of the stream goes.
    io::PyramidFileWriter file_;
};

}  // namespace grundy::view
