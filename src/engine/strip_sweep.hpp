// The sweep of one column of a strip (StripWindows): every cell (x, 0..Y-1), bottom up, each the
// mex of its row, column and diagonal sets. Included by sweep_*.cpp inside a region compiled for
// one instruction set, with MEX_SCAN naming that set's kernel, exactly like tile_sweep.hpp.

static void sweep_strip_column_body(StripWindows& s, uint64_t x, uint64_t* g) {
    BitWindow& col = s.col;
    StripWindows::reset(col, s.column_floor(x));
    uint64_t slot = x % s.rows;  // diagonal x - y lives in slot (x - y) mod Y
    for (uint64_t y = 0; y < s.rows; ++y) {
        BitWindow& row = s.row_sets[y];
        BitWindow& dia = s.diag_sets[slot];
        slot = slot == 0 ? s.rows - 1 : slot - 1;
        // A diagonal starts at (0, y) or at (x, 0); its slot's previous diagonal has ended.
        if (x == 0 || y == 0) StripWindows::reset(dia, s.diagonal_floor(x, y));
        const uint64_t last_word = (x + y) / 64 + kScanPadWords;
        row.reserve_through(last_word);
        col.reserve_through(last_word);
        dia.reserve_through(last_word);
        uint64_t lo = row.low > col.low ? row.low : col.low;
        lo = lo > dia.low ? lo : dia.low;
        const uint64_t v = MEX_SCAN(row, col, dia, lo);
        g[y] = v;
        row.insert(v);
        col.insert(v);
        dia.insert(v);
    }
}
