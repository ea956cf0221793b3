#include "view/pyramid_stream.hpp"

#include <algorithm>
#include <cstddef>

namespace grundy::view {

PyramidStream::PyramidStream(const std::string& path, uint64_t rows, uint64_t cols, int top,
                             const PyramidLevel& base, BasePages& pages)
    : rows_(rows),
      cols_(cols),
      pages_(pages),
      left_(base.height),
      written_(static_cast<size_t>(top - base.level + 1)),
      file_(path, rows, cols, top) {
    const uint64_t side = uint64_t{1} << base.level;
    for (uint64_t by = 0; by < base.height; ++by)
        left_[by] = cols * std::min(side, rows - by * side);
    for (int l = base.level; l <= top; ++l) {
        held_.push_back(PyramidLevel::of(l, rows, cols));
        first_.push_back(0);
    }
}

void PyramidStream::add_cells(uint64_t y0, uint64_t width, uint64_t height) {
    // The last cells of a row make it done: what every thread stored into the row before its
    // own count is seen by the thread that writes it. The rows that one call makes done (a
    // tile's, as its row of tiles ends) go to the file together, one write per field, not one
    // per row: a base row is only 1 to 4 KiB of a field at 4096^2 to 16384^2.
    const uint64_t side = uint64_t{1} << held_[0].level;
    bool any_done = false;
    for (uint64_t y = y0; y < y0 + height; y = (y | (side - 1)) + 1) {
        const uint64_t cells = width * (std::min(y0 + height, (y | (side - 1)) + 1) - y);
        any_done |= left_[y / side].fetch_sub(cells, std::memory_order_acq_rel) == cells;
    }
    if (!any_done) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    write_done_rows();
}

// Writes the base rows done from the first one not written on, then each level's rows whose
// rows below are all written. Rows are done nearly in order (a wavefront finishes the rows of
// tiles from the top), so little waits for a row done late. The base rows are copied out of
// their pages, which are then dropped; the file gets rows of its own, kept by its thread until
// written.
void PyramidStream::write_done_rows() {
    PyramidLevel& base = held_[0];
    uint64_t to = written_[0];
    // A row is done when no cell of it is left to come, or at the end (tiles that share blocks
    // never count their cells down).
    while (to < base.height && (finishing_ || left_[to].load(std::memory_order_acquire) == 0)) ++to;
    if (to == written_[0]) return;
    const uint64_t held = base.blocks.size() / base.width;
    base.blocks.resize((to - first_[0]) * base.width);
    pages_.copy_rows(first_[0] + held, to - first_[0] - held,
                     base.blocks.data() + held * base.width);
    pages_.drop_below(to);
    const auto done = base.blocks.begin() + static_cast<ptrdiff_t>(held * base.width);
    file_.write_rows(base.level, written_[0], std::vector<BlockStats>(done, base.blocks.end()));
    written_[0] = to;
    for (size_t l = 1; l < written_.size(); ++l) {
        const PyramidLevel& below = held_[l - 1];
        PyramidLevel& up = held_[l];
        uint64_t& up_first = first_[l];
        const uint64_t ready = written_[l - 1] == below.height ? up.height : written_[l - 1] / 2;
        if (ready <= written_[l]) break;
        up.blocks.resize((ready - up_first) * up.width);
        reduce_rows(below, below.blocks.data(), first_[l - 1], up, up_first, written_[l], ready,
                    rows_, cols_);
        const auto made =
            up.blocks.begin() + static_cast<ptrdiff_t>((written_[l] - up_first) * up.width);
        file_.write_rows(up.level, written_[l], std::vector<BlockStats>(made, up.blocks.end()));
        written_[l] = ready;
        drop_rows(held_[l - 1], first_[l - 1], 2 * ready);             // made into this level
        if (l + 1 == written_.size()) drop_rows(up, up_first, ready);  // the top: nothing above
    }
    if (written_.size() == 1) drop_rows(base, first_[0], to);  // the base is the top
}

// Drops the rows of `level` (held from row `first` on) below row `until`.
void PyramidStream::drop_rows(PyramidLevel& level, uint64_t& first, uint64_t until) {
    const uint64_t held = level.blocks.size() / level.width;
    const uint64_t to = std::min(until, first + held);
    if (to <= first) return;
    level.blocks.erase(level.blocks.begin(),
                       level.blocks.begin() + static_cast<ptrdiff_t>((to - first) * level.width));
    first = to;
}

void PyramidStream::finish() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        finishing_ = true;
        write_done_rows();
    }
    file_.finish();
}

uint64_t PyramidStream::rows_written() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return written_[0];
}

}  // namespace grundy::view
