#include "io/rle_deflate.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace grundy::io {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "run_length and BitWriter read and write words little-endian");

constexpr int kLitLenSymbols = 286;  // 0-255 literals, 256 end of block, 257-285 lengths
constexpr int kCodeLenSymbols = 19;
constexpr int kMinRun = 3, kMaxRun = 258;  // deflate's shortest and longest match

// Length codes 257 + k (RFC 1951, 3.2.5): the shortest length of each and its extra bits.
constexpr std::array<uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
// The order in which a dynamic block gives the code-length code's lengths.
constexpr std::array<uint8_t, kCodeLenSymbols> kCodeLenOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                                11, 4,  12, 3, 13, 2, 14, 1, 15};

// The length code (0-28, symbol 257 + it) of each run length.
constexpr std::array<uint8_t, kMaxRun + 1> make_length_codes() {
    std::array<uint8_t, kMaxRun + 1> code{};
    for (int len = kMinRun; len <= kMaxRun; ++len) {
        int k = 0;
        while (k + 1 < 28 && kLengthBase[k + 1] <= len) ++k;
        code[len] = static_cast<uint8_t>(len == kMaxRun ? 28 : k);
    }
    return code;
}
constexpr std::array<uint8_t, kMaxRun + 1> kLengthCode = make_length_codes();

// Literals are 0-255; a run of `len` bytes is 256 + len.
using Token = uint16_t;

// Bytes from p on (at most `max`) equal to v: 16 at a time where SSE2 is there, else 8.
inline size_t run_length(const uint8_t* p, size_t max, uint8_t v) {
    size_t k = 0;
#ifdef __SSE2__
    const __m128i pattern = _mm_set1_epi8(static_cast<char>(v));
    for (; k + 16 <= max; k += 16) {
        const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
        const unsigned same = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(w, pattern)));
        if (same != 0xFFFF) return k + static_cast<size_t>(__builtin_ctz(~same));
    }
#endif
    const uint64_t pattern64 = 0x0101010101010101ULL * v;
    for (; k + 8 <= max; k += 8) {
        uint64_t w;
        std::memcpy(&w, p + k, 8);
        if (const uint64_t diff = w ^ pattern64)
            return k + static_cast<size_t>(__builtin_ctzll(diff)) / 8;
    }
    while (k < max && p[k] == v) ++k;
    return k;
}

// Appends data[i, j) to the tokens as literals; bytes up to `end` may be read. 16 at a time
// where SSE2 is there (the tokens keep 16 spare places): between two runs come about eight
// literals here, and a loop of that length mispredicts its end anyway.
inline size_t copy_literals(const uint8_t* data, size_t i, size_t j, size_t end, Token* tokens) {
    size_t l = i;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    for (; l < j && l + 16 <= end; l += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + l));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(tokens + (l - i)), _mm_unpacklo_epi8(v, zero));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(tokens + (l - i) + 8),
                         _mm_unpackhi_epi8(v, zero));
    }
    if (l >= j) return j - i;
#else
    (void)end;
#endif
    for (; l < j; ++l) tokens[l - i] = data[l];
    return j - i;
}

