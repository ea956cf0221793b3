// Template, included once per instruction set; no include guard. Parameters: those of
// sweep_cell_template.hpp (MEX_PROBE, MEX_FINISH), included just before it in the same
// namespace, and prepare_tile (tile_fill.hpp). Defines sweep_tile_body, the SweepFn of that
// build (sweep.hpp).
//
// The sweep of one tile: every cell of a rectangle, each the mex of its row, column and diagonal
// sets, then added to them (sweep_cell_template.hpp). Included by sweep_*.cpp inside a region
// compiled for one instruction set, with MEX_PROBE and MEX_FINISH naming that set's kernel; the
// schedule (wavefront.cpp) never sees which.
//
// Rows are swept a few at a time, each one a column behind the one below: cell (x, y + 1) needs
// (x, y) (its column) and (x - 1, y) (its diagonal), both already done, and shares no set with
// (x + 1, y), the cell taken beside it. A cell's scan is a chain of dependent loads (window
// header, first word, summaries, candidate words, mostly from L2), and one row's cells follow
// each other through the row set; independent chains in the same loop let the CPU overlap
// their loads.

// Cells left of the diagonal (symmetric mode, tile_fill.hpp): the first `count` cells of row y,
// g(x, y) = g(y, x), copied from column y - x0 of the tile's rows below. Only the row set needs
// them.
static inline void copy_mirrors(TableState& s, uint64_t x0, uint64_t width, uint64_t y0, uint64_t y,
                                uint64_t count, uint32_t* out) {
    uint32_t* out_row = out + (y - y0) * width;
    for (uint64_t i = 0; i < count; ++i) {
        const uint32_t v = out[i * width + (y - x0)];
        out_row[i] = v;
        s.row_sets[y].insert(v);
    }
}

// Rows y .. y + K - 1 of the tile, row r kept r columns behind row 0: in round i, row r takes
// column i - r once that is at or past its first cell. In a tile on the diagonal (lower_half)
// row y's first cell is at column y - x0, after its mirrors, which come from column y - x0 of
// the rows below: row y - 1 computes that column two rounds earlier. In the rounds where every
// row has a cell to take, no bounds are tested.
template <int K>
static inline void sweep_rows(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y,
                              uint32_t* out, bool lower_half) {
    const uint64_t width = x1 - x0;
    BitWindow* col = &s.col_sets[x0];
    BitWindow* rows[K];
    BitWindow* dia[K];
    uint32_t* out_row[K];
    uint64_t first[K];
    uint64_t steady = 0;  // the first round where every row takes a cell past its first
    for (int r = 0; r < K; ++r) {
        rows[r] = &s.row_sets[y + r];
        dia[r] = &s.diag(x0, y + r);
        out_row[r] = out + (y + r - y0) * width;
        first[r] = lower_half && y + r > x0 ? (y + r < x1 ? y + r : x1) - x0 : 0;
        steady = steady > first[r] + r + 1 ? steady : first[r] + r + 1;
    }
    auto round = [&](uint64_t i) {
        for (int r = 0; r < K; ++r) {
            const uint64_t c = i - static_cast<uint64_t>(r);  // wraps for rows not started
            if (c >= width || c < first[r]) continue;
            if (c == first[r] && first[r] > 0)
                copy_mirrors(s, x0, width, y0, y + static_cast<uint64_t>(r), first[r], out);
            out_row[r][c] = static_cast<uint32_t>(sweep_cell(*rows[r], col[c], dia[r][c]));
        }
    };
    uint64_t i = first[0];
    for (; i < steady && i < width + K - 1; ++i) round(i);
    if (i < width) {
        // The K cells of a round lie on one anti-diagonal: they share no row, column or
        // diagonal, and each needs only cells of earlier rounds. Row r's cell of the next
        // round needs only row r - 1's and its own cell of this round, so it is begun as soon
        // as its own cell is ended, while the rows above are still being ended: every cell's
        // first loads are in flight a whole round before its branches (sweep_cell_template.hpp says
        // why).
        Cursor row[K];
        Cell cells[K];
#pragma GCC unroll 8
        for (int r = 0; r < K; ++r) {
            const uint64_t c = i - static_cast<uint64_t>(r);
            row[r] = cursor_of(*rows[r]);
            begin_cell(cells[r], row[r], col[c], dia[r][c]);
        }
        for (; i + 1 < width; ++i) {
#pragma GCC unroll 8
            for (int r = 0; r < K; ++r) {
                const uint64_t c = i - static_cast<uint64_t>(r);
                out_row[r][c] =
                    static_cast<uint32_t>(end_cell(cells[r], row[r], col[c], dia[r][c]));
                begin_cell(cells[r], row[r], col[c + 1], dia[r][c + 1]);
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < K; ++r) {
            const uint64_t c = i - static_cast<uint64_t>(r);
            out_row[r][c] = static_cast<uint32_t>(end_cell(cells[r], row[r], col[c], dia[r][c]));
            rows[r]->low = row[r].low;
        }
        ++i;
    }
    for (; i < width + K - 1; ++i) round(i);
}

// Fills the tile; returns the change in bytes of window storage.
static int64_t sweep_tile_body(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                               uint32_t* out, bool lower_half) {
    // Windows are opened and made long enough once per tile, so the loop over cells does
    // nothing but scan and insert.
    int64_t bytes = prepare_tile(s, x0, x1, y0, y1, lower_half);
    // Three rows at a time: on 16384^2, one thread, with the pipelined rounds, 2.22-2.51 s
    // (median 2.32) against 2.28-2.41 s for two rows, 2.37-2.50 s for four and 2.44-2.60 s for
    // five (alternated runs; before the pipelining, one row at a time took 3.17 s of CPU).
    constexpr int kRows = 3;
    uint64_t y = y0;
    for (; y + kRows <= y1; y += kRows) sweep_rows<kRows>(s, x0, x1, y0, y, out, lower_half);
    // The rows left over (a 512 tile leaves two) still go in one pass where they can.
    if (y1 - y == 2) sweep_rows<2>(s, x0, x1, y0, y, out, lower_half);
    if (y1 - y == 1) sweep_rows<1>(s, x0, x1, y0, y, out, lower_half);
    return bytes;
}
