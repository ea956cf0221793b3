// StripWindows: the sets of a strip of rows 0..Y-1 swept column by column, for `grundy periods`.
//
// The strip is swept x = 0, 1, 2, ... and inside column x from y = 0 up, which is a valid order:
// every option of (x, y) lies in an earlier column or lower in this one. Only three kinds of set
// exist: the Y row sets (alive for ever, but windows of about 3y bits), the sets of the columns
// being swept (alive for one column each) and the diagonals those columns cross. So the memory
// is O(Y^2) bits whatever the length.
//
// Several columns may be in flight at once: Strip pipelines bands of rows, the lowest band up to
// `lag` - 1 columns ahead of the highest (strip.cpp). Column x therefore has slot x mod lag, and
// diagonal d = x - y slot d mod (Y + lag): the diagonals that columns x_min .. x_min + lag - 1
// cross are fewer than Y + lag consecutive ones, so no two of them share a slot, and the one that
// needs slot d mod (Y + lag) at (d, 0) takes it from diagonal d - Y - lag, which left the strip
// at column d - lag - 1, before the column of the same slot (d - lag) was done.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/bit_window.hpp"
#include "engine/config.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

using engine::BitWindow;
using engine::kScanPadWords;

struct StripWindows {
    uint64_t rows = 0;
    uint64_t lag = 1;                  // columns that may be in flight at once
    uint64_t diag_count = 0;           // rows + lag diagonal slots
    std::vector<BitWindow> row_sets;   // row y
    std::vector<BitWindow> col_sets;   // column x at slot x mod lag
    std::vector<BitWindow> diag_sets;  // diagonal d at slot d mod (rows + lag)

    StripWindows(uint64_t rows_, uint64_t lag_)
        : rows(rows_),
          lag(lag_),
          diag_count(rows_ + lag_),
          row_sets(rows_),
          col_sets(lag_),
          diag_sets(rows_ + lag_) {
        for (uint64_t y = 0; y < rows; ++y) row_sets[y].open(0, (3 * y) / 32 + 2 * kScanPadWords);
        for (auto& w : diag_sets) w.open(0, (3 * rows) / 32 + 2 * kScanPadWords);
        for (auto& w : col_sets) w.open(0, (3 * rows) / 32 + 2 * kScanPadWords);
    }
    StripWindows(const StripWindows&) = delete;
    StripWindows& operator=(const StripWindows&) = delete;
    ~StripWindows() {
        for (auto& w : row_sets) w.close();
        for (auto& w : diag_sets) w.close();
        for (auto& w : col_sets) w.close();
    }

    uint64_t diag_slot(uint64_t x, uint64_t y) const {
        // (x - y) mod (Y + lag) for x - y possibly negative (y < Y).
        return (x + diag_count - y) % diag_count;
    }
    BitWindow& diag(uint64_t x, uint64_t y) { return diag_sets[diag_slot(x, y)]; }
    BitWindow& column(uint64_t x) { return col_sets[x % lag]; }

    // No value below x - 2(Y - 1) is ever asked of column x (src/DESIGN.md, section 1.4).
    uint64_t column_floor(uint64_t x) const {
        const uint64_t reach = 2 * (rows - 1);
        return x > reach ? x - reach : 0;
    }
    // Diagonal d >= 0 only meets cells with y <= Y - 1, whose mex is >= d - (Y - 1).
    uint64_t diagonal_floor(uint64_t x, uint64_t y) const {
        const uint64_t reach = rows - 1;
        return x > y + reach ? x - y - reach : 0;
    }

    // Empties a window for reuse by a new set, keeping its storage (no allocation per column).
    static void reset(BitWindow& w, uint64_t floor) { w.reset(floor); }

    uint64_t bytes() const {
        uint64_t b = 0;
        for (const auto& w : col_sets) b += w.capacity * 8;
        for (const auto& w : row_sets) b += w.capacity * 8;
        for (const auto& w : diag_sets) b += w.capacity * 8;
        return b;
    }
};

}  // namespace grundy::strip