// Lengths of a Huffman code for `freq`, none over `limit` bits; unused symbols get 0. At least
// two symbols get a code, so that the code is complete, which inflate requires of the
// code-length code. A code too long is made again from halved frequencies: deflate's limits
// (15 and 7 bits) are reached only by very skewed counts, where that costs next to nothing.
template <int N>
void huffman_lengths(const uint32_t* freq, int limit, uint8_t* len) {
    std::array<uint32_t, N> f;
    std::copy(freq, freq + N, f.begin());
    int used = static_cast<int>(std::count_if(f.begin(), f.end(), [](uint32_t v) { return v; }));
    for (int s = 0; s < N && used < 2; ++s)
        if (f[s] == 0) f[s] = 1, ++used;
    std::array<uint16_t, N> leaf;  // symbols by frequency, then by value (deterministic)
    for (;;) {
        int m = 0;
        for (int s = 0; s < N; ++s)
            if (f[s]) leaf[m++] = static_cast<uint16_t>(s);
        std::sort(leaf.begin(), leaf.begin() + m,
                  [&](uint16_t a, uint16_t b) { return f[a] != f[b] ? f[a] < f[b] : a < b; });
        // Nodes 0..m-1 are the leaves in that order, m.. the merged ones, made in order of
        // weight, so the two lightest are always at the heads of the two queues.
        std::array<uint64_t, 2 * N> weight;
        std::array<uint16_t, 2 * N> parent;
        for (int i = 0; i < m; ++i) weight[i] = f[leaf[i]];
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
        std::array<uint8_t, 2 * N> depth;
        depth[2 * m - 2] = 0;
        int longest = 0;
        for (int i = 2 * m - 3; i >= 0; --i) {
            depth[i] = static_cast<uint8_t>(depth[parent[i]] + 1);
            longest = std::max<int>(longest, depth[i]);
        }
        if (longest <= limit) {
            std::fill(len, len + N, uint8_t{0});
            for (int i = 0; i < m; ++i) len[leaf[i]] = depth[i];
            return;
        }
        for (uint32_t& v : f)
            if (v) v = (v + 1) / 2;
    }
}

// Canonical codes for the lengths (RFC 1951, 3.2.2), bit-reversed: deflate sends a code from
// its first bit on, and the writer fills bytes from their low bit.
template <int N>
void canonical_codes(const uint8_t* len, uint32_t* code) {
    std::array<uint32_t, 16> count{}, next{};
    for (int s = 0; s < N; ++s) ++count[len[s]];
    count[0] = 0;
    for (int bits = 1; bits < 16; ++bits) next[bits] = (next[bits - 1] + count[bits - 1]) << 1;
    for (int s = 0; s < N; ++s) {
        if (!len[s]) continue;
        uint32_t c = next[len[s]]++, reversed = 0;
        for (int b = 0; b < len[s]; ++b, c >>= 1) reversed = reversed << 1 | (c & 1);
        code[s] = reversed;
    }
}

// Bits into bytes, low bit first. The buffer it writes to keeps 8 spare bytes at its end.
class BitWriter {
  public:
    explicit BitWriter(uint8_t* p) : p_(p) {}
    // bits < 2^n, n <= 56. Stores the whole word every time and moves on by the bytes filled:
    // no branch, where a test for a full word would be taken at random.
    void put(uint64_t bits, unsigned n) {
        acc_ |= bits << filled_;
        filled_ += n;
        std::memcpy(p_, &acc_, 8);
        p_ += filled_ / 8;
        acc_ >>= filled_ & ~7u;
        filled_ &= 7;
    }
    uint8_t* finish() {  // pads the last byte with zeros
        std::memcpy(p_, &acc_, 8);
        return p_ + (filled_ + 7) / 8;
    }

  private:
    uint8_t* p_;
    uint64_t acc_ = 0;
    unsigned filled_ = 0;
};

