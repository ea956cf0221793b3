// TableState: every row, column and diagonal set of a table being filled, as bit windows.
//
// A window is opened by the first cell that needs it and closed by the last, so at any time
// only the sets the wavefront is crossing hold memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bit_window.hpp"

namespace grundy::engine {

struct TableState {
    uint64_t rows = 0;                 // Y
    uint64_t cols = 0;                 // X
    std::vector<BitWindow> row_sets;   // row y
    std::vector<BitWindow> col_sets;   // column x
    std::vector<BitWindow> diag_sets;  // diagonal x - y, at index x - y + Y - 1

    TableState(uint64_t rows_, uint64_t cols_)
        : rows(rows_),
          cols(cols_),
          row_sets(rows_),
          col_sets(cols_),
          diag_sets(rows_ + cols_ - 1) {}
    TableState(const TableState&) = delete;
    TableState& operator=(const TableState&) = delete;
    ~TableState() {
        for (auto* sets : {&row_sets, &col_sets, &diag_sets})
            for (auto& w : *sets) w.close();
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
