#include "io/rle_deflate.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/simd_clones.hpp"
#include "io/deflate_codes.hpp"
#include "io/token_counts.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace grundy::io {
namespace {

using deflate::BitWriter;
using deflate::kLitLenSymbols;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "run_length reads words little-endian");

constexpr int kMinRun = 3, kMaxRun = 258;  // deflate's shortest and longest match

// Length codes 257 + k (RFC 1951, 3.2.5): the shortest length of each and its extra bits.
constexpr std::array<uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

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

static_assert(kTokenKinds == 256 + kMaxRun + 1);

// Places past the last token that tokenize may write: literals go 16 at a time, or 32.
constexpr size_t kSpareTokens = 32;

// The tokens, `per_put` to a write of the bits: the writer's position is a chain from one write
// to the next, the tokens' bits are not. Made for each count, so that the inner loop unrolls,
// and two writes a step (7 M instructions fewer on a 4096^2 table's high planes, callgrind).
// The bits are 64-bit and the counts 32-bit, in arrays of their own: with BMI2, GCC then shifts
// the bits and adds the counts straight from memory, where it widened bytes and computed the
// addresses of structs.
template <int per_put>
inline void write_tokens(const Token* tokens, size_t count, const uint64_t* bits,
                         const uint32_t* nbits, BitWriter& writer) {
    BitWriter w = writer;
    size_t i = 0;
    for (; i + 2 * per_put <= count; i += 2 * per_put) {
        for (int k = 0; k < per_put; ++k) w.add(bits[tokens[i + k]], nbits[tokens[i + k]]);
        w.flush();
        for (int k = per_put; k < 2 * per_put; ++k)
            w.add(bits[tokens[i + k]], nbits[tokens[i + k]]);
        w.flush();
    }
    for (; i + per_put <= count; i += per_put) {
        for (int k = 0; k < per_put; ++k) w.add(bits[tokens[i + k]], nbits[tokens[i + k]]);
        w.flush();
    }
    for (; i < count; ++i) w.put(bits[tokens[i]], nbits[tokens[i]]);
    writer = w;
}

// Four tokens a write where the block's codes allow (56 bits), else three or two: on the high
// planes of a table mostly three, whose longest token (a rare long run: its code, 5 extra bits
// and the distance bit) has 15 to 18 bits; two a write took 11 instructions a token, three 10.
// Built with BMI2 where the CPU has it: shifts by a register then need no move to CL (another
// instruction a token).
GRUNDY_SIMD_CLONES void write_all_tokens(const Token* tokens, size_t count, const uint64_t* bits,
                                         const uint32_t* nbits, unsigned longest, BitWriter& w) {
    if (4 * longest <= 56)
        write_tokens<4>(tokens, count, bits, nbits, w);
    else if (3 * longest <= 56)
        write_tokens<3>(tokens, count, bits, nbits, w);
    else
        write_tokens<2>(tokens, count, bits, nbits, w);
}

// One dynamic block of the tokens, whose symbol counts are `freq` (end of block not counted).
void write_block(const Token* tokens, size_t count, std::array<uint32_t, kLitLenSymbols> freq,
                 bool last, BitWriter& writer) {
    // A copy that never escapes: its fields stay in registers. Through the reference, every
    // byte stored into the output (which may alias anything) would force them back to memory.
    BitWriter w = writer;
    freq[256] = 1;
    std::array<uint8_t, kLitLenSymbols> lit_len;
    std::array<uint32_t, kLitLenSymbols> lit_code{};
    deflate::huffman_lengths(freq.data(), kLitLenSymbols, deflate::kMaxCodeBits, lit_len.data());
    deflate::canonical_codes(lit_len.data(), kLitLenSymbols, lit_code.data());
    int lit_count = kLitLenSymbols;
    while (lit_len[lit_count - 1] == 0) --lit_count;  // >= 257: end of block has a code
    // Distance 1 is code 0. Codes 0 and 1 both get one bit, so the distance code is complete
    // (some inflates reject an incomplete one), and code 1 is never sent.
    static constexpr std::array<uint8_t, 2> kDistLen = {1, 1};
    deflate::write_dynamic_header(lit_len.data(), lit_count, kDistLen.data(), 2, last, w);

    // The bits of every token: a literal's code, or a run's length code, its extra bits and
    // distance code 0 (one bit, 0), so that each token is one write whatever its kind.
    std::array<uint64_t, kTokenKinds> token_bits;
    std::array<uint32_t, kTokenKinds> token_nbits;
    unsigned longest = 0;  // of the tokens that may come
    for (int t = 0; t < 256; ++t) {
        token_bits[t] = lit_code[t], token_nbits[t] = lit_len[t];
        longest = std::max<unsigned>(longest, lit_len[t]);
    }
    for (int len = kMinRun; len <= kMaxRun; ++len) {
        const int k = kLengthCode[len], sym = 257 + k;
        token_bits[256 + len] = lit_code[sym] | static_cast<uint32_t>(len - kLengthBase[k])
                                                    << lit_len[sym];
        token_nbits[256 + len] = static_cast<uint32_t>(lit_len[sym] + kLengthExtra[k] + 1);
        if (lit_len[sym]) longest = std::max(longest, token_nbits[256 + len]);
    }
    write_all_tokens(tokens, count, token_bits.data(), token_nbits.data(), longest, w);
    w.put(lit_code[256], lit_len[256]);
    writer = w;
}

