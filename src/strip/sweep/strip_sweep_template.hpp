// Template, included once per instruction set; no include guard. Parameters: those of
// sweep_cell_template.hpp (MEX_PROBE, MEX_FINISH), included just before it in the same
// namespace. Defines sweep_strip_body, the StripSweepFn of that build (strip_sweep.hpp).
//
// The sweep of one band of rows over a batch of columns of a strip (StripWindows): every cell
// the mex of its row, column and diagonal sets (sweep_cell_template.hpp), as
// tile_sweep_template.hpp does for a table.
//
// A column swept alone is one chain: each cell's column set was just written by the cell below,
// so a cell's scan cannot start before the last one's has ended. Columns are therefore swept a
// few at a time, each one row behind the one before, in rounds along anti-diagonals (the table's
// sweep_rows with rows and columns swapped): cell (x + k, y) needs (x + k, y - 1) (its column)
// and (x + k - 1, y) and (x + k - 1, y - 1) (its row and diagonal), all of earlier rounds or
// earlier in its own, and shares no set with the other cells of its round.

// The batch's diagonals by their index in b.diagonals: through that array, or, where their
// slots do not wrap around the ring of diagonal windows (nine batches in ten), by address: the
// slots then descend, one window apart. A cell's diagonal window is then found without a load
// of its address, one step fewer in the chain of loads that a cell's scan waits on.
struct ListedDiagonals {
    BitWindow* const* at;
    BitWindow& operator[](int64_t i) const { return *at[i]; }
    ListedDiagonals operator+(uint64_t i) const { return {at + i}; }
};
struct AdjacentDiagonals {
    BitWindow* at;  // diagonal 0's window; diagonal i's is at[-i]
    BitWindow& operator[](int64_t i) const { return at[-i]; }
    AdjacentDiagonals operator+(uint64_t i) const { return {at - i}; }
};

// Columns xs .. xs + K - 1 of the batch, column k kept k rows behind column 0: in round t,
// column k takes row t - k. `diagonal[k]` is column xs + k's diagonal at row y0 (the batch's
// diagonals, `all`, laid out so that row y0 + r's is diagonal[k][r]). `comparing[j]`: column
// x + j is still compared (StripBatch::same_row).
template <int K, class Diagonals>
static inline void sweep_columns(StripWindows& s, const StripBatch& b, Diagonals all, uint64_t xs,
                                 bool* comparing) {
    const uint64_t R = b.y1 - b.y0;
    BitWindow* const rows = s.row_sets.data() + b.y0;
    BitWindow* column[K];
    Diagonals diagonal[K];
    uint64_t* out[K];
    bool* compare[K];
    for (int k = 0; k < K; ++k) {
        const uint64_t j = xs - b.x + static_cast<uint64_t>(k);
        column[k] = &s.column(xs + static_cast<uint64_t>(k));
        diagonal[k] = all + (b.n - 1 - j);
        out[k] = b.g + j * b.stride;
        compare[k] = comparing + j;
    }
    auto compared = [&](int k, uint64_t r) {
        if (*compare[k])
            *compare[k] = b.same_row(b.context, xs + static_cast<uint64_t>(k), b.y0 + r);
    };
    auto round = [&](uint64_t t) {
        for (int k = 0; k < K; ++k) {
            const uint64_t r = t - static_cast<uint64_t>(k);  // wraps for columns not started
            if (r >= R) continue;
            out[k][r] = sweep_cell(*column[k], rows[r], diagonal[k][r]);
            compared(k, r);
        }
    };
    uint64_t t = 0;
    for (; t + 1 < K && t < R + K - 1; ++t) round(t);
    if (t < R) {
        // Column k's cell of the next round needs only column k - 1's and its own cell of this
        // round, so it is begun as soon as its own cell is ended, while the columns after it
        // are still being ended: every cell's first loads are in flight a whole round before
        // its branches (sweep_cell_template.hpp says why).
        Cursor col[K];
        Cell cells[K];
#pragma GCC unroll 8
        for (int k = 0; k < K; ++k) {
            const uint64_t r = t - static_cast<uint64_t>(k);
            col[k] = cursor_of(*column[k]);
            begin_cell(cells[k], col[k], rows[r], diagonal[k][r]);
        }
        // While any of the K columns is still compared, every cell is followed by its check;
        // once none is (a column stops at its first mismatch, mostly within its lowest rows),
        // the rest of the band runs in a loop without them, as a table's rows do, which leaves
        // the registers to the cells (below).
        auto compared_any = [&] {
            bool any = false;
            for (int k = 0; k < K; ++k) any |= *compare[k];
            return any;
        };
        for (bool checking = compared_any(); checking && t + 1 < R; ++t) {
#pragma GCC unroll 8
            for (int k = 0; k < K; ++k) {
                const uint64_t r = t - static_cast<uint64_t>(k);
                out[k][r] = end_cell(cells[k], col[k], rows[r], diagonal[k][r]);
                compared(k, r);
                begin_cell(cells[k], col[k], rows[r + 1], diagonal[k][r + 1]);
            }
            checking = compared_any();
        }
        // Column k's row and diagonal of round t are row t - k and diagonal[0][t - 2k] (its
        // diagonals are column 0's shifted by k), so one pointer into each serves the K columns:
        // 3 instructions fewer per cell than indexing each column's own (callgrind, 2048 rows),
        // most of them reloads of spilled pointers.
        for (; t + 1 < R; ++t) {
            BitWindow* const row_t = rows + t;
            const Diagonals dia_t = diagonal[0] + t;
#pragma GCC unroll 8
            for (int k = 0; k < K; ++k) {
                out[k][t - static_cast<uint64_t>(k)] =
                    end_cell(cells[k], col[k], row_t[-k], dia_t[-2 * k]);
                begin_cell(cells[k], col[k], row_t[1 - k], dia_t[1 - 2 * k]);
            }
        }
#pragma GCC unroll 8
        for (int k = 0; k < K; ++k) {
            const uint64_t r = t - static_cast<uint64_t>(k);
            out[k][r] = end_cell(cells[k], col[k], rows[r], diagonal[k][r]);
            compared(k, r);
            column[k]->low = col[k].low;
        }
        ++t;
    }
    for (; t < R + K - 1; ++t) round(t);
}

