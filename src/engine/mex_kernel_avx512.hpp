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

// The two-level kernel with a line of each window in one AVX-512 register (mex_kernel.hpp's
// mex_probe_summary and mex_finish_summary read a word at a time). Windows hold whole lines from
// a line on (bit_window.hpp), so the loads are aligned. The probe is the scalar one (the word of
// lo, and the summary word of the next line) plus the union of lo's whole line: the mask of its
// words after lo's that are not full (`rest`). Where lo's word holds the mex (18% of the cells of
// a 16384^2 table, 12% at 2048 rows) the finish is then a bit scan, as in the scalar kernel: a
// probe of the line alone, the word read again in the finish, cost a strip of 2048 rows 13% more
// CPU than the word summaries did; this one 4-6% (docs/benchmarks.md, narrow tables and strips).
// The finish takes a candidate line's word from the register (vpcompressq): 4% less CPU at 16384^2
// than reading it again.
static inline __m512i line_union_avx512(WindowView a, WindowView b, WindowView c, uint64_t line) {
    const uint64_t w = line * kLineWords;
    // 0xFE: the truth table of a | b | c.
    return _mm512_ternarylogic_epi64(_mm512_load_si512(a.word_ptr(w)),
                                     _mm512_load_si512(b.word_ptr(w)),
                                     _mm512_load_si512(c.word_ptr(w)), 0xFE);
}

static inline MexProbe mex_probe_lines_avx512(WindowView a, WindowView b, WindowView c,
                                              uint64_t lo) {
    MexProbe p = mex_probe_summary(a, b, c, lo);
    const __m512i ones = _mm512_set1_epi64(-1);
    const auto after = static_cast<__mmask8>(0xFEu << (p.w % kLineWords));
    p.rest =
        _mm512_mask_cmpneq_epi64_mask(after, line_union_avx512(a, b, c, p.w / kLineWords), ones);
    return p;
}

static inline uint64_t mex_finish_lines_avx512(WindowView a, WindowView b, WindowView c,
                                               const MexProbe& p) {
    if (p.first != ~uint64_t{0}) return first_free(p.w, p.first);
    if (p.rest != 0) {
        const uint64_t w =
            p.w / kLineWords * kLineWords + static_cast<uint64_t>(__builtin_ctzll(p.rest));
        return first_free(w, a.word(w) | b.word(w) | c.word(w));
    }
    const __m512i ones = _mm512_set1_epi64(-1);
    uint64_t s = p.s;
    uint64_t open = p.open;
    for (;;) {
        while (open != 0) {
            const uint64_t line = s * 64 + static_cast<uint64_t>(__builtin_ctzll(open));
            const __m512i v = line_union_avx512(a, b, c, line);
            const __mmask8 m = _mm512_cmpneq_epi64_mask(v, ones);
            if (m != 0) {
                // The first word not full, moved to lane 0 (ones elsewhere: no lane undefined).
                // Read as a vector element: _mm512_castsi512_si128 warns of an undefined lane
                // in GCC 12.
                const __m512i first = _mm512_mask_compress_epi64(ones, m, v);
                return first_free(line * kLineWords + static_cast<uint64_t>(__builtin_ctz(m)),
                                  static_cast<uint64_t>(first[0]));
            }
            open &= open - 1;
        }
        ++s;
        open = open_lines(a, b, c, s);
    }
}
