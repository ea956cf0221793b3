// The per-row records of a certification (row_records.hpp).
#include "strip/row_records.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "grundy/error.hpp"

namespace grundy::strip {
namespace {
// Rows converted at a time by record_rows (a buffer on the stack).
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

void record_rows(SearchState& p, uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g,
                 RecordErrors& errors) {
    const uint64_t L = p.ring_len, n = y1 - y0, at = y0 - p.first_row;
    uint16_t* slot = p.ring.data() + p.ring_index(x, y0);
    // The slot of a later column is L columns old, out of every cache: fetch it while this
    // column's values are converted and compared.
    const uint16_t* later = p.ring.data() + p.ring_index(x + 4, y0);
    for (uint64_t i = 0; i < n * 2; i += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(later) + i, 1);
    // Branch-free loops the compiler vectorises: the values g - x + 2y, which Landman's bounds
    // put in 0..3y (as unsigned, anything else exceeds 3y), then whether any differs from the
    // value L columns before, and only then which.
    uint16_t u[kRecordChunk];
    for (uint64_t c0 = 0; c0 < n; c0 += kRecordChunk) {
        const uint64_t m = std::min(kRecordChunk, n - c0);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < m; ++i) {
            const uint64_t y = y0 + c0 + i;
            const uint64_t v = g[c0 + i] + 2 * y - x;
            bad |= v > 3 * y;
            u[i] = static_cast<uint16_t>(v);
        }
        if (bad) {
            uint64_t bad_y = y0 + c0;
            for (uint64_t i = 0; i < m; ++i) {
                const uint64_t y = y0 + c0 + i;
                if (g[c0 + i] + 2 * y - x > 3 * y) {
                    bad_y = y;
                    break;
                }
            }
            std::lock_guard<std::mutex> lock(errors.mutex);
            if (!errors.out_of_bounds || x < errors.x) {
                errors.out_of_bounds = true;
                errors.x = x;
                errors.y = bad_y;
            }
        }
        uint16_t* out = slot + c0;
        if (x >= L) {
            uint16_t diff = 0;
            for (uint64_t i = 0; i < m; ++i) diff |= out[i] ^ u[i];
            if (diff)
                for (uint64_t i = 0; i < m; ++i)
                    if (out[i] != u[i]) p.last_mismatch[at + c0 + i] = x - L;
        }
        std::memcpy(out, u, m * sizeof(uint16_t));
    }
}

void check_record(const SearchState& p, RecordErrors& errors) {
    if (errors.out_of_bounds)
        throw Error("internal: g(" + std::to_string(errors.x) + ", " + std::to_string(errors.y) +
                    ") outside Landman's bounds");
    // A mismatch d(x + L) != d(x) past x0 would contradict the certificate (L a multiple of P).
    if (p.found && p.ring_len % p.period == 0)
        for (const uint64_t m : p.last_mismatch)
            if (m != kNone && m > p.x0) throw Error("internal: a row broke the certificate");
}

}  // namespace grundy::strip
