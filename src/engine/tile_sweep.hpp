// The sweep of one tile: every cell of a rectangle, each the mex of its row, column and diagonal
// sets, then added to them. Included by sweep_*.cpp inside a region compiled for one
// instruction set, with MEX_SCAN naming that set's kernel; the schedule (wavefront.cpp) never
// sees which.
//
// Rows are swept two at a time, the upper one a column behind: cell (x, y + 1) needs (x, y)
// (its column) and (x - 1, y) (its diagonal), both already done, and shares no set with
// (x + 1, y), the cell taken beside it. A cell's scan is a chain of dependent loads (window
// header, first word, summaries, candidate words, mostly from L2), and one row's cells follow
// each other through the row set; two independent chains in the same loop let the CPU overlap
// their loads.

// One cell: the mex of its three sets, added to them.
static inline uint32_t sweep_cell(BitWindow& row, BitWindow& col, BitWindow& dia) {
    uint64_t lo = row.low > col.low ? row.low : col.low;
    lo = lo > dia.low ? lo : dia.low;
    const uint64_t g = MEX_SCAN(row, col, dia, lo);
    row.insert(g);
    col.insert(g);
    dia.insert(g);
    return static_cast<uint32_t>(g);
}

// Fills the tile; returns the change in bytes of window storage.
static int64_t sweep_tile_body(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                               uint32_t* out, bool lower_half) {
    // Windows are opened and made long enough once per tile, so the loop over cells does
    // nothing but scan and insert.
    int64_t bytes = prepare_tile(s, x0, x1, y0, y1, lower_half);
    const uint64_t width = x1 - x0;
    BitWindow* col = &s.col_sets[x0];
    // Cells left of the diagonal: g(x, y) = g(y, x), found in an earlier row of this tile
    // (column y - x0). Only the row needs them (symmetric mode, tile_fill.hpp). Returns the
    // first column to compute.
    auto copy_mirrors = [&](uint64_t y) -> uint64_t {
        if (!lower_half || y <= x0) return 0;
        const uint64_t first = (y < x1 ? y : x1) - x0;
        uint32_t* out_row = out + (y - y0) * width;
        for (uint64_t i = 0; i < first; ++i) {
            const uint32_t v = out[i * width + (y - x0)];
            out_row[i] = v;
            s.row_sets[y].insert(v);
        }
        return first;
    };
    uint64_t y = y0;
    for (; y + 1 < y1; y += 2) {
        BitWindow& row_a = s.row_sets[y];
        BitWindow& row_b = s.row_sets[y + 1];
        uint32_t* out_a = out + (y - y0) * width;
        uint32_t* out_b = out_a + width;
        BitWindow* dia_a = &s.diag(x0, y);
        BitWindow* dia_b = &s.diag(x0, y + 1);
        uint64_t i = copy_mirrors(y);
        // Row y + 1's mirrors come from rows up to y, column y + 1 - x0, which row y computes
        // first: row y leads alone until it is one column past row y + 1's first cell.
        const uint64_t first_b = lower_half && y + 1 > x0 ? (y + 1 < x1 ? y + 1 : x1) - x0 : 0;
        for (; i < width && i <= first_b; ++i) out_a[i] = sweep_cell(row_a, col[i], dia_a[i]);
        uint64_t j = copy_mirrors(y + 1);
        for (; i < width; ++i, ++j) {
            out_a[i] = sweep_cell(row_a, col[i], dia_a[i]);
            out_b[j] = sweep_cell(row_b, col[j], dia_b[j]);
        }
        for (; j < width; ++j) out_b[j] = sweep_cell(row_b, col[j], dia_b[j]);
    }
    if (y < y1) {
        uint32_t* out_row = out + (y - y0) * width;
        BitWindow* dia = &s.diag(x0, y);
        for (uint64_t i = copy_mirrors(y); i < width; ++i)
            out_row[i] = sweep_cell(s.row_sets[y], col[i], dia[i]);
    }
    return bytes;
}
