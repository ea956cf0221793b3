#include "io/token_counts.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "base/simd_clones.hpp"

namespace grundy::io {
namespace {

using Counts = std::array<uint32_t, kTokenKinds>;

// Counts in four tables, so that repeats of one token do not wait on each other, eight tokens a
// step (3 M instructions fewer than four on a 4096^2 table's high planes). About a cycle a
// token: each is two loads and a store.
struct PartCounts {
    std::array<Counts, 4> part{};
    // Out of line: inlined with a constant count, GCC 12 warns of an iteration no count reaches
    // (-Waggressive-loop-optimizations).
    __attribute__((noinline)) void add(const uint16_t* tokens, size_t count) {
        size_t k = 0;
        for (; k + 8 <= count; k += 8)
            for (int t = 0; t < 8; ++t) ++part[t % 4][tokens[k + t]];
        for (; k < count; ++k) ++part[0][tokens[k]];
    }
    uint32_t operator[](int t) const { return part[0][t] + part[1][t] + part[2][t] + part[3][t]; }
    void add_to(uint32_t* seen) const {
        for (int t = 0; t < kTokenKinds; ++t) seen[t] += (*this)[t];
    }
};

#ifdef GRUNDY_AVX512_CODE
// A block's literals are a few values (the high bytes of a band of a table's values: eight of
// them are 99% of its literals). The first kSample tokens are counted one by one; the eight
// literals most frequent among them are then counted 32 tokens at a time, a compare and a masked
// addition each into lanes of 16 bits (a block's 65 536 tokens give a lane at most 2 048), and
// the tokens none of them is (the runs, the rare literals) are packed into a buffer and counted
// one by one.
constexpr size_t kSample = 512;
constexpr int kTop = 8;

// The kTop literals seen most often (an impossible token where fewer were seen).
std::array<uint16_t, kTop> most_frequent(const PartCounts& seen) {
    std::array<uint32_t, 256> count;
    std::array<uint16_t, 256> order;
    for (int v = 0; v < 256; ++v) count[v] = seen[v], order[v] = static_cast<uint16_t>(v);
    std::partial_sort(order.begin(), order.begin() + kTop, order.end(),
                      [&](uint16_t a, uint16_t b) { return count[a] > count[b]; });
    std::array<uint16_t, kTop> top;
    for (int k = 0; k < kTop; ++k) top[k] = count[order[k]] ? order[k] : uint16_t{0xFFFF};
    return top;
}

GRUNDY_AVX512_INTRINSICS_BEGIN
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) size_t count_top(
    const uint16_t* tokens, size_t count, const std::array<uint16_t, kTop>& top, uint32_t* seen,
    uint16_t* rest) {
    __m512i value[kTop], sum[kTop];
    for (int k = 0; k < kTop; ++k) {
        value[k] = _mm512_set1_epi16(static_cast<int16_t>(top[k]));
        sum[k] = _mm512_setzero_si512();
    }
    const __m512i one = _mm512_set1_epi16(1);
    size_t packed = 0, i = 0;
    for (; i + 32 <= count; i += 32) {
        const __m512i t = _mm512_loadu_si512(tokens + i);
        __mmask32 seen_top = 0;
#pragma GCC unroll 8
        for (int k = 0; k < kTop; ++k) {
            const __mmask32 m = _mm512_cmpeq_epi16_mask(t, value[k]);
            sum[k] = _mm512_mask_add_epi16(sum[k], m, sum[k], one);
            seen_top |= m;
        }
        // All 32 lanes stored, the others' after them: the buffer keeps 32 spare places.
        const auto others = static_cast<__mmask32>(~seen_top);
        _mm512_storeu_si512(rest + packed, _mm512_maskz_compress_epi16(others, t));
        packed += static_cast<size_t>(_mm_popcnt_u32(others));
    }
    for (; i < count; ++i) rest[packed++] = tokens[i];
    for (int k = 0; k < kTop; ++k)
        if (top[k] != 0xFFFF)
            seen[top[k]] +=
                static_cast<uint32_t>(_mm512_reduce_add_epi32(_mm512_madd_epi16(sum[k], one)));
    return packed;
}
GRUNDY_AVX512_INTRINSICS_END

void count_vbmi2(const uint16_t* tokens, size_t count, uint32_t* seen) {
    PartCounts c;
    c.add(tokens, kSample);
    const std::array<uint16_t, kTop> top = most_frequent(c);
    thread_local std::vector<uint16_t> rest;
    if (rest.size() < count + 32) rest.resize(count + 32);
    c.add(rest.data(), count_top(tokens + kSample, count - kSample, top, seen, rest.data()));
    c.add_to(seen);
}
#endif

}  // namespace

bool token_counter_has_vbmi2() {
    return base::cpu_has_avx512vbmi2();
}

void count_tokens(const uint16_t* tokens, size_t count, uint32_t* seen, TokenCounter counter) {
#ifdef GRUNDY_AVX512_CODE
    if (counter == TokenCounter::Best && count >= 2 * kSample && token_counter_has_vbmi2())
        return count_vbmi2(tokens, count, seen);
#else
    (void)counter;
#endif
    PartCounts c;
    c.add(tokens, count);
    c.add_to(seen);
}

}  // namespace grundy::io
