#include "io/fletcher32.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/simd_clones.hpp"

namespace grundy::io {
namespace {

constexpr uint64_t kMod = 65535;
// The words are summed in kLanes lanes at once, block after block of kLanes words, and the
// lanes reduced modulo 65535 after every kRun blocks. From lanes below 65535, kRun blocks leave
// a word sum below 65535 (kRun + 1) and a sum of sums below 65535 (1 + kRun (kRun + 1) / 2),
// 2.16e9 for 256: 32-bit lanes do not overflow.
constexpr unsigned kLanes = 8;
constexpr size_t kRun = 256;

// The lanes as vectors (GCC's and clang's vector extensions), not arrays: GCC 12 vectorises a
// loop over arrays of lanes at -O2, but at -O3 unrolls it into scalar code 8 times slower. Eight
// lanes of 32 bits fill one AVX2 register; sixteen, which no register holds but AVX-512's, were
// spilled to the stack every block (2.2 GB/s against 13 GB/s on one core of the machine of
// docs/benchmarks.md).
typedef uint32_t Lanes32 __attribute__((vector_size(4 * kLanes)));
typedef uint16_t Lanes16 __attribute__((vector_size(2 * kLanes)));

// Adds `blocks` blocks of kLanes big-endian words to the lanes: a[l] the words of lane l, b[l]
// the value a[l] had before each block.
GRUNDY_SIMD_CLONES void sum_blocks(const uint8_t* p, size_t blocks, uint32_t* a, uint32_t* b) {
    Lanes32 sa, sb;
    std::memcpy(&sa, a, sizeof sa);
    std::memcpy(&sb, b, sizeof sb);
    for (size_t q = 0; q < blocks; ++q, p += 2 * kLanes) {
        Lanes16 w;
        std::memcpy(&w, p, sizeof w);
        w = w << 8 | w >> 8;  // big-endian words
        sb += sa;
        sa += __builtin_convertvector(w, Lanes32);
    }
    std::memcpy(a, &sa, sizeof sa);
    std::memcpy(b, &sb, sizeof sb);
}

// The sums of N more words appended to sums (s1, s2) of the words before them: sum1 grows by
// the words' sum a, sum2 by N s1 and their own sum of running sums b. Modulo kMod, from any
// signed a and b.
void append_sums(uint64_t& s1, uint64_t& s2, int64_t a, int64_t b, uint64_t words) {
    constexpr auto m = static_cast<int64_t>(kMod);
    auto mod = [](int64_t v) { return static_cast<uint64_t>((v % m + m) % m); };
    s2 = (s2 + (words % kMod) * s1 + mod(b)) % kMod;
    s1 = (s1 + mod(a)) % kMod;
}

#ifdef GRUNDY_AVX512_CODE
// 64 bytes a step where the CPU has AVX-512 BW: the 32 big-endian words of a step less 32768
// (signed, so that vpmaddwd, which multiplies signed words, takes them), summed in pairs into 16
// lanes, plain (sa) and weighted by 32 - j for word j of the step (tt), and sb adding up sa
// before each step, as the lanes above do. Runs of kWideRun steps keep every lane in 32 bits:
// sb, the largest, below 128^2 / 2 * 65536 = 2^29. A step of the loop above takes six
// operations for 16 bytes, this one eight for 64.
constexpr size_t kWideRun = 128;

GRUNDY_AVX512_INTRINSICS_BEGIN

__attribute__((target("avx512f,avx512bw"))) int64_t lane_sum(__m512i v) {
    return _mm512_reduce_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v))) +
           _mm512_reduce_add_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1)));
}

