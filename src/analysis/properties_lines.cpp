// The properties pass (properties.cpp) over a band's pieces of columns: the column and the
// diagonal checks, and the symmetry fingerprints of the columns left to symmetry.
#include <algorithm>

#include "analysis/properties_sets.hpp"

namespace grundy::analysis {
namespace {

// print[i] += weight * values[i] for i < n (vectorised).
GRUNDY_SIMD_CLONES void add_weighted(uint64_t* print, const uint32_t* values, uint64_t weight,
                                     uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) print[i] += weight * values[i];
}

}  // namespace

void PropertiesPass::column_prints(const RowBand& b, uint64_t x_begin, uint64_t x_end) {
    // Row by row, so the loop over the columns reads the band contiguously (vectorised).
    uint64_t* print = col_print_.data();
    for (uint64_t y = std::max(b.y0, x_begin + 1); y < std::min(b.y0 + b.height, M_); ++y) {
        const uint32_t* row = b.row(y);
        if (x_begin < std::min(x_end, y))
            add_weighted(print + x_begin, row + x_begin, weight_[y], std::min(x_end, y) - x_begin);
    }
}

void PropertiesPass::columns(const RowBand& b, uint64_t x_begin, uint64_t x_end, Slot& slot) {
    const uint64_t y1 = b.y0 + b.height;
    const bool narrow = cols_ + rows_ < kNarrow;
    // Columns in blocks, each block walked row by row: the band is row-major, and a walk down
    // one column would miss the cache at every cell.
    for (uint64_t xa = x_begin; xa < x_end; xa += kColumnBlock) {
        const uint64_t xb = std::min(x_end, xa + kColumnBlock), n = xb - xa;
        // The block's columns in locals: stores into the bitsets could alias the vectors'
        // elements, and would make the compiler reload them at every cell.
        uint64_t* bits[kColumnBlock];
        uint64_t first[kColumnBlock], print[kColumnBlock];
        uint32_t low[kColumnBlock];  // the least value each set takes in, for the narrow look
        for (uint64_t i = 0; i < n; ++i) {
            bits[i] = col_bits_.get() + col_offset_[xa + i];
            first[i] = col_first_[xa + i];
            print[i] = 0;
            low[i] = narrow ? static_cast<uint32_t>(64 * first[i]) : 0;
        }
        // The next block's bitsets, from the lowest word this band can touch (x - 2y by the
        // bounds) on, are fetched while this block runs: the accesses are random inside
        // them, and each would otherwise wait for memory.
        const char* ahead = nullptr;
        uint64_t ahead_lines = 0;
        if (xb < x_end) {
            const uint64_t xc = std::min(x_end, xb + kColumnBlock);
            const uint64_t low = std::max(col_first_[xb], xb > 2 * y1 ? (xb - 2 * y1) / 64 : 0);
            ahead = reinterpret_cast<const char*>(col_bits_.get() + col_offset_[xb] + low -
                                                  col_first_[xb]);
            const char* end = reinterpret_cast<const char*>(col_bits_.get() + col_offset_[xc]);
            ahead_lines = end > ahead ? static_cast<uint64_t>(end - ahead) / 64 + 1 : 0;
        }
        const uint64_t per_row = ahead_lines / b.height + 1;
        for (uint64_t y = b.y0; y < y1; ++y) {
            const uint32_t* row = b.row(y) + xa;
            const uint64_t weight = y < M_ ? weight_[y] : 0;
            if (y + 8 < y1) __builtin_prefetch(b.row(y + 8) + xa);
            for (uint64_t j = 0; j < per_row && ahead_lines > 0; ++j, --ahead_lines, ahead += 64)
                __builtin_prefetch(ahead, 1);
            if (narrow) {
                // Whether every cell of the row is in the bounds and in its set's window, with
                // no branch per cell (vectorised): then they all enter the fingerprints and the
                // sets, with no check per cell.
                if (outside(row, static_cast<uint32_t>(xa + y), low, static_cast<uint32_t>(n)) == 0)
                    [[likely]] {
                    // Cells above the diagonal (y > x) are the columns left of y.
                    const uint64_t above = y > xa ? std::min(n, y - xa) : 0;
                    for (uint64_t i = 0; i < above; ++i) print[i] += weight * row[i];
                    for (uint64_t i = 0; i < n; ++i)
                        if (seen_before(bits[i], first[i], row[i])) [[unlikely]]
                            if (slot.cols.before(xa + i, y))
                                slot.cols.offer(xa + i, y,
                                                cat("value ", row[i], " twice in column ", xa + i,
                                                    " (again at ", cell(xa + i, y), ")"));
                    continue;
                }
            }
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t x = xa + i, v = row[i];
                if (v > x + y || v / 64 < first[i]) continue;  // out of bounds: reported so
                if (seen_before(bits[i], first[i], v)) [[unlikely]]
                    if (slot.cols.before(x, y))
                        slot.cols.offer(x, y,
                                        cat("value ", v, " twice in column ", x, " (again at ",
                                            cell(x, y), ")"));
                if (y > x) print[i] += weight * v;  // 0 from row M on
            }
        }
        for (uint64_t i = 0; i < n; ++i)
            if (xa + i < M_) col_print_[xa + i] += print[i];
    }
}

