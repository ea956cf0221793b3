// A deflate encoder (RFC 1951) that looks for one kind of repeat only: a run of the byte just
// before it (distance 1), as zlib's Z_RLE strategy does. The high byte planes of a shuffled
// Grundy chunk are a few values in short runs, and deflate finds little else in them: this
// encoder writes them slightly smaller than libdeflate's level 1 does, at more than twice its
// speed, because finding a run is a compare and no hash table is kept. Any inflate decodes
// the output (the tests check zlib's and libdeflate's), and it is a pure function of the input,
// so a chunk's bytes do not depend on the thread or the run that wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/deflate_codes.hpp"

namespace grundy::io {

// Bytes of input per block: each block gets its own codes, which follow the values' mix as it
// changes along a plane. Larger blocks compress the high byte planes worse, smaller ones
// encode slower (making each block's codes shows). On the high planes of a 4096^2 table, 64 KiB
// took 8.5 M instructions fewer than 32 KiB (of 210 M) for 1.2% more bytes (0.17% of the file);
// 128 KiB would have cost 4.3% more bytes, a whole 256 KiB chunk 11%.
inline constexpr size_t kRleBlockBytes = size_t{64} << 10;

// Appends `n` bytes to `out` as deflate blocks with dynamic Huffman codes, one block for each
// `kRleBlockBytes` of input, the last one ending the stream (n = 0: one empty final block). The
// first byte is written as a literal, so the blocks may follow any byte-aligned blocks (stored
// ones, say).
void rle_deflate(const uint8_t* data, size_t n, std::vector<uint8_t>& out);

// The most bytes rle_deflate writes for n bytes of input.
size_t rle_deflate_bound(size_t n);

// The same stream written at `out`, which has room for rle_deflate_bound(n) bytes; returns past
// its last byte.
uint8_t* rle_deflate_into(const uint8_t* data, size_t n, uint8_t* out);

// The same stream written a block at a time into a buffer of the caller's, for data made a
// block at a time (a chunk's high byte plane as it is laid out, io/chunk_codec.cpp): the blocks
// are rle_deflate's when each call but the last gives it kRleBlockBytes.
class RleDeflateBlocks {
  public:
    // `out` has room for rle_deflate_bound(n) bytes, n the bytes of all blocks to come.
    explicit RleDeflateBlocks(uint8_t* out) : writer_(out) {}
    // One block of 0 < len <= kRleBlockBytes bytes; after the first, data[-1] is the last byte
    // of the block before (what a run at data[0] repeats). `last` ends the stream.
    void add(const uint8_t* data, size_t len, bool first, bool last);
    // Past the stream's last byte, once the last block is added.
    uint8_t* finish() { return writer_.finish(); }

  private:
    deflate::BitWriter writer_;
};

// Which code finds the parse: the best this CPU has (AVX-512 VBMI2 where rle_parser_has_vbmi2)
// or the one for any x86-64. Both give the same tokens.
enum class RleParser { Best, Portable };
bool rle_parser_has_vbmi2();

// The parse the encoder writes for data[start, end) (start: where a block begins; data[0]
// before it is what a run at `start` repeats): literals 0-255 and runs of the byte before,
// 256 + length (3..258), found greedily, as zlib's Z_RLE does. For tests, which check it against
// a parse of their own.
std::vector<uint16_t> rle_parse(const uint8_t* data, size_t start, size_t end,
                                RleParser parser = RleParser::Best);

}  // namespace grundy::io
