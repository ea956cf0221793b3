#include "io/fletcher32.hpp"

#include <algorithm>
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

uint32_t load_le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

uint32_t fletcher32(const uint8_t* data, size_t n) {
    uint32_t a[kLanes] = {}, b[kLanes] = {};
    const size_t blocks = n / (2 * kLanes);
    for (size_t done = 0; done < blocks;) {
        const size_t run = std::min(kRun, blocks - done);
        sum_blocks(data + done * 2 * kLanes, run, a, b);
        for (unsigned l = 0; l < kLanes; ++l) {
            a[l] %= kMod;
            b[l] %= kMod;
        }
        done += run;
    }
    // Over N words w_1..w_N, sum1 is the sum of w_k and sum2 the sum of (N - k + 1) w_k. Word k
    // is lane l of block q (k = kLanes q + l + 1), so N - k + 1 = kLanes (blocks - 1 - q) +
    // kLanes - l, and b[l] is the sum of (blocks - 1 - q) w over lane l.
    uint64_t s1 = 0, s2 = 0;
    for (unsigned l = 0; l < kLanes; ++l) {
        s1 += a[l];
        s2 += uint64_t{kLanes} * b[l] + uint64_t{kLanes - l} * a[l];
    }
    s1 %= kMod;
    s2 %= kMod;
    // The last words one by one, and an odd last byte as the high byte of a word.
    const uint8_t* p = data + blocks * 2 * kLanes;
    size_t rest = n - blocks * 2 * kLanes;
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
