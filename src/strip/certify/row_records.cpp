// The per-row records of a certification (row_records.hpp).
#include "strip/certify/row_records.hpp"

#include <algorithm>
#include <string>

#include "base/simd_clones.hpp"
#include "grundy/error.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {
namespace {
// Rows converted at a time by record_rows, each piece after asking for the lines of its rows a
// batch ahead (8 lines: about what a core has in flight at once).
constexpr uint64_t kRecordChunk = 256;
}  // namespace

uint64_t minimal_period(std::span<const uint16_t> block) {
    const uint64_t P = block.size();
    for (uint64_t q = 1; q < P; ++q) {
        if (P % q) continue;
        bool ok = true;
        for (uint64_t i = 0; i + q < P && ok; ++i) ok = block[i] == block[i + q];
        if (ok) return q;
    }
    return P;
}

// Ring length for phase 1: periods observed so far are all 3 * 2^k and the strip's P has been
// about 1.5 Y^2, so a ring of 3 * 2^k >= P columns, started at column 0, usually makes phase 2
// unnecessary (any multiple L of P gives the same preperiods: pre(L) = pre(P)). Bounded by
// 4 Y^2 (the extra columns after the certificate are L - P) and by the memory budget.
uint64_t speculative_ring(uint64_t rows, uint64_t budget_bytes) {
    const uint64_t cap = std::max<uint64_t>(4 * rows * rows, 48);
    uint64_t L = 0;
    for (uint64_t c = 3; c <= cap && c * rows * 2 <= budget_bytes; c *= 2) L = c;
    return L;
}

namespace {

// Values g - x + 2y of rows y0.. of column x written to `out` (the ring); with Compare, each
// row whose value differs from the one there before (a ring length back) gets `mark` in `last`.
// True if any value lies outside 0..3y (Landman's bounds). Written so that the baseline build
// vectorises it: the row's offsets are running sums rather than products (no 64-bit multiply in
// SSE2), the bound test is a subtraction whose top bit says "outside" (3y - v < 0 for v above
// 3y, v itself for v below 0), where a 64-bit comparison would not vectorise, and `last` is
// written whether or not the value changed (a select, not a branch): its rows' 8 bytes each stay
// in the first-level cache, while the ring's slot comes from memory.
template <bool Compare>
[[gnu::always_inline]] inline bool convert_rows(const uint64_t* g, uint64_t x, uint64_t y0,
                                                uint64_t m, uint16_t* out, uint64_t* last,
                                                uint64_t mark) {
    uint64_t offset = 2 * y0 - x, limit = 3 * y0, outside = 0;
    for (uint64_t i = 0; i < m; ++i) {
        const uint64_t v = g[i] + offset;
        outside |= (limit - v) | v;
        const auto value = static_cast<uint16_t>(v);
        if constexpr (Compare) last[i] = out[i] == value ? last[i] : mark;
        out[i] = value;
        offset += 2;
        limit += 3;
    }
    return outside >> 63;
}

// The loop built for any x86-64, for AVX2 and for AVX-512 (base/simd_clones.hpp), taken as the
// CPU allows: AVX2 converts four values a step instead of two, which halved the records'
// instructions (7.3 -> 3.4 per cell at 2048 rows, callgrind). convert_rows is always_inline so
// that each build has its own copy.
GRUNDY_SIMD_CLONES bool convert_rows_built(bool compare, const uint64_t* g, uint64_t x, uint64_t y0,
                                           uint64_t m, uint16_t* out, uint64_t* last,
                                           uint64_t mark) {
    return compare ? convert_rows<true>(g, x, y0, m, out, last, mark)
                   : convert_rows<false>(g, x, y0, m, out, last, mark);
}

// The first row of y0.. whose value in g lies outside Landman's bounds (convert_rows found one).
uint64_t first_outside(const uint64_t* g, uint64_t x, uint64_t y0, uint64_t m) {
    for (uint64_t i = 0; i < m; ++i) {
        const uint64_t y = y0 + i;
        if (g[i] + 2 * y - x > 3 * y) return y;
    }
    return y0;
}

}  // namespace

void record_rows(SearchState& p, uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g,
                 RecordErrors& errors) {
    const uint64_t L = p.ring_len, n = y1 - y0, at = y0 - p.first_row;
    uint16_t* slot = p.ring.data() + p.ring_index(x, y0);
    // A band records a batch of columns at a time, after sweeping them: the slot of the column
    // a batch ahead is asked for (a slot a few columns ahead is read a few records later, too
    // soon), a piece before each piece of this one is converted. Asked for all at once, the
    // requests filled the core's queue of misses and the loop waited on them (40% of the
    // records' time at 6144 rows).
    const uint16_t* ahead = p.ring.data() + p.ring_index(x + kStripBatchColumns, y0);
    for (uint64_t c0 = 0; c0 < n; c0 += kRecordChunk) {
        const uint64_t m = std::min(kRecordChunk, n - c0);
        prefetch_ring_values(ahead + c0, m, true);
        const bool outside = convert_rows_built(x >= p.ring_from + L, g + c0, x, y0 + c0, m,
                                                slot + c0, p.last_mismatch.data() + at + c0, x - L);
        if (outside) {
            const uint64_t bad_y = first_outside(g + c0, x, y0 + c0, m);
            std::lock_guard<std::mutex> lock(errors.mutex);
            if (!errors.out_of_bounds || x < errors.x) {
                errors.out_of_bounds = true;
                errors.x = x;
                errors.y = bad_y;
            }
        }
    }
}

void record_reported(SearchState& p, uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g,
                     RecordErrors& errors, bool into_low_ring) {
    const uint64_t from = std::clamp(p.rows_in_ring(), y0, y1);
    if (into_low_ring && from > y0) {
        uint16_t* slot = p.low_ring.data() + (x % p.low_len) * p.unringed_rows;
        for (uint64_t y = y0; y < from; ++y)
            slot[y] = static_cast<uint16_t>(g[y - y0] + 2 * y - x);  // within 0..3y: they settled
    }
    if (from < y1) record_rows(p, x, from, y1, g + (from - y0), errors);
}

void check_record(const SearchState& p, RecordErrors& errors) {
    if (errors.out_of_bounds)
        throw Error("internal: g(" + std::to_string(errors.x) + ", " + std::to_string(errors.y) +
                    ") outside Landman's bounds");
    // A mismatch d(x + L) != d(x) past x0 would contradict the certificate (L a multiple of P).
    if (p.found && p.ring_len % p.period == 0)
        for (const uint64_t m : p.last_mismatch)
            if (m != kNone && m != kUnseen && m > p.x0)
                throw Error("internal: a row broke the certificate");
}

}  // namespace grundy::strip
