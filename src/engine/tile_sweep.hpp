// The sweep of one tile: every cell of a rectangle, row by row, each the mex of its row, column
// and diagonal sets, then added to them. Included by sweep_*.cpp inside a region compiled for
// one instruction set, with MEX_SCAN naming that set's kernel; the schedule (wavefront.cpp)
// never sees which.
//
// Row-major order inside a tile is valid: a cell's options to the left and below in the same
// tile come earlier in it, and the tiles it depends on are finished before this one starts.

// Fills the tile; returns the change in bytes of window storage.
static int64_t sweep_tile_body(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                               uint32_t* out, bool lower_half) {
    // Windows are opened and made long enough once per tile, so the loop over cells does
    // nothing but scan and insert.
    int64_t bytes = prepare_tile(s, x0, x1, y0, y1, lower_half);
    const uint64_t width = x1 - x0;
    for (uint64_t y = y0; y < y1; ++y) {
        BitWindow& row = s.row_sets[y];
        uint32_t* out_row = out + (y - y0) * width;
        BitWindow* col = &s.col_sets[x0];
        BitWindow* dia = &s.diag(x0, y);
        uint64_t first = 0;
        if (lower_half && y > x0) {
            // Cells left of the diagonal: g(x, y) = g(y, x), found in an earlier row of this
            // tile. Only the row needs them (symmetric mode, tile_fill.hpp).
            first = (y < x1 ? y : x1) - x0;
            for (uint64_t i = 0; i < first; ++i) {
                const uint32_t v = out[i * width + (y - x0)];
                out_row[i] = v;
                row.insert(v);
            }
        }
        for (uint64_t i = first; i < width; ++i) {
            uint64_t lo = row.low > col[i].low ? row.low : col[i].low;
            lo = lo > dia[i].low ? lo : dia[i].low;
            const uint64_t g = MEX_SCAN(row, col[i], dia[i], lo);
            out_row[i] = static_cast<uint32_t>(g);
            row.insert(g);
            col[i].insert(g);
            dia[i].insert(g);
        }
    }
    return bytes;
}