#ifdef GRUNDY_AVX512_CODE
// Each lane's own index, as bytes and as 16-bit words.
alignas(64) constexpr std::array<uint8_t, 64> kByteIndex = [] {
    std::array<uint8_t, 64> a{};
    for (int k = 0; k < 64; ++k) a[k] = static_cast<uint8_t>(k);
    return a;
}();
alignas(64) constexpr std::array<uint16_t, 32> kWordIndex = [] {
    std::array<uint16_t, 32> a{};
    for (int k = 0; k < 32; ++k) a[k] = static_cast<uint16_t>(k);
    return a;
}();

// The windows of tokenize's parse on CPUs with AVX-512 VBMI2 (Ice Lake, Sapphire Rapids, Zen 4
// and later): the same tokens, without walking the runs one at a time. The parse depends only
// on the stretches of bytes equal to the one before them: a stretch of three or more is one run
// (258 bytes at most: a longer one is cut there, and what is left is judged again as if a
// stretch began there); a shorter stretch is literals, as is every byte that differs from the
// one before. So a window's tokens are its bytes at the positions that start a token, packed
// with one compress instruction, in which the lanes of the runs' first bytes then take the runs'
// lengths: where the runs end less where they start, both positions packed the same way.
// The windows lie 64 bytes apart whatever the runs, so that the loads of one do not wait on the
// parse of the one before: a run still going at a window's end is carried into the next one,
// its token's place kept. Returns the position where the scalar tail takes over (a carried run
// finished); `count_out` grows by the tokens written (each half window stores 32 values, so the
// tokens keep 32 spare places).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt,lzcnt")))
size_t
parse_windows_vbmi2(const uint8_t* data, size_t i, size_t end, Token* tokens, size_t& count_out) {
    constexpr size_t kLongest = kMaxRun;
    size_t count = count_out;
    bool carried = false;  // a run reaches into this window, its token at tokens[carried_at]
    size_t carried_at = 0, carried_length = 0;
    for (; i + 80 <= end; i += 64) {
        const uint64_t eq =
            _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(data + i), _mm512_loadu_si512(data + i - 1));
        const uint64_t high = _mm_cmpeq_epi8_mask(  // bits 64..79
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i + 64)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i + 63)));
        unsigned from = 0;  // the window's first byte not in the carried run
        if (carried) {
            const size_t more = _tzcnt_u64(~eq);  // 64: the whole window
            const size_t take = std::min(more, kLongest - carried_length);
            carried_length += take;
            if (more == 64 && carried_length < kLongest) continue;
            tokens[carried_at] = static_cast<Token>(256 + carried_length);
            carried = false;
            from = static_cast<unsigned>(take);
            if (from == 64) continue;
        }
        // Bytes before `from` are not this window's: a stretch begins at `from`.
        const uint64_t mine = ~uint64_t{0} << from;
        const uint64_t e = eq & mine;
        const uint64_t three = e & (e >> 1 | high << 63) & (e >> 2 | high << 62);
        const uint64_t in_long = three | three << 1 | three << 2;
        const uint64_t run_starts = three & ~(e << 1);
        const uint64_t token_starts = (~in_long | run_starts) & mine;
        const size_t first = count;
        // A run through the window's last byte starts after the last byte that differs; every
        // run before it ends in the window, at the first byte after it that differs.
        const unsigned last = in_long >> 63 ? 64 - static_cast<unsigned>(_lzcnt_u64(~e)) : 64;
        const uint64_t runs = _bzhi_u64(run_starts, last);
        const uint64_t ends = ~e & in_long << 1;  // as many as runs, in the same order
        const __m512i index = _mm512_load_si512(kByteIndex.data());
        const __m512i lengths = _mm512_sub_epi8(_mm512_maskz_compress_epi8(ends, index),
                                                _mm512_maskz_compress_epi8(runs, index));
        // Each half: its bytes at the positions that start tokens, packed, then the lanes that
        // hold runs' first bytes given the runs' lengths (the next of them, widened to 16 bits).
        const __m512i words = _mm512_load_si512(kWordIndex.data());
        const __m512i run = _mm512_set1_epi16(256);
        unsigned done = 0;  // runs of the halves before
        for (int half = 0; half < 2; ++half) {
            const auto starts = static_cast<__mmask32>(token_starts >> 32 * half);
            const uint64_t half_runs = runs >> 32 * half & 0xFFFFFFFF;
            const __m512i bytes = _mm512_cvtepu8_epi16(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i + 32 * half)));
            const __m512i next_lengths = _mm512_maskz_permutexvar_epi8(
                0x5555555555555555ULL, _mm512_add_epi16(words, _mm512_set1_epi16(done)), lengths);
            const __m512i tokens_of_half =
                _mm512_mask_expand_epi16(_mm512_maskz_compress_epi16(starts, bytes),
                                         _pext_u32(static_cast<uint32_t>(half_runs), starts),
                                         _mm512_add_epi16(next_lengths, run));
            _mm512_storeu_si512(tokens + count, tokens_of_half);
            count += static_cast<size_t>(_mm_popcnt_u32(starts));
            done += static_cast<unsigned>(_mm_popcnt_u64(half_runs));
        }
        if (last < 64) {
            carried = true;
            carried_at = first + _mm_popcnt_u64(_bzhi_u64(token_starts, last));
            carried_length = 64 - last;
        }
    }
    if (carried) {  // finished past the windows (it repeats data[i - 1])
        const size_t more =
            run_length(data + i, std::min(kLongest - carried_length, end - i), data[i - 1]);
        tokens[carried_at] = static_cast<Token>(256 + carried_length + more);
        i += more;
    }
    count_out = count;
    return i;
}
#endif

