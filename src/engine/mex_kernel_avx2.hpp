// The finish of the flat AVX2 mex kernel (mex_kernel.hpp): four words of each window per step.
// Included by the tile sweep (engine/sweep_avx2.cpp) and the strip sweep
// (strip/sweep/strip_sweep_avx2.cpp) inside a region compiled for AVX2 and BMI1 and an anonymous
// namespace, so the function never reaches a caller on a CPU without them. The includer includes
// <immintrin.h> and engine/mex_kernel.hpp first, outside any namespace, and sees grundy::engine's
// names. No include guard: one inclusion per such region.
static inline uint64_t mex_finish_avx2(WindowView a, WindowView b, WindowView c,
                                       const MexProbe& p) {
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
