// The finish of the flat AVX-512 mex kernel (mex_kernel.hpp): eight words of each window per
// step, the three windows joined by one ternary-logic instruction. Included like
// mex_kernel_avx2.hpp, inside a region compiled for AVX-512F and BMI1. The includer includes
// <immintrin.h> and engine/mex_kernel.hpp first, outside any namespace, and sees grundy::engine's
// names. No include guard.
static inline uint64_t mex_finish_avx512(WindowView a, WindowView b, WindowView c,
                                         const MexProbe& p) {
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