// The greedy parse of data[start, end) into literals and runs of the byte before (what zlib's
// Z_RLE does), with the count of each symbol. data[0] is a literal: nothing comes before it.
// A run starts at j where p[j - 1] == p[j] == p[j + 1] == p[j + 2]. On CPUs with AVX-512 VBMI2
// the windows are parse_windows_vbmi2's (1.46 times the encoder's speed on a 4096^2 table's
// high planes, build/grundy_bench_rle_deflate), and only the last bytes are this function's.
// Built for AVX2 and AVX-512 CPUs as well: the same SSE2 code in VEX form (three operands, no
// register copies) with BMI's bit scans, 2-4% faster than built for any x86-64.
GRUNDY_SIMD_CLONES size_t tokenize(const uint8_t* data, size_t start, size_t end, Token* tokens,
                                   uint32_t* freq, RleParser parser) {
    size_t count = 0, i = start == 0 ? 1 : start;
    if (start == 0) tokens[count++] = data[0];
#ifdef GRUNDY_AVX512_CODE
    if (parser == RleParser::Best && rle_parser_has_vbmi2())
        i = parse_windows_vbmi2(data, i, end, tokens, count);
#else
    (void)parser;
#endif
#ifdef __SSE2__
    // 64 positions a window: first which bytes equal the one before them (80 of them, so that a
    // run may start at any of the 64, and most runs end among them), then the window's runs one
    // after another from that mask, the literals between them written 16 at a time (the tokens
    // keep 16 spare places). Runs start at about one byte in eighteen in the high planes: a step
    // of 16 positions that looked for the next run and then stopped there (the encoder before)
    // left the loop at a branch no predictor could follow; the window's mask is made whatever
    // the runs, and is walked with bit scans. 22-29% faster on the high planes of a 4096² table
    // (build/grundy_bench_rle_deflate 4096 20), the same tokens.
    const __m128i zero = _mm_setzero_si128();
    auto equal_before = [&](size_t at) {  // bit k: data[at + k] == data[at + k - 1], k < 16
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at - 1));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at));
        return static_cast<uint64_t>(
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b))));
    };
    auto literals = [&](size_t from, size_t to) {  // data[from, to) as literals
        for (size_t at = from; at < to; at += 16) {
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(tokens + count + (at - from)),
                             _mm_unpacklo_epi8(b, zero));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(tokens + count + (at - from) + 8),
                             _mm_unpackhi_epi8(b, zero));
        }
        count += to - from;
    };
    while (i + 80 <= end) {
        const uint64_t eq = equal_before(i) | equal_before(i + 16) << 16 |
                            equal_before(i + 32) << 32 | equal_before(i + 48) << 48;
        const uint64_t high = equal_before(i + 64);  // bits 64..79
        // A run may start at k when data[k - 1..k + 2] are equal: bits k, k + 1, k + 2.
        const uint64_t starts = eq & (eq >> 1 | high << 63) & (eq >> 2 | high << 62);
        size_t pos = 0;
        uint64_t m = starts;
        while (m) {
            const size_t k = static_cast<size_t>(__builtin_ctzll(m));
            literals(i + pos, i + k);
            // Bytes from k on equal to the one before: within the 80 compared, then beyond.
            const size_t j = i + k;
            const uint64_t lo = k == 0 ? eq : (eq >> k | high << (64 - k));  // bits k..k+63
            const uint64_t hi = k < 16 ? high >> k : 0;                      // bits k+64..79
            size_t length = ~lo ? static_cast<size_t>(__builtin_ctzll(~lo))
                                : 64 + static_cast<size_t>(__builtin_ctzll(~hi));
            if (k + length == 80)
                length += run_length(data + j + length, std::min<size_t>(kMaxRun, end - j) - length,
                                     data[j]);
            tokens[count++] = static_cast<Token>(256 + length);
            pos = k + length;
            if (pos >= 64) break;
            m = starts & (~uint64_t{0} << pos);
        }
        if (pos < 64) {
            literals(i + pos, i + 64);
            pos = 64;
        }
        i += pos;
    }
