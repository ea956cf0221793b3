// Preparing, filling and closing the windows of a tile.
//
// g(x, y) = g(y, x), so in the part of the table covered by both (x, y) and (y, x) only the
// tiles on or below the main diagonal are computed; the tile above is the transpose of its
// mirror. Two ways to keep the sets right:
// - in general (fill_tile), the mirrored tile's values are added to its row, column and
//   diagonal sets, because tiles above the diagonal that are not mirrored read them;
// - in symmetric mode (every tile above the diagonal is mirrored, so the table is at least as
//   wide as high), no swept cell has x < y, and those cells need no column or diagonal with
//   x < y. They need row y only from its cell (y, y) on, and at the start of the tile on the
//   diagonal that holds (y, y), row y's set {g(x, y) : x < x0} is column y's set
//   {g(y, x) : x < y0} (x0 = y0 there). So that tile opens row y as a copy of column y, fills
//   in the cells left of the diagonal from their mirrors, and mirrored tiles touch no set: the
//   cost of the upper half drops from three inserts per cell to one copy per row.
#pragma once

#include <cstdint>

#include "engine/table_state.hpp"

namespace grundy::engine {

// Adds the values of rows y0..y1-1, columns x0..x1-1 (row-major in `values`, stride x1 - x0)
// to their sets, as a sweep of that tile would have. Returns the change in bytes of windows.
int64_t fill_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                  const uint32_t* values);

// Puts the stored values of a finished tile back into its sets exactly as its sweep left them
// (grundy compute --resume): prepare_tile with the same `lower_half`, then each value into the
// sets its sweep inserted it into (with `lower_half`, the cells with x < y into their row
// only). Every value is checked first against the bounds and the sets, so a damaged file gives
// grundy::Error instead of a write outside a window. Returns the change in bytes.
int64_t replay_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                    const uint32_t* values, bool lower_half);

// Opens every window the cells of the tile need and makes each long enough for the largest
// value (x + y) it can meet in the tile plus the scan padding. With `lower_half` (a tile on the
// diagonal in symmetric mode) only the cells with x >= y count, and rows open as copies of
// their columns. Returns the change in bytes.
int64_t prepare_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                     bool lower_half);

// Closes the sets whose last cell in the table lies in this tile. Returns the bytes freed.
int64_t close_finished_sets(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1);

// Closes columns x0..x1-1 (in symmetric mode a column is done after its tile on the diagonal).
// Returns the bytes freed.
int64_t close_columns(TableState& s, uint64_t x0, uint64_t x1);

}  // namespace grundy::engine