// One dynamic block of the tokens, whose symbol counts are `freq` (end of block not counted).
void write_block(const Token* tokens, size_t count, std::array<uint32_t, kLitLenSymbols> freq,
                 bool last, BitWriter& writer) {
    // A copy that never escapes: its fields stay in registers. Through the reference, every
    // byte stored into the output (which may alias anything) would force them back to memory.
    BitWriter w = writer;
    freq[256] = 1;
    std::array<uint8_t, kLitLenSymbols> lit_len;
    std::array<uint32_t, kLitLenSymbols> lit_code{};
    huffman_lengths<kLitLenSymbols>(freq.data(), 15, lit_len.data());
    canonical_codes<kLitLenSymbols>(lit_len.data(), lit_code.data());
    int lit_count = kLitLenSymbols;
    while (lit_len[lit_count - 1] == 0) --lit_count;  // >= 257: end of block has a code
    // Distance 1 is code 0. Codes 0 and 1 both get one bit, so the distance code is complete
    // (some inflates reject an incomplete one), and code 1 is never sent.
    constexpr int kDistCount = 2;

    // The code lengths of both codes as one sequence, runs shortened with codes 16-18.
    std::array<uint8_t, kLitLenSymbols + kDistCount> lengths;
    std::copy(lit_len.begin(), lit_len.begin() + lit_count, lengths.begin());
    lengths[lit_count] = lengths[lit_count + 1] = 1;
    const int total = lit_count + kDistCount;
    struct LenSymbol {
        uint8_t symbol, extra;
    };
    std::array<LenSymbol, kLitLenSymbols + kDistCount> seq;
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
    huffman_lengths<kCodeLenSymbols>(cl_freq.data(), 7, cl_len.data());
    canonical_codes<kCodeLenSymbols>(cl_len.data(), cl_code.data());
    int cl_count = kCodeLenSymbols;
    while (cl_count > 4 && cl_len[kCodeLenOrder[cl_count - 1]] == 0) --cl_count;

    w.put((last ? 1 : 0) | 2 << 1, 3);  // BFINAL, BTYPE = 2 (dynamic codes)
    w.put(static_cast<uint64_t>(lit_count - 257), 5);
    w.put(kDistCount - 1, 5);
    w.put(static_cast<uint64_t>(cl_count - 4), 4);
    for (int i = 0; i < cl_count; ++i) w.put(cl_len[kCodeLenOrder[i]], 3);
    static constexpr std::array<uint8_t, 3> kRepeatBits = {2, 3, 7};  // codes 16, 17, 18
    for (int i = 0; i < seq_count; ++i) {
        const LenSymbol s = seq[i];
        w.put(cl_code[s.symbol], cl_len[s.symbol]);
        if (s.symbol >= 16) w.put(s.extra, kRepeatBits[s.symbol - 16]);
    }

    // The bits of every token: a literal's code, or a run's length code, its extra bits and
    // distance code 0 (one bit, 0), so that each token is one write whatever its kind.
    std::array<uint32_t, 256 + kMaxRun + 1> token_bits;
    std::array<uint8_t, 256 + kMaxRun + 1> token_nbits;
    for (int t = 0; t < 256; ++t) token_bits[t] = lit_code[t], token_nbits[t] = lit_len[t];
    for (int len = kMinRun; len <= kMaxRun; ++len) {
        const int k = kLengthCode[len], sym = 257 + k;
        token_bits[256 + len] = lit_code[sym] | static_cast<uint32_t>(len - kLengthBase[k])
                                                    << lit_len[sym];
        token_nbits[256 + len] = static_cast<uint8_t>(lit_len[sym] + kLengthExtra[k] + 1);
    }
    // Two tokens a write (at most 2 x 21 bits): the writer's position is a chain from one write
    // to the next, the tokens' bits are not.
    size_t i = 0;
    for (; i + 2 <= count; i += 2) {
        const Token a = tokens[i], b = tokens[i + 1];
        w.put(token_bits[a] | uint64_t{token_bits[b]} << token_nbits[a],
              token_nbits[a] + token_nbits[b]);
    }
    if (i < count) w.put(token_bits[tokens[i]], token_nbits[tokens[i]]);
    w.put(lit_code[256], lit_len[256]);
    writer = w;
}

