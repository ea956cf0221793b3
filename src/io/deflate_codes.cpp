#include "io/deflate_codes.hpp"

#include <algorithm>
#include <array>

namespace grundy::io::deflate {
namespace {

constexpr int kCodeLenSymbols = 19;
// The order in which a dynamic block gives the code-length code's lengths.
constexpr std::array<uint8_t, kCodeLenSymbols> kCodeLenOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                                11, 4,  12, 3, 13, 2, 14, 1, 15};

// Each byte with its bits in the opposite order.
constexpr std::array<uint8_t, 256> make_reversed_bytes() {
    std::array<uint8_t, 256> r{};
    for (int v = 0; v < 256; ++v)
        for (int b = 0; b < 8; ++b)
            if (v >> b & 1) r[v] = static_cast<uint8_t>(r[v] | 1 << (7 - b));
    return r;
}
constexpr std::array<uint8_t, 256> kReversedBytes = make_reversed_bytes();

}  // namespace

// A code too long is made again from halved frequencies: deflate's limits (15 and 7 bits) are
// reached only by very skewed counts, where that costs next to nothing.
void huffman_lengths(const uint32_t* freq, int n, int limit, uint8_t* len) {
    std::array<uint32_t, kLitLenSymbols> f;
    std::copy(freq, freq + n, f.begin());
    int used =
        static_cast<int>(std::count_if(f.begin(), f.begin() + n, [](uint32_t v) { return v; }));
    for (int s = 0; s < n && used < 2; ++s)
        if (f[s] == 0) f[s] = 1, ++used;
    // The symbols by frequency, then by value (deterministic): sorted as one key each, the
    // count above the symbol's 9 bits, which is quicker than comparing through the counts
    // (a code is made for every 64 KiB of a chunk's high planes).
    constexpr int kSymbolBits = 9;
    static_assert(kLitLenSymbols <= 1 << kSymbolBits);
    std::array<uint64_t, kLitLenSymbols> leaf;
    for (;;) {
        int m = 0;
        for (int s = 0; s < n; ++s)
            if (f[s]) leaf[m++] = uint64_t{f[s]} << kSymbolBits | static_cast<uint64_t>(s);
        std::sort(leaf.begin(), leaf.begin() + m);
        // Nodes 0..m-1 are the leaves in that order, m.. the merged ones, made in order of
        // weight, so the two lightest are always at the heads of the two queues.
        std::array<uint64_t, 2 * kLitLenSymbols> weight;
        std::array<uint16_t, 2 * kLitLenSymbols> parent;
        for (int i = 0; i < m; ++i) weight[i] = leaf[i] >> kSymbolBits;
        int next_leaf = 0, next_node = m;
        auto lightest = [&](int made) {
            if (next_leaf < m && (next_node >= made || weight[next_leaf] <= weight[next_node]))
                return next_leaf++;
            return next_node++;
        };
        for (int made = m; made < 2 * m - 1; ++made) {
            const int a = lightest(made), b = lightest(made);
            weight[made] = weight[a] + weight[b];
            parent[a] = parent[b] = static_cast<uint16_t>(made);
        }
        std::array<uint8_t, 2 * kLitLenSymbols> depth;
        depth[std::max(2 * m - 2, 0)] = 0;  // the root (m >= 2, which the compiler cannot see)
        int longest = 0;
        for (int i = 2 * m - 3; i >= 0; --i) {
            depth[i] = static_cast<uint8_t>(depth[parent[i]] + 1);
            longest = std::max<int>(longest, depth[i]);
        }
        if (longest <= limit) {
            std::fill(len, len + n, uint8_t{0});
            for (int i = 0; i < m; ++i) len[leaf[i] & ((1 << kSymbolBits) - 1)] = depth[i];
            return;
        }
        for (int s = 0; s < n; ++s)
            if (f[s]) f[s] = (f[s] + 1) / 2;
    }
}

