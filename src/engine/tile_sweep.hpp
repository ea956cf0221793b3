// The sweep of one tile: every cell of a rectangle, row by row, each the mex of its row, column
// and diagonal sets, then added to them. Included by sweep_*.cpp inside a region compiled for
// one instruction set, with MEX_SCAN naming that set's kernel; the schedule (wavefront.cpp)
// never sees which.
//
// Row-major order inside a tile is valid: a cell's options to the left and below in the same
// tile come earlier in it, and the tiles it depends on are finished before this one starts.

// Opens, reserves and fills; returns the change in bytes of window storage.
static int64_t sweep_tile_body(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                               uint32_t* out) {
    int64_t bytes = 0;
    const uint32_t width = static_cast<uint32_t>(x1 - x0);
    for (uint64_t y = y0; y < y1; ++y) {
        BitWindow& row = s.row_sets[y];
        if (!row.is_open()) bytes += static_cast<int64_t>(row.open(0, (3 * y) / 32 + 2 * kScanPadWords));
        uint32_t* out_row = out + (y - y0) * width;
        for (uint64_t x = x0; x < x1; ++x) {
            BitWindow& col = s.col_sets[x];
            if (!col.is_open())
                bytes += static_cast<int64_t>(col.open(s.column_floor(x), 2 * kScanPadWords));
            BitWindow& dia = s.diag(x, y);
            if (!dia.is_open())
                bytes += static_cast<int64_t>(dia.open(s.diagonal_floor(x, y), 2 * kScanPadWords));

            const uint64_t last_word = (x + y) / 64 + kScanPadWords;
            bytes += row.reserve_through(last_word);
            bytes += col.reserve_through(last_word);
            bytes += dia.reserve_through(last_word);

            uint64_t lo = row.low > col.low ? row.low : col.low;
            lo = lo > dia.low ? lo : dia.low;
            const uint64_t g = MEX_SCAN(row, col, dia, lo);
            out_row[x - x0] = static_cast<uint32_t>(g);
            row.insert(g);
            col.insert(g);
            dia.insert(g);
        }
    }
    return bytes;
}
