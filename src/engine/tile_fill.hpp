// Filling a tile whose values are already known: the mirror image of a computed tile.
//
// g(x, y) = g(y, x), so in the part of the table covered by both (x, y) and (y, x) only the
// tiles on or below the main diagonal are computed; the tile above is the transpose of its
// mirror, and its values only have to be added to the row, column and diagonal sets that later
// tiles read. Adding a known value costs a fraction of finding it by a mex scan.
#pragma once

#include <cstdint>

#include "engine/table_state.hpp"

namespace grundy::engine {

// Adds the values of rows y0..y1-1, columns x0..x1-1 (row-major in `values`, stride x1 - x0)
// to their sets, as a sweep of that tile would have. Returns the change in bytes of windows.
int64_t fill_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                  const uint32_t* values);

// Opens every window the cells of the tile need and makes each long enough for the largest
// value (x + y) it can meet in the tile plus the scan padding. Returns the change in bytes.
int64_t prepare_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1);

// Closes the sets whose last cell in the table lies in this tile. Returns the bytes freed.
int64_t close_finished_sets(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1);

}  // namespace grundy::engine