// Bit-reversed: deflate sends a code from its first bit on, and the writer fills bytes from
// their low bit.
void canonical_codes(const uint8_t* len, int n, uint32_t* code) {
    std::array<uint32_t, kMaxCodeBits + 1> count{}, next{};
    for (int s = 0; s < n; ++s) ++count[len[s]];
    count[0] = 0;
    for (int bits = 1; bits <= kMaxCodeBits; ++bits)
        next[bits] = (next[bits - 1] + count[bits - 1]) << 1;
    for (int s = 0; s < n; ++s) {
        if (!len[s]) continue;
        const uint32_t c = next[len[s]]++;  // under 2^15: its 16 bits reversed, then shifted
        const uint32_t reversed = uint32_t{kReversedBytes[c & 0xFF]} << 8 | kReversedBytes[c >> 8];
        code[s] = reversed >> (16 - len[s]);
    }
}

void write_dynamic_header(const uint8_t* lit_len, int lit_count, const uint8_t* dist_len,
                          int dist_count, bool last, BitWriter& w) {
    // The code lengths of both codes as one sequence, runs shortened with codes 16-18.
    std::array<uint8_t, kLitLenSymbols + 32> lengths;
    std::copy(lit_len, lit_len + lit_count, lengths.begin());
    std::copy(dist_len, dist_len + dist_count, lengths.begin() + lit_count);
    const int total = lit_count + dist_count;
    struct LenSymbol {
        uint8_t symbol, extra;
    };
    std::array<LenSymbol, kLitLenSymbols + 32> seq;
    int seq_count = 0;
    std::array<uint32_t, kCodeLenSymbols> cl_freq{};
    auto emit = [&](int symbol, int extra) {
        seq[seq_count++] = {static_cast<uint8_t>(symbol), static_cast<uint8_t>(extra)};
        ++cl_freq[symbol];
    };
    for (int i = 0; i < total;) {
        const uint8_t v = lengths[i];
        int run = 1;
        while (i + run < total && lengths[i + run] == v) ++run;
        i += run;
        if (v == 0) {
            for (; run >= 11; run -= std::min(run, 138)) emit(18, std::min(run, 138) - 11);
            if (run >= 3) emit(17, run - 3), run = 0;
        } else {
            emit(v, 0), --run;
            for (; run >= 3; run -= std::min(run, 6)) emit(16, std::min(run, 6) - 3);
        }
        for (; run > 0; --run) emit(v, 0);
    }
    std::array<uint8_t, kCodeLenSymbols> cl_len;
    std::array<uint32_t, kCodeLenSymbols> cl_code{};
    huffman_lengths(cl_freq.data(), kCodeLenSymbols, 7, cl_len.data());
    canonical_codes(cl_len.data(), kCodeLenSymbols, cl_code.data());
    int cl_count = kCodeLenSymbols;
    while (cl_count > 4 && cl_len[kCodeLenOrder[cl_count - 1]] == 0) --cl_count;

    w.put((last ? 1 : 0) | 2 << 1, 3);  // BFINAL, BTYPE = 2 (dynamic codes)
    w.put(static_cast<uint64_t>(lit_count - 257), 5);
    w.put(static_cast<uint64_t>(dist_count - 1), 5);
    w.put(static_cast<uint64_t>(cl_count - 4), 4);
    for (int i = 0; i < cl_count; ++i) w.put(cl_len[kCodeLenOrder[i]], 3);
    static constexpr std::array<uint8_t, 3> kRepeatBits = {2, 3, 7};  // codes 16, 17, 18
    for (int i = 0; i < seq_count; ++i) {
        const LenSymbol s = seq[i];
        w.put(cl_code[s.symbol], cl_len[s.symbol]);
        if (s.symbol >= 16) w.put(s.extra, kRepeatBits[s.symbol - 16]);
    }
}

}  // namespace grundy::io::deflate
