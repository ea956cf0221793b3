// The tile sweep with an AVX-512 mex kernel: eight words of each window per step, the three
// windows joined by one ternary-logic instruction. Same isolation as sweep_avx2.cpp.
#include <immintrin.h>

#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"
#include "strip/strip_windows.hpp"

namespace grundy::engine {

#pragma GCC push_options
#pragma GCC target("avx512f,bmi")
namespace {

inline uint64_t mex_finish_avx512(WindowView a, WindowView b, WindowView c, const MexProbe& p) {
    if (p.first != ~uint64_t{0}) return first_free(p.w, p.first);
    const uint64_t w = p.w;
    const auto [pa, pb, pc] = words_from(a, b, c, w);
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
            return first_free(w + j, taken);
        }
    }
}

#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_avx512
#include "engine/sweep_cell_template.hpp"  // first: the two sweeps below use it

#include "engine/tile_sweep_template.hpp"
#include "strip/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH

}  // namespace

int64_t sweep_tile_avx512(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                          uint32_t* out, bool lower_half) {
    return sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

// The strip column sweep (grundy periods) with the same kernel.
void sweep_strip_column_avx512(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) {
    sweep_strip_column_body(s, x, y0, y1, g);
}
#pragma GCC pop_options

}  // namespace grundy::engine