#endif
    while (i < end) {  // the last bytes, one at a time
        if (i + 2 < end && data[i - 1] == data[i] && data[i] == data[i + 1] &&
            data[i + 1] == data[i + 2]) {
            const size_t length = run_length(data + i, std::min<size_t>(kMaxRun, end - i), data[i]);
            tokens[count++] = static_cast<Token>(256 + length);
            i += length;
        } else {
            tokens[count++] = data[i++];
        }
    }
    std::array<uint32_t, kTokenKinds> seen{};
    count_tokens(tokens, count, seen.data());
    for (int t = 0; t < kTokenKinds; ++t) freq[t < 256 ? t : 257 + kLengthCode[t - 256]] += seen[t];
    return count;
}

}  // namespace

bool rle_parser_has_vbmi2() {
    return base::cpu_has_avx512vbmi2();
}

std::vector<uint16_t> rle_parse(const uint8_t* data, size_t start, size_t end, RleParser parser) {
    if (end <= start) return {};
    std::vector<Token> tokens(end - start + kSpareTokens);
    std::array<uint32_t, kLitLenSymbols> freq{};
    tokens.resize(tokenize(data, start, end, tokens.data(), freq.data(), parser));
    return tokens;
}

size_t rle_deflate_bound(size_t n) {
    // 15 bits at most a byte (a literal), a header of under 600 bytes a block, and the bit
    // writer's 8 spare bytes.
    const size_t blocks = std::max<size_t>(1, (n + kRleBlockBytes - 1) / kRleBlockBytes);
    return n * 2 + blocks * 600 + 16;
}

void RleDeflateBlocks::add(const uint8_t* data, size_t len, bool first, bool last) {
    thread_local std::vector<Token> tokens;
    if (tokens.size() < kRleBlockBytes + kSpareTokens) tokens.resize(kRleBlockBytes + kSpareTokens);
    std::array<uint32_t, kLitLenSymbols> freq{};
    // After the first block, a run at the block's first byte repeats the byte before it.
    const size_t count =
        first ? tokenize(data, 0, len, tokens.data(), freq.data(), RleParser::Best)
              : tokenize(data - 1, 1, len + 1, tokens.data(), freq.data(), RleParser::Best);
    write_block(tokens.data(), count, freq, last, writer_);
}

uint8_t* rle_deflate_into(const uint8_t* data, size_t n, uint8_t* out) {
    if (n == 0) {  // one empty final block with the fixed codes: just its end-of-block code
        out[0] = 0x03;
        out[1] = 0x00;
        return out + 2;
    }
    RleDeflateBlocks blocks(out);
    for (size_t start = 0; start < n; start += kRleBlockBytes) {
        const size_t end = std::min(n, start + kRleBlockBytes);
        blocks.add(data + start, end - start, start == 0, end == n);
    }
    return blocks.finish();
}

void rle_deflate(const uint8_t* data, size_t n, std::vector<uint8_t>& out) {
    // Written to a scratch buffer first: growing `out` to the bound would zero it, which costs
    // more than copying what was written.
    thread_local std::vector<uint8_t> scratch;
    if (scratch.size() < rle_deflate_bound(n)) scratch.resize(rle_deflate_bound(n));
    out.insert(out.end(), scratch.data(), rle_deflate_into(data, n, scratch.data()));
}

}  // namespace grundy::io
