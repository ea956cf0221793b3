#include "base/byte_planes.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "base/simd_clones.hpp"
#include "base/transpose.hpp"

namespace grundy::base {

// Per row, through GRUNDY_SIMD_CLONES: built for any x86-64 this loop took 3.9 instructions per
// value (callgrind, 8192^2 with output), with AVX2 well under one.
GRUNDY_SIMD_CLONES void split_row_2(const uint32_t* __restrict src, uint64_t n,
                                    uint8_t* __restrict b0, uint8_t* __restrict b1) {
    for (uint64_t i = 0; i < n; ++i) {
        b0[i] = static_cast<uint8_t>(src[i]);
        b1[i] = static_cast<uint8_t>(src[i] >> 8);
    }
}

namespace {

// Columns [x0, x1) of rows [y0, y1) one value at a time (the edges the strips leave).
void planes_of_cells(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin, uint64_t x0,
                     uint64_t x1, uint64_t y0, uint64_t y1, uint8_t* low, uint8_t* high) {
    for (uint64_t x = x0; x < x1; ++x)
        for (uint64_t y = y0; y < y1; ++y) {
            const uint32_t v = values[y * w + x];
            low[(x - x_begin) * h + y] = static_cast<uint8_t>(v);
            high[(x - x_begin) * h + y] = static_cast<uint8_t>(v >> 8);
        }
}

void portable_planes(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                     uint64_t x_end, uint8_t* low, uint8_t* high) {
    thread_local std::vector<uint32_t> rows;
    for (uint64_t xs = x_begin; xs < x_end; xs += kTransposeStrip) {
        const uint64_t xe = std::min(x_end, xs + kTransposeStrip);
        rows.resize((xe - xs) * h);
        transpose_columns(values, w, h, xs, xe, rows.data());
        const uint64_t at = (xs - x_begin) * h;
        split_row_2(rows.data(), (xe - xs) * h, low + at, high + at);
    }
}

#ifdef GRUNDY_AVX512_CODE
// The strips of 16 columns of [x_begin, x_end), each in blocks of `block_rows` rows made by
// `block` (its planes' rows start at low and high); the rows and columns the blocks leave one
// value at a time.
using PlanesBlock = void (*)(const uint32_t* values, uint64_t w, uint64_t h, uint64_t xs,
                             uint64_t y0, uint8_t* low, uint8_t* high);
void planes_by_blocks(PlanesBlock block, uint64_t block_rows, const uint32_t* values, uint64_t w,
                      uint64_t h, uint64_t x_begin, uint64_t x_end, uint8_t* low, uint8_t* high) {
    const uint64_t whole_h = h / block_rows * block_rows;
    uint64_t xs = x_begin;
    for (; xs + 16 <= x_end; xs += 16) {
        const uint64_t at = (xs - x_begin) * h;
        for (uint64_t y0 = 0; y0 < whole_h; y0 += block_rows)
            block(values, w, h, xs, y0, low + at, high + at);
        planes_of_cells(values, w, h, x_begin, xs, xs + 16, whole_h, h, low, high);
    }
    planes_of_cells(values, w, h, x_begin, xs, x_end, 0, h, low, high);
}

#define GRUNDY_AVX2_TARGET __attribute__((target("avx2")))

// Rows 0..3 (r[0..3], eight columns each) into, for each column, a word of the four rows' low
// bytes and one of their bytes 1: the rows' two low bytes paired in 16-bit halves, each pair's
// bytes put in plane order, then the halves of the two pairs joined.
GRUNDY_AVX2_TARGET inline void words_of_four_rows(const __m256i* r, __m256i& lo, __m256i& hi) {
    const __m256i order = _mm256_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15, 0,
                                           2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
    // [a0 a1 b0 b1] of rows a, b; [c0 c1 d0 d1] of rows c, d; then [a0 b0 a1 b1], [c0 d0 c1 d1].
    const __m256i p =
        _mm256_shuffle_epi8(_mm256_blend_epi16(r[0], _mm256_slli_epi32(r[1], 16), 0xAA), order);
    const __m256i q =
        _mm256_shuffle_epi8(_mm256_blend_epi16(r[2], _mm256_slli_epi32(r[3], 16), 0xAA), order);
    lo = _mm256_blend_epi16(p, _mm256_slli_epi32(q, 16), 0xAA);  // [a0 b0 c0 d0]
    hi = _mm256_blend_epi16(_mm256_srli_epi32(p, 16), q, 0xAA);  // [a1 b1 c1 d1]
}

// Four groups' words (g[k]: word c = column c's bytes of rows 4k..4k+3) as each column's 16
// bytes, stored at out + c * h for the eight columns.
GRUNDY_AVX2_TARGET inline void store_columns(const __m256i* g, uint64_t h, uint8_t* out) {
    const __m256i t0 = _mm256_unpacklo_epi32(g[0], g[1]), t1 = _mm256_unpackhi_epi32(g[0], g[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(g[2], g[3]), t3 = _mm256_unpackhi_epi32(g[2], g[3]);
    // Column k in the low 128-bit lane of u[k], column k + 4 in the high one.
    const __m256i u[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2),
                          _mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3)};
    for (int k = 0; k < 4; ++k) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * h), _mm256_castsi256_si128(u[k]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (k + 4) * h),
                         _mm256_extracti128_si256(u[k], 1));
    }
}