// The next run at or after i (and before end): its first position j, where p[j - 1] == p[j] ==
// p[j + 1] == p[j + 2], and its length, at most kMaxRun; j == end when there is none. 16
// positions a step: runs start at about one byte in twenty here, and between them a
// byte-by-byte search would mispredict every branch. The compares that find the run also give
// its length when it ends inside those 16 bytes, as it mostly does, so that the next step need
// not wait for more loads.
struct Run {
    size_t at, length;
};
inline Run next_run(const uint8_t* p, size_t i, size_t end) {
#ifdef __SSE2__
    for (; i + 18 <= end; i += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i - 1));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 2));
        const __m128i repeat = _mm_cmpeq_epi8(a, b);  // byte k equal to the one before it
        const __m128i same =
            _mm_and_si128(_mm_and_si128(repeat, _mm_cmpeq_epi8(b, c)), _mm_cmpeq_epi8(c, d));
        if (const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(same))) {
            const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
            const unsigned repeats = static_cast<unsigned>(_mm_movemask_epi8(repeat)) >> k;
            const size_t j = i + k, in_here = static_cast<size_t>(__builtin_ctz(~repeats));
            if (k + in_here < 16) return {j, in_here};
            return {j, in_here + run_length(p + i + 16,
                                            std::min<size_t>(kMaxRun, end - j) - in_here, p[j])};
        }
    }
#endif
    for (; i + 2 < end; ++i)
        if (p[i - 1] == p[i] && p[i] == p[i + 1] && p[i + 1] == p[i + 2])
            return {i, run_length(p + i, std::min<size_t>(kMaxRun, end - i), p[i])};
    return {end, 0};
}

// The greedy parse of data[start, end) into literals and runs of the byte before (what zlib's
// Z_RLE does), with the count of each symbol. data[0] is a literal: nothing comes before it.
size_t tokenize(const uint8_t* data, size_t start, size_t end, Token* tokens, uint32_t* freq) {
    size_t count = 0, i = start == 0 ? 1 : start;
    if (start == 0) tokens[count++] = data[0];
    while (i < end) {
        const Run run = next_run(data, i, end);
        count += copy_literals(data, i, run.at, end, tokens + count);
        if (run.at == end) break;
        tokens[count++] = static_cast<Token>(256 + run.length);
        i = run.at + run.length;
    }
    // The tokens counted in four tables, so that repeats of one token do not wait on each
    // other, then each run length added to its length code.
    std::array<std::array<uint32_t, 256 + kMaxRun + 1>, 4> seen{};
    size_t k = 0;
    for (; k + 4 <= count; k += 4)
        for (int t = 0; t < 4; ++t) ++seen[t][tokens[k + t]];
    for (; k < count; ++k) ++seen[0][tokens[k]];
    for (int t = 0; t < 256 + kMaxRun + 1; ++t) {
        const uint32_t c = seen[0][t] + seen[1][t] + seen[2][t] + seen[3][t];
        freq[t < 256 ? t : 257 + kLengthCode[t - 256]] += c;
    }
    return count;
}

}  // namespace

void rle_deflate(const uint8_t* data, size_t n, std::vector<uint8_t>& out) {
    if (n == 0) {  // one empty final block with the fixed codes: just its end-of-block code
        out.insert(out.end(), {0x03, 0x00});
        return;
    }
    // Worst case: 15 bits for a literal, a header of under 600 bytes a block, 8 spare bytes.
    // Written to a scratch buffer first: growing `out` to that size would zero it, which costs
    // more than copying what was written.
    const size_t blocks = (n + kRleBlockBytes - 1) / kRleBlockBytes;
    thread_local std::vector<uint8_t> scratch;
    thread_local std::vector<Token> tokens;
    if (scratch.size() < n * 2 + blocks * 600 + 16) scratch.resize(n * 2 + blocks * 600 + 16);
    // Room for 16 literals written at once past the last token (copy_literals).
    if (tokens.size() < std::min(n, kRleBlockBytes) + 16)
        tokens.resize(std::min(n, kRleBlockBytes) + 16);
    BitWriter w(scratch.data());
    for (size_t start = 0; start < n; start += kRleBlockBytes) {
        const size_t end = std::min(n, start + kRleBlockBytes);
        std::array<uint32_t, kLitLenSymbols> freq{};
        const size_t count = tokenize(data, start, end, tokens.data(), freq.data());
        write_block(tokens.data(), count, freq, end == n, w);
    }
    out.insert(out.end(), scratch.data(), w.finish());
}

}  // namespace grundy::io
