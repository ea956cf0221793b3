// TableState: every row, column and diagonal set of a table being filled, as bit windows.
//
// A window is opened by the first cell that needs it and closed by the last, so at any time
// only the sets the wavefront is crossing hold memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "base/big_memory.hpp"
#include "engine/bit_window.hpp"

namespace grundy::engine {

// Closed windows, `count` of them, in fresh pages of the system's that nobody writes before a
// worker opens a window there. A closed window is all zero bits, which is what a new mapping
// holds, so the windows' headers (65 535 of them, 4 MiB, at 16384^2) are first touched by the
// workers as their tiles open windows, not by one thread before the first tile while the other
// cores wait (11-22 ms there as a vector of value-initialised windows; docs/benchmarks.md, "The
// fixed costs of a run with output").
class WindowArray {
  public:
    explicit WindowArray(uint64_t count)
        : block_(std::max<uint64_t>(count, 1) * sizeof(BitWindow)),
          windows_(static_cast<BitWindow*>(block_.data())),
          count_(count) {}
    BitWindow& operator[](uint64_t i) { return windows_[i]; }
    BitWindow* begin() { return windows_; }
    BitWindow* end() { return windows_ + count_; }

  private:
    // What makes zero bits a closed window: no constructor or destructor of its own to skip.
    static_assert(std::is_trivially_copyable_v<BitWindow> &&
                  std::is_trivially_destructible_v<BitWindow>);
    base::SmallPageBlock block_;
    BitWindow* windows_;
    uint64_t count_;
};

struct TableState {
    uint64_t rows = 0;      // Y
    uint64_t cols = 0;      // X
    WindowArray row_sets;   // row y
    WindowArray col_sets;   // column x
    WindowArray diag_sets;  // diagonal x - y, at index x - y + Y - 1

    TableState(uint64_t rows_, uint64_t cols_)
        : rows(rows_),
          cols(cols_),
          row_sets(rows_),
          col_sets(cols_),
          diag_sets(rows_ + cols_ - 1) {}
    TableState(const TableState&) = delete;
    TableState& operator=(const TableState&) = delete;
    // A stopped run leaves windows open (a finished one has closed them all). Only those are
    // closed: close() writes, and a closed window's page may never have been touched.
    ~TableState() {
        for (auto* sets : {&row_sets, &col_sets, &diag_sets})
            for (auto& w : *sets)
                if (w.is_open()) w.close();
    }

    BitWindow& diag(uint64_t x, uint64_t y) { return diag_sets[x + rows - 1 - y]; }

    // Values a window may forget from the start. Every cell (x, y) has its mex in
    // [max(x - 2y, y - 2x), x + y]. Column x only meets cells with y <= Y - 1, so nothing below
    // x - 2(Y - 1) is ever asked of it; likewise row y below y - 2(X - 1) (without that floor,
    // each row of a tall narrow table would reserve and clear about y bits for a few cells:
    // quadratic in the height); a diagonal with |x - y| = k only meets cells with
    // min(x, y) <= min(X, Y) - 1, so nothing below k - (min(X, Y) - 1).
    uint64_t column_floor(uint64_t x) const {
        const uint64_t reach = 2 * (rows - 1);
        return x > reach ? x - reach : 0;
    }
    uint64_t row_floor(uint64_t y) const {
        const uint64_t reach = 2 * (cols - 1);
        return y > reach ? y - reach : 0;
    }
    uint64_t diagonal_floor(uint64_t x, uint64_t y) const {
        const uint64_t k = x > y ? x - y : y - x;
        const uint64_t reach = std::min(rows, cols) - 1;
        return k > reach ? k - reach : 0;
    }
    // The last cell of diagonal x - y inside the table, as its row.
    uint64_t diagonal_last_row(uint64_t x, uint64_t y) const {
        const uint64_t steps = std::min(rows - 1 - y, cols - 1 - x);
        return y + steps;
    }
};

}  // namespace grundy::engine