// Columns xs..xs+15, rows y0..y0+15: each row read as one cache line, both halves of it at
// once (a 512 tile's rows, 2 KiB apart, share two sets of the first-level cache, which would
// not keep them for a second pass); four rows at a time become words (words_of_four_rows), the
// four groups' words the columns' 16 bytes of each plane.
GRUNDY_AVX2_TARGET void planes_of_block_avx2(const uint32_t* values, uint64_t w, uint64_t h,
                                             uint64_t xs, uint64_t y0, uint8_t* low,
                                             uint8_t* high) {
    __m256i lo[2][4], hi[2][4];  // [half of the columns][group of four rows]
    for (int g = 0; g < 4; ++g) {
        __m256i r[2][4];
        for (int k = 0; k < 4; ++k) {
            const uint32_t* row = values + (y0 + 4 * g + k) * w + xs;
            r[0][k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
            r[1][k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 8));
        }
        for (int half = 0; half < 2; ++half) words_of_four_rows(r[half], lo[half][g], hi[half][g]);
    }
    for (int half = 0; half < 2; ++half) {
        store_columns(lo[half], h, low + 8 * half * h + y0);
        store_columns(hi[half], h, high + 8 * half * h + y0);
    }
}
#endif

#ifdef GRUNDY_AVX512_CODE
GRUNDY_AVX512_INTRINSICS_BEGIN
#define GRUNDY_VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Two rows a, b into [a.0, b.0, a.1, b.1] for each column c (its four-byte word c; .k: byte k of
// the value).
alignas(64) constexpr std::array<uint8_t, 64> kInterleave = [] {
    std::array<uint8_t, 64> a{};
    for (int c = 0; c < 16; ++c) {
        a[4 * c + 0] = static_cast<uint8_t>(4 * c);
        a[4 * c + 1] = static_cast<uint8_t>(64 + 4 * c);
        a[4 * c + 2] = static_cast<uint8_t>(4 * c + 1);
        a[4 * c + 3] = static_cast<uint8_t>(64 + 4 * c + 1);
    }
    return a;
}();

// Two such words p (rows 0, 1) and q (rows 2, 3) into [r0.0, r1.0, r2.0, r3.0] for each column,
// and into the same of bytes 1.
alignas(64) constexpr std::array<uint8_t, 64> kLowBytes = [] {
    std::array<uint8_t, 64> a{};
    for (int c = 0; c < 16; ++c) {
        a[4 * c + 0] = static_cast<uint8_t>(4 * c);
        a[4 * c + 1] = static_cast<uint8_t>(4 * c + 1);
        a[4 * c + 2] = static_cast<uint8_t>(64 + 4 * c);
        a[4 * c + 3] = static_cast<uint8_t>(64 + 4 * c + 1);
    }
    return a;
}();
alignas(64) constexpr std::array<uint8_t, 64> kHighBytes = [] {
    std::array<uint8_t, 64> a = kLowBytes;
    for (auto& i : a) i = static_cast<uint8_t>(i + 2);
    return a;
}();

