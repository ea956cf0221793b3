// The tile sweep with an AVX-512 mex kernel: eight words of each window per step, the three
// windows joined by one ternary-logic instruction. Same isolation as sweep_avx2.cpp.
#include <immintrin.h>

#include "engine/strip_windows.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {

#pragma GCC push_options
#pragma GCC target("avx512f,bmi")
namespace {

inline uint64_t mex_scan_avx512(const BitWindow& a, const BitWindow& b, const BitWindow& c,
                                uint64_t lo) {
    const uint64_t w = lo / 64;
    const uint64_t* pa = a.words + (w - a.base);
    const uint64_t* pb = b.words + (w - b.base);
    const uint64_t* pc = c.words + (w - c.base);
    const uint64_t first = pa[0] | pb[0] | pc[0] | ((uint64_t{1} << (lo % 64)) - 1);
    if (first != ~uint64_t{0}) return w * 64 + static_cast<uint64_t>(__builtin_ctzll(~first));
    const __m512i ones = _mm512_set1_epi64(-1);
    for (uint64_t k = 1;; k += 8) {
        // 0xFE: the truth table of a | b | c.
        const __m512i v =
            _mm512_ternarylogic_epi64(_mm512_loadu_si512(pa + k), _mm512_loadu_si512(pb + k),
                                      _mm512_loadu_si512(pc + k), 0xFE);
        const __mmask8 open = _mm512_cmpneq_epi64_mask(v, ones);
        if (open) {
            const uint64_t j = k + static_cast<uint64_t>(__builtin_ctz(open));
            const uint64_t taken = pa[j] | pb[j] | pc[j];
            return (w + j) * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
        }
    }
}

// For strips: the scan of a cell of row y runs about y / 2 bits on average, and any word from
// the first to the 3y / 64-th may hold the mex, so a scalar first word and a loop exit that moves
// from cell to cell cost a mispredicted branch almost every cell. Eight words at once from the
// first (bits below lo forced to taken) end most scans of strips up to about 1024 rows in the
// first step, with one well-predicted branch.
inline uint64_t mex_scan_avx512_strip(const BitWindow& a, const BitWindow& b, const BitWindow& c,
                                      uint64_t lo) {
    const uint64_t w = lo / 64;
    const uint64_t* pa = a.words + (w - a.base);
    const uint64_t* pb = b.words + (w - b.base);
    const uint64_t* pc = c.words + (w - c.base);
    const __m512i ones = _mm512_set1_epi64(-1);
    const uint64_t low_bits = (uint64_t{1} << (lo % 64)) - 1;
    const __m512i below = _mm512_maskz_set1_epi64(1, static_cast<long long>(low_bits));
    // 0xFE: the truth table of a | b | c.
    __m512i v =
        _mm512_or_si512(_mm512_ternarylogic_epi64(_mm512_loadu_si512(pa), _mm512_loadu_si512(pb),
                                                  _mm512_loadu_si512(pc), 0xFE),
                        below);
    uint64_t k = 0;
    __mmask8 open = _mm512_cmpneq_epi64_mask(v, ones);
    while (!open) {
        k += 8;
        v = _mm512_ternarylogic_epi64(_mm512_loadu_si512(pa + k), _mm512_loadu_si512(pb + k),
                                      _mm512_loadu_si512(pc + k), 0xFE);
        open = _mm512_cmpneq_epi64_mask(v, ones);
    }
    // The first word with a gap, read again (from L1 now).
    const uint64_t j = k + static_cast<uint64_t>(__builtin_ctz(open));
    const uint64_t taken = pa[j] | pb[j] | pc[j] | (j == 0 ? low_bits : 0);
    return (w + j) * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
}

#define MEX_SCAN mex_scan_avx512_strip
#include "engine/strip_sweep.hpp"
#undef MEX_SCAN
#define MEX_SCAN mex_scan_avx512
#include "engine/tile_sweep.hpp"
#undef MEX_SCAN

}  // namespace

int64_t sweep_tile_avx512(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                          uint32_t* out) {
    return sweep_tile_body(s, x0, x1, y0, y1, out);
}

// The strip column sweep (grundy periods) with the same kernel.
void sweep_strip_column_avx512(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) {
    sweep_strip_column_body(s, x, y0, y1, g);
}
#pragma GCC pop_options

}  // namespace grundy::engine
