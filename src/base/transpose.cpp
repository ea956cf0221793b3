#include "base/transpose.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <vector>

namespace grundy::base {

// In strips of 16 columns, each down the whole height in 4 x 4 squares transposed in SSE2
// registers: the 16 rows of the mirror a strip becomes are each written front to back, and the
// 4 rows it reads at a time are 4 cache lines. Wider strips lose: with the 2 KiB rows of a 512
// tile, every row of the mirror falls in the same two L1 sets, and 32 of them no longer fit
// there. Per 512 tile (one thread, in cache): 43 us in strips of 16, 58 us in strips of 8,
// 163 us in strips of 32, 169 us in the 16 x 16 blocks of before.
void transpose_columns(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                       uint64_t x_end, uint32_t* out) {
    uint32_t* const mirror = out - x_begin * h;  // row x of the mirror at mirror + x * h
    for (uint64_t xs = x_begin; xs < x_end; xs += kTransposeStrip) {
        const uint64_t xe = std::min(x_end, xs + kTransposeStrip);
        uint64_t y = 0;
#ifdef __SSE2__
        for (; y + 4 <= h; y += 4) {
            uint64_t x = xs;
            for (; x + 4 <= xe; x += 4) {
                auto row = [&](uint64_t r) {
                    return _mm_loadu_si128(
                        reinterpret_cast<const __m128i*>(values + (y + r) * w + x));
                };
                const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
                const __m128i a = _mm_unpacklo_epi32(r0, r1), b = _mm_unpacklo_epi32(r2, r3);
                const __m128i c = _mm_unpackhi_epi32(r0, r1), d = _mm_unpackhi_epi32(r2, r3);
                auto column = [&](uint64_t k, __m128i v) {
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(mirror + (x + k) * h + y), v);
                };
                column(0, _mm_unpacklo_epi64(a, b));
                column(1, _mm_unpackhi_epi64(a, b));
                column(2, _mm_unpacklo_epi64(c, d));
                column(3, _mm_unpackhi_epi64(c, d));
            }
            for (; x < xe; ++x)
                for (uint64_t k = 0; k < 4; ++k) mirror[x * h + y + k] = values[(y + k) * w + x];
        }
#endif
        for (; y < h; ++y)
            for (uint64_t x = xs; x < xe; ++x) mirror[x * h + y] = values[y * w + x];
    }
}

const uint32_t* transposed(const uint32_t* values, uint64_t w, uint64_t h) {
    thread_local std::vector<uint32_t> mirror;
    mirror.resize(w * h);
    transpose_tile(values, w, h, mirror.data());
    return mirror.data();
}

}  // namespace grundy::base