// Sixteen vectors of sixteen four-byte words transposed in place: word c of r[g] becomes word g
// of r[c]. Words, then pairs of words, within 128-bit lanes; then the lanes.
GRUNDY_VBMI_TARGET inline void transpose_16x16(__m512i* r) {
    __m512i a[16], b[16];
    for (int i = 0; i < 8; ++i) {
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    // b[4i + k], lane L: word 4L + k of rows 4i..4i+3.
    for (int i = 0; i < 4; ++i) {
        b[4 * i + 0] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
        b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
        b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
    }
    for (int k = 0; k < 4; ++k) {
        const __m512i c0 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0x44);  // lanes 0, 1 of each
        const __m512i c1 = _mm512_shuffle_i32x4(b[k], b[4 + k], 0xEE);  // lanes 2, 3
        const __m512i d0 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0x44);
        const __m512i d1 = _mm512_shuffle_i32x4(b[8 + k], b[12 + k], 0xEE);
        r[k] = _mm512_shuffle_i32x4(c0, d0, 0x88);
        r[4 + k] = _mm512_shuffle_i32x4(c0, d0, 0xDD);
        r[8 + k] = _mm512_shuffle_i32x4(c1, d1, 0x88);
        r[12 + k] = _mm512_shuffle_i32x4(c1, d1, 0xDD);
    }
}

// Columns xs..xs+15, rows y0..y0+63: each group of four rows becomes, for every column, a word
// of its four low bytes (and one of its bytes 1); the sixteen groups' words transposed are the
// columns' 64 bytes of each plane.
GRUNDY_VBMI_TARGET void planes_of_block(const uint32_t* values, uint64_t w, uint64_t h, uint64_t xs,
                                        uint64_t y0, uint8_t* low, uint8_t* high) {
    const __m512i interleave = _mm512_load_si512(kInterleave.data());
    const __m512i low_bytes = _mm512_load_si512(kLowBytes.data());
    const __m512i high_bytes = _mm512_load_si512(kHighBytes.data());
    __m512i lo[16], hi[16];
    for (int g = 0; g < 16; ++g) {
        const uint32_t* row = values + (y0 + 4 * g) * w + xs;
        const __m512i r0 = _mm512_loadu_si512(row), r1 = _mm512_loadu_si512(row + w);
        const __m512i r2 = _mm512_loadu_si512(row + 2 * w), r3 = _mm512_loadu_si512(row + 3 * w);
        const __m512i p = _mm512_permutex2var_epi8(r0, interleave, r1);
        const __m512i q = _mm512_permutex2var_epi8(r2, interleave, r3);
        lo[g] = _mm512_permutex2var_epi8(p, low_bytes, q);
        hi[g] = _mm512_permutex2var_epi8(p, high_bytes, q);
    }
    transpose_16x16(lo);
    transpose_16x16(hi);
    for (int c = 0; c < 16; ++c) {
        _mm512_storeu_si512(low + c * h + y0, lo[c]);
        _mm512_storeu_si512(high + c * h + y0, hi[c]);
    }
}

GRUNDY_AVX512_INTRINSICS_END
#endif

}  // namespace

bool planes_transpose_has_vbmi() {
    return cpu_has_avx512vbmi();
}

bool planes_transpose_has_avx2() {
    return cpu_has_avx2();
}

void transpose_columns_to_planes(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                                 uint64_t x_end, uint8_t* low, uint8_t* high, PlanesCode code) {
#ifdef GRUNDY_AVX512_CODE
    if (code == PlanesCode::best && planes_transpose_has_vbmi())
        return planes_by_blocks(planes_of_block, 64, values, w, h, x_begin, x_end, low, high);
    if (code != PlanesCode::portable && planes_transpose_has_avx2())
        return planes_by_blocks(planes_of_block_avx2, 16, values, w, h, x_begin, x_end, low, high);
#else
    (void)code;
#endif
    portable_planes(values, w, h, x_begin, x_end, low, high);
}

}  // namespace grundy::base
