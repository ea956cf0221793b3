// The tile sweep with an AVX2 mex kernel: four words of each window per step. Only this file's
// functions are compiled for AVX2 (internal linkage, so the linker can never hand them to a
// caller on a CPU without it); kernel_dispatch.cpp calls them only where the CPU has AVX2.
#include <immintrin.h>

#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"
#include "strip/strip_windows.hpp"

namespace grundy::engine {

#pragma GCC push_options
#pragma GCC target("avx2,bmi")
namespace {

inline uint64_t mex_finish_avx2(WindowView a, WindowView b, WindowView c, const MexProbe& p) {
    if (p.first != ~uint64_t{0}) return first_free(p.w, p.first);
    const uint64_t w = p.w;
    const auto [pa, pb, pc] = words_from(a, b, c, w);
    const __m256i ones = _mm256_set1_epi64x(-1);
    for (uint64_t k = 1;; k += 4) {
        const __m256i v = _mm256_or_si256(
            _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pa + k)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb + k))),
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pc + k)));
        const int full = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, ones)));
        if (full != 0xF) {
            const uint64_t j = k + static_cast<uint64_t>(__builtin_ctz(~full & 0xF));
            const uint64_t taken = pa[j] | pb[j] | pc[j];
            return first_free(w + j, taken);
        }
    }
}

#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_avx2
#include "engine/sweep_cell_template.hpp"  // first: the two sweeps below use it

#include "engine/tile_sweep_template.hpp"
#include "strip/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH

}  // namespace

int64_t sweep_tile_avx2(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                        uint32_t* out, bool lower_half) {
    return sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

// The strip column sweep (grundy periods) with the same kernel.
void sweep_strip_column_avx2(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) {
    sweep_strip_column_body(s, x, y0, y1, g);
}
#pragma GCC pop_options

}  // namespace grundy::engine