void PropertiesPass::diagonals(const RowBand& b, uint64_t x_begin, uint64_t x_end, uint64_t k_begin,
                               uint64_t k_end, Slot& slot) {
    const uint64_t Y = rows_, X = cols_, y1 = b.y0 + b.height;
    const bool narrow = X + Y < kNarrow;
    // Diagonal k holds the cells with x - y = k - (Y - 1). Blocks of diagonals, each walked
    // row by row for the same reason; a diagonal belongs to one block, so no set is shared.
    constexpr uint64_t kDiagonalBlock = 64;
    for (uint64_t ka = k_begin; ka < k_end; ka += kDiagonalBlock) {
        const uint64_t kb = std::min(k_end, ka + kDiagonalBlock);
        // The parts of the next block's bitsets this band can touch (values in
        // [|d| - t, |d| + 2t] for t = min(x, y) in the band), fetched while this block runs:
        // the accesses are random inside them, and each would otherwise wait for memory.
        std::vector<const char*>& ahead = slot.ahead;
        ahead.clear();
        for (uint64_t k = kb; k < std::min(k_end, kb + kDiagonalBlock); ++k) {
            const Diagonal& d = diagonals_[k];
            if (!d.bits) continue;
            const uint64_t a = k > Y - 1 ? k - (Y - 1) : Y - 1 - k;
            const uint64_t t_hi = k > Y - 1 ? y1 : y1 - std::min(y1, a);  // min(x, y) bound
            const uint64_t low = std::max(d.first, a > t_hi ? (a - t_hi) / 64 : 0);
            const uint64_t high = (a + 2 * t_hi) / 64;
            for (uint64_t w = low; w <= high; w += 8)
                ahead.push_back(reinterpret_cast<const char*>(d.bits.get() + (w - d.first)));
        }
        const uint64_t per_row = ahead.size() / b.height + 1;
        // The block's diagonals in locals (opened here if this band is their first): stores
        // into the bitsets could alias the diagonals' fields and force reloads at every cell.
        uint64_t* bits[kDiagonalBlock];
        uint64_t first[kDiagonalBlock];
        uint32_t low[kDiagonalBlock];  // the least value each set holds, for the narrow look
        for (uint64_t k = ka; k < kb; ++k) {
            Diagonal& d = diagonals_[k];
            if (!d.bits) {
                // Its values lie in [a - t_max, a + 2 t_max] (a = |x - y|, t_max = its last
                // min(x, y)).
                const uint64_t a = k > Y - 1 ? k - (Y - 1) : Y - 1 - k;
                const uint64_t t_max =
                    k >= Y - 1 ? std::min(Y - 1, X - 1 - a) : std::min(X - 1, Y - 1 - a);
                d.first = (a > t_max ? a - t_max : 0) / 64;
                const uint64_t words = (a + 2 * t_max) / 64 + 1 - d.first;
                d.bits = std::make_unique<uint64_t[]>(words);  // zeroed
            }
            bits[k - ka] = d.bits.get();
            first[k - ka] = d.first;
            low[k - ka] = narrow ? static_cast<uint32_t>(64 * d.first) : 0;
        }
        size_t next = 0;
        for (uint64_t y = b.y0; y < y1; ++y) {
            // x = k - (Y - 1) + y for k in [ka, kb), clipped to the table and the piece.
            const uint64_t lo = std::max(x_begin, std::max(ka + y, Y - 1) - (Y - 1));
            const uint64_t hi =
                std::min(x_end, std::max(std::min(kb + y, X + Y - 1), Y - 1) - (Y - 1));
            const uint32_t* row = b.row(y);
            // Every cache line of the segment 8 rows up (it starts 8 values further right):
            // the block reads four or five lines of each row, and the band is far out of cache.
            if (y + 8 < y1)
                for (uint64_t x = lo; x < hi + 8; x += 16) __builtin_prefetch(b.row(y + 8) + x);
            for (uint64_t j = 0; j < per_row && next < ahead.size(); ++j)
                __builtin_prefetch(ahead[next++], 1);
            if (narrow && lo < hi) {
                // Whether every cell of the segment is in its bounds and in its set's window,
                // with no branch per cell (vectorised): then each enters its set unchecked.
                const uint64_t i0 = lo + Y - 1 - y - ka;  // cell x belongs to diagonal i0 + x - lo
                const uint32_t* r = row + lo;
                const uint32_t count = static_cast<uint32_t>(hi - lo);
                if (outside(r, static_cast<uint32_t>(lo + y), low + i0, count) == 0) [[likely]] {
                    for (uint32_t j = 0; j < count; ++j)
                        if (seen_before(bits[i0 + j], first[i0 + j], r[j])) [[unlikely]]
                            if (slot.diags.before(lo + j, y))
                                slot.diags.offer(
                                    lo + j, y,
                                    cat("value ", r[j], " twice on diagonal x - y = ",
                                        static_cast<int64_t>(lo + j) - static_cast<int64_t>(y),
                                        " (again at ", cell(lo + j, y), ")"));
                    continue;
                }
            }
            for (uint64_t x = lo; x < hi; ++x) {
                const uint64_t v = row[x];
                if (v > x + y) continue;
                const uint64_t i = x + Y - 1 - y - ka;
                bool repeat;
                if (v / 64 >= first[i]) [[likely]] {
                    repeat = seen_before(bits[i], first[i], v);
                } else {
                    std::vector<uint64_t>& low = diagonals_[ka + i].low;
                    repeat = std::find(low.begin(), low.end(), v) != low.end();
                    if (!repeat) low.push_back(v);
                }
                if (repeat && slot.diags.before(x, y)) [[unlikely]]
                    slot.diags.offer(x, y,
                                     cat("value ", v, " twice on diagonal x - y = ",
                                         static_cast<int64_t>(x) - static_cast<int64_t>(y),
                                         " (again at ", cell(x, y), ")"));
            }
        }
    }
}