__attribute__((target("avx512f,avx512bw"))) void sum_steps_avx512(const uint8_t* p, size_t steps,
                                                                  uint64_t& s1, uint64_t& s2) {
    alignas(64) static constexpr std::array<uint8_t, 64> kSwap = [] {
        std::array<uint8_t, 64> a{};
        for (int k = 0; k < 64; ++k) a[k] = static_cast<uint8_t>(k ^ 1);
        return a;
    }();
    alignas(64) static constexpr std::array<int16_t, 32> kWeights = [] {
        std::array<int16_t, 32> a{};
        for (int j = 0; j < 32; ++j) a[j] = static_cast<int16_t>(32 - j);
        return a;
    }();
    const __m512i swap = _mm512_load_si512(kSwap.data());
    const __m512i weights = _mm512_load_si512(kWeights.data());
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    for (size_t done = 0; done < steps;) {
        const size_t run = std::min(kWideRun, steps - done);
        __m512i sa = _mm512_setzero_si512(), sb = sa, tt = sa;
        for (size_t q = 0; q < run; ++q, p += 64) {
            const __m512i w = _mm512_xor_si512(_mm512_shuffle_epi8(_mm512_loadu_si512(p), swap),
                                               bias);  // w - 32768
            sb = _mm512_add_epi32(sb, sa);
            sa = _mm512_add_epi32(sa, _mm512_madd_epi16(w, ones));
            tt = _mm512_add_epi32(tt, _mm512_madd_epi16(w, weights));
        }
        // Over the run's n steps, N = 32 n words: the sum of the words, and the sum of each word
        // times its distance from the end, 32 (n - 1 - q) + 32 - j for word j of step q; the
        // 32768 taken from every word added back (528 = 32 + 31 + ... + 1).
        const auto n = static_cast<int64_t>(run);
        const int64_t a = lane_sum(sa) + n * 32 * 32768;
        const int64_t b = 32 * (lane_sum(sb) + int64_t{32} * 32768 * n * (n - 1) / 2) +
                          lane_sum(tt) + n * 528 * 32768;
        append_sums(s1, s2, a, b, 32 * run);
        done += run;
    }
}
GRUNDY_AVX512_INTRINSICS_END
#endif

uint32_t load_le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

uint32_t fletcher32(const uint8_t* data, size_t n, bool portable) {
    uint64_t s1 = 0, s2 = 0;
    size_t from = 0;  // bytes summed
#ifdef GRUNDY_AVX512_CODE
    if (!portable && base::cpu_has_avx512bw()) {
        sum_steps_avx512(data, n / 64, s1, s2);
        from = n / 64 * 64;
    }
#else
    (void)portable;
#endif
    uint32_t a[kLanes] = {}, b[kLanes] = {};
    const size_t blocks = (n - from) / (2 * kLanes);
    for (size_t done = 0; done < blocks;) {
        const size_t run = std::min(kRun, blocks - done);
        sum_blocks(data + from + done * 2 * kLanes, run, a, b);
        for (unsigned l = 0; l < kLanes; ++l) {
            a[l] %= kMod;
            b[l] %= kMod;
        }
        done += run;
    }
    // Over N words w_1..w_N, sum1 is the sum of w_k and sum2 the sum of (N - k + 1) w_k. Word k
    // is lane l of block q (k = kLanes q + l + 1), so N - k + 1 = kLanes (blocks - 1 - q) +
    // kLanes - l, and b[l] is the sum of (blocks - 1 - q) w over lane l.
    int64_t sum_a = 0, sum_b = 0;
    for (unsigned l = 0; l < kLanes; ++l) {
        sum_a += a[l];
        sum_b += int64_t{kLanes} * b[l] + int64_t{kLanes - l} * a[l];
    }
    append_sums(s1, s2, sum_a, sum_b, blocks * kLanes);
    // The last words one by one, and an odd last byte as the high byte of a word.
    const uint8_t* p = data + from + blocks * 2 * kLanes;
    size_t rest = n - from - blocks * 2 * kLanes;
    for (; rest >= 2; rest -= 2, p += 2) {
        s1 += uint32_t{p[0]} << 8 | p[1];
        s2 += s1;
    }
    if (rest) {
        s1 += uint32_t{p[0]} << 8;
        s2 += s1;
    }
    s1 %= kMod;
    s2 %= kMod;
    // HDF5 folds its sums (the carry added back), which keeps a sum of anything but zeros
    // away from 0: a sum that is a multiple of 65535 is written 65535, unless every byte is 0.
    if (s1 == 0 && s2 == 0 && std::all_of(data, data + n, [](uint8_t c) { return c == 0; }))
        return 0;
    return static_cast<uint32_t>((s2 ? s2 : kMod) << 16 | (s1 ? s1 : kMod));
}

bool fletcher32_matches(const uint8_t* data, size_t n) {
    if (n < kFletcher32Bytes) return false;
    const uint32_t stored = load_le32(data + n - kFletcher32Bytes);
    const uint32_t sum = fletcher32(data, n - kFletcher32Bytes);
    const uint32_t swapped = (sum & 0xFF00FF00u) >> 8 | (sum & 0x00FF00FFu) << 8;
    return stored == sum || stored == swapped;
}

}  // namespace grundy::io
