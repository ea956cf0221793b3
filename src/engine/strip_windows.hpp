// StripWindows: the sets of a strip of rows 0..Y-1 swept column by column, for `grundy periods`.
//
// The strip is swept x = 0, 1, 2, ... and inside column x from y = 0 up, which is a valid order:
// every option of (x, y) lies in an earlier column or lower in this one. Only three kinds of set
// exist: the Y row sets (alive for ever, but windows of about 3y bits), the set of the current
// column (alive for one column) and the Y diagonals the column crosses (diagonal d = x - y, kept
// in slot d mod Y: the diagonal that needs slot d mod Y at (d, 0) is the one that left it at
// (d - 1, Y - 1), one column earlier). So the memory is O(Y^2) bits whatever the length.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/bit_window.hpp"
#include "engine/config.hpp"

namespace grundy::engine {

struct StripWindows {
    uint64_t rows = 0;
    std::vector<BitWindow> row_sets;   // row y
    BitWindow col;                     // the column being swept
    std::vector<BitWindow> diag_sets;  // diagonal d at slot d mod Y

    explicit StripWindows(uint64_t rows_) : rows(rows_), row_sets(rows_), diag_sets(rows_) {
        for (uint64_t y = 0; y < rows; ++y) {
            row_sets[y].open(0, (3 * y) / 32 + 2 * kScanPadWords);
            diag_sets[y].open(0, (3 * y) / 32 + 2 * kScanPadWords);
        }
        col.open(0, (3 * rows) / 32 + 2 * kScanPadWords);
    }
    StripWindows(const StripWindows&) = delete;
    StripWindows& operator=(const StripWindows&) = delete;
    ~StripWindows() {
        for (auto& w : row_sets) w.close();
        for (auto& w : diag_sets) w.close();
        col.close();
    }

    uint64_t diag_slot(uint64_t x, uint64_t y) const {
        // (x - y) mod Y for x - y possibly negative.
        return (x + rows - (y % rows)) % rows;
    }
    BitWindow& diag(uint64_t x, uint64_t y) { return diag_sets[diag_slot(x, y)]; }

    // No value below x - 2(Y - 1) is ever asked of column x (DESIGN.md bounds).
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
        uint64_t b = col.capacity * 8;
        for (const auto& w : row_sets) b += w.capacity * 8;
        for (const auto& w : diag_sets) b += w.capacity * 8;
        return b;
    }
};

// Sweeps column x (every earlier column done), writing g(x, y) to g[y] for y = 0..Y-1.
using StripColumnFn = void (*)(StripWindows&, uint64_t x, uint64_t* g);

void sweep_strip_column_portable(StripWindows&, uint64_t x, uint64_t* g);
void sweep_strip_column_summary(StripWindows&, uint64_t x, uint64_t* g);
void sweep_strip_column_avx2(StripWindows&, uint64_t x, uint64_t* g);
void sweep_strip_column_avx512(StripWindows&, uint64_t x, uint64_t* g);

}  // namespace grundy::engine