void PropertiesPass::piece(const RowBand& b, const BandPiece& piece, int thread) {
    Slot& slot = slots_[static_cast<size_t>(thread)];
    const uint64_t Y = rows_, y0 = b.y0, y1 = b.y0 + b.height;
    const uint64_t xa = piece.x0, xb = piece.x1;
    // A column lies in one piece: nothing to wait for. Left to symmetry, columns x < Y keep
    // their fingerprints only.
    const uint64_t x_sets = by_symmetry_ ? std::clamp(Y, xa, xb) : xa;
    column_prints(b, xa, x_sets);
    columns(b, x_sets, xb, slot);
    // Diagonal k (x - y = k - (Y - 1)) meets columns [xa, xb) in this band for k in
    // [xa + Y - y1, xb + Y - 1 - y0). Those whose first cell in the band lies in this piece
    // (k >= xa + Y - 1 - y0) are this piece's alone so far; the others have cells in pieces to
    // the left, which must take in theirs first: each set takes in its cells bottom up, so that
    // a repeat is named at its second cell.
    // Left to symmetry, the diagonals x < y (k < Y - 1) are not checked.
    const uint64_t k_min = by_symmetry_ ? Y - 1 : 0;
    const uint64_t k_lo = std::max(k_min, xa + Y - y1), k_hi = std::max(k_lo, xb + Y - 1 - y0);
    const uint64_t k_mid = std::clamp(xa + Y - 1 - y0, k_lo, k_hi);
    diagonals(b, xa, xb, k_mid, k_hi, slot);
    piece.wait_left();
    diagonals(b, xa, xb, k_lo, k_mid, slot);
}

}  // namespace grundy::analysis
