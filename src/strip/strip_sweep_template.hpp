// Template, included once per instruction set; no include guard. Parameters: those of
// sweep_cell_template.hpp (MEX_PROBE, MEX_FINISH), included just before it in the same
// namespace. Defines sweep_strip_column_body, the StripColumnFn of that build
// (strip_sweep.hpp).
//
// The sweep of one band of a column of a strip (StripWindows): the cells (x, y0..y1-1), bottom
// up, each the mex of its row, column and diagonal sets (sweep_cell_template.hpp), exactly like
// tile_sweep_template.hpp for a table.

static void sweep_strip_column_body(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                    uint64_t* g) {
    BitWindow& col = s.column(x);
    if (y0 == 0) StripWindows::reset(col, s.column_floor(x));
    uint64_t slot = s.diag_slot(x, y0);  // diagonal x - y lives in slot (x - y) mod diag_count
    // The windows of a column's cells lie all over memory (one allocation each) and their words
    // are mostly out of L1 when a cell needs them, so the cell kStripPrefetchCells ahead has the
    // words its scan starts with fetched now: that overlaps what would be a wait in every cell.
    uint64_t ahead = s.diag_slot(x, y0 + kStripPrefetchCells);
    for (uint64_t y = y0; y < y1; ++y) {
        if (y + kStripPrefetchCells < y1) {
            const BitWindow& r = s.row_sets[y + kStripPrefetchCells];
            const BitWindow& d = s.diag_sets[ahead];
            const uintptr_t at = 8 * (r.low / 64);
            __builtin_prefetch(reinterpret_cast<const void*>(r.word_origin + at));
            __builtin_prefetch(reinterpret_cast<const void*>(r.word_origin + at + 64));
            __builtin_prefetch(reinterpret_cast<const void*>(d.word_origin + at));
            __builtin_prefetch(reinterpret_cast<const void*>(d.word_origin + at + 64));
        }
        ahead = ahead == 0 ? s.diag_count - 1 : ahead - 1;
        BitWindow& row = s.row_sets[y];
        BitWindow& dia = s.diag_sets[slot];
        slot = slot == 0 ? s.diag_count - 1 : slot - 1;
        // A diagonal starts at (0, y) or at (x, 0); its slot's previous diagonal has ended. (With
        // settled rows it starts at the lowest swept row instead: Strip::start_boundary.)
        if (x == 0 || y == 0) StripWindows::reset(dia, s.diagonal_floor(x, y));
        const uint64_t last_word = (x + y) / 64 + kScanPadWords;
        row.reserve_through(last_word);
        col.reserve_through(last_word);
        dia.reserve_through(last_word);
        g[y - y0] = sweep_cell(row, col, dia);
    }
}