// The batch's columns, K at a time, then the last one or two.
template <int K, class Diagonals>
static void sweep_batch(StripWindows& s, const StripBatch& b, Diagonals all, bool* comparing) {
    const uint64_t last = b.x + b.n - 1;
    uint64_t x = b.x;
    for (; x + K <= last + 1; x += K) sweep_columns<K>(s, b, all, x, comparing);
    if (last + 1 - x == 2) sweep_columns<2>(s, b, all, x, comparing);
    if (last + 1 - x == 1) sweep_columns<1>(s, b, all, x, comparing);
}

static void sweep_strip_body(StripWindows& s, const StripBatch& b) {
    const uint64_t R = b.y1 - b.y0, last = b.x + b.n - 1;
    // Everything that is not per cell, once per batch, so the loop over cells does nothing but
    // scan and insert. New sets first: a column starts empty at y = 0, a diagonal at (x, 0) or
    // (0, y) (with settled rows or ranks, Strip starts them at the lowest swept row instead).
    if (b.y0 == 0)
        for (uint64_t x = b.x; x <= last; ++x) {
            StripWindows::reset(s.column(x), s.column_floor(x));
            StripWindows::reset(s.diag(x, 0), s.diagonal_floor(x, 0));
        }
    if (b.x == 0)
        for (uint64_t y = b.y0; y < b.y1; ++y)
            StripWindows::reset(s.diag(0, y), s.diagonal_floor(0, y));
    // Then room in every window for the largest value the batch can insert there (x + y at
    // its highest cell of that set), kScanPadWords words beyond (next_free relies on it).
    for (uint64_t r = 0; r < R; ++r)
        s.row_sets[b.y0 + r].reserve_through((last + b.y0 + r) / 64 + kScanPadWords);
    for (uint64_t x = b.x; x <= last; ++x)
        s.column(x).reserve_through((x + b.y1 - 1) / 64 + kScanPadWords);
    // b.diagonals[i]: diagonal last - y0 - i, so that cell (x', y0 + r) finds its own at
    // b.diagonals[last - x' + r], with no modulo per cell.
    const uint64_t first_slot = s.diag_slot(last, b.y0);
    uint64_t slot = first_slot;
    for (uint64_t i = 0; i < b.n + R - 1; ++i) {
        BitWindow& d = s.diag_sets[slot];
        slot = slot == 0 ? s.diag_count - 1 : slot - 1;
        b.diagonals[i] = &d;
        const uint64_t top_y = std::min(b.y1 - 1, b.y0 + i);  // its highest cell in the batch
        const uint64_t top_x = last + top_y - b.y0 - i;
        d.reserve_through((top_x + top_y) / 64 + kScanPadWords);
    }
    // Three columns at a time, like the table's three rows (tile_sweep_template.hpp).
    constexpr int kColumns = 3;
    bool comparing[kStripBatchColumns];
    for (uint64_t j = 0; j < b.n; ++j) comparing[j] = b.same_row != nullptr;
    if (first_slot >= b.n + R - 2)  // the last diagonal's slot did not wrap around
        sweep_batch<kColumns>(s, b, AdjacentDiagonals{b.diagonals[0]}, comparing);
    else
        sweep_batch<kColumns>(s, b, ListedDiagonals{b.diagonals}, comparing);
}
