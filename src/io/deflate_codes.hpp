// What the run-length deflate encoder (io/rle_deflate.cpp) needs of the format itself: a bit
// writer, length-limited Huffman codes and the header of a dynamic block (RFC 1951, 3.2.7).
#pragma once

#include <cstdint>
#include <cstring>

namespace grundy::io::deflate {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BitWriter stores words little-endian");

inline constexpr int kLitLenSymbols = 286;  // 0-255 literals, 256 end of block, 257-285 lengths
inline constexpr int kMaxCodeBits = 15;

// Bits into bytes, low bit first. The buffer it writes to keeps 8 spare bytes at its end.
class BitWriter {
  public:
    explicit BitWriter(uint8_t* p) : p_(p) {}
    // bits < 2^n. At most 56 bits between two flushes: the word holds up to 7 bits left over.
    void add(uint64_t bits, unsigned n) {
        acc_ |= bits << filled_;
        filled_ += n;
    }
    // Stores the whole word every time and moves on by the bytes filled: no branch, where a test
    // for a full word would be taken at random.
    void flush() {
        std::memcpy(p_, &acc_, 8);
        p_ += filled_ / 8;
        acc_ >>= filled_ & ~7u;
        filled_ &= 7;
    }
    void put(uint64_t bits, unsigned n) {  // n <= 56
        add(bits, n);
        flush();
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

// Lengths of a Huffman code for the n <= kLitLenSymbols counts `freq`, none over `limit` bits;
// unused symbols get 0. At least two symbols get a code, so that the code is complete, which
// inflate requires of the code-length code.
void huffman_lengths(const uint32_t* freq, int n, int limit, uint8_t* len);

// Canonical codes for the n lengths (RFC 1951, 3.2.2), bit-reversed, as the writer sends them.
void canonical_codes(const uint8_t* len, int n, uint32_t* code);

// The header of a dynamic block: its literal/length code lengths (`lit_count` of them, 257 to
// 286) and distance code lengths (`dist_count`), given with the code-length code.
void write_dynamic_header(const uint8_t* lit_len, int lit_count, const uint8_t* dist_len,
                          int dist_count, bool last, BitWriter& w);

}  // namespace grundy::io::deflate
