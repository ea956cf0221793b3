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

// The two-level kernel with a line of each window in two AVX2 registers, as
// mex_kernel_avx512.hpp's, but with the scalar probe alone: the rest of lo's line is taken in the
// finish. Taken in the probe, as the AVX-512 kernel does, it cost 16384^2 5% more CPU here.
static inline __m256i union_avx2(WindowView a, WindowView b, WindowView c, uint64_t w) {
    const auto* pa = reinterpret_cast<const __m256i*>(a.word_ptr(w));
    const auto* pb = reinterpret_cast<const __m256i*>(b.word_ptr(w));
    const auto* pc = reinterpret_cast<const __m256i*>(c.word_ptr(w));
    return _mm256_or_si256(_mm256_or_si256(_mm256_load_si256(pa), _mm256_load_si256(pb)),
                           _mm256_load_si256(pc));
}

static inline unsigned full_words_avx2(__m256i v) {
    const __m256i ones = _mm256_set1_epi64x(-1);
    return static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, ones))));
}

// Bit k: word k of the line is full in none of the three windows' union.
static inline unsigned open_words_avx2(WindowView a, WindowView b, WindowView c, uint64_t line) {
    const uint64_t w = line * kLineWords;
    return ~(full_words_avx2(union_avx2(a, b, c, w)) | full_words_avx2(union_avx2(a, b, c, w + 4))
                                                           << 4) &
           0xFFu;
}

static inline uint64_t mex_in_line_avx2(WindowView a, WindowView b, WindowView c, uint64_t line,
                                        unsigned open_words) {
    const uint64_t w = line * kLineWords + static_cast<uint64_t>(__builtin_ctz(open_words));
    return first_free(w, a.word(w) | b.word(w) | c.word(w));
}

static inline uint64_t mex_finish_lines_avx2(WindowView a, WindowView b, WindowView c,
                                             const MexProbe& p) {
    if (p.first != ~uint64_t{0}) return first_free(p.w, p.first);
    // The rest of word w's line.
    const uint64_t first_line = p.w / kLineWords;
    const unsigned rest =
        open_words_avx2(a, b, c, first_line) & (0xFEu << (p.w % kLineWords)) & 0xFFu;
    if (rest != 0) return mex_in_line_avx2(a, b, c, first_line, rest);
    uint64_t s = p.s;
    uint64_t open = p.open;
    for (;;) {
        while (open != 0) {
            const uint64_t line = s * 64 + static_cast<uint64_t>(__builtin_ctzll(open));
            const unsigned words = open_words_avx2(a, b, c, line);
            if (words != 0) return mex_in_line_avx2(a, b, c, line, words);
            open &= open - 1;
        }
        ++s;
        open = open_lines(a, b, c, s);
    }
}
