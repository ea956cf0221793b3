// A deflate encoder (RFC 1951) that looks for one kind of repeat only: a run of the byte just
// before it (distance 1), as zlib's Z_RLE strategy does. The high byte planes of a shuffled
// Grundy chunk are a few values in short runs, and deflate finds little else in them: on
// 16384^2 this encoder writes them 0.6% smaller than libdeflate's level 1 does, at 2.5 times
// its speed (650 against 264 MB/s, one core), because finding a run is a compare and no hash
// table is kept. Any inflate decodes
// the output (the tests check zlib's and libdeflate's), and it is a pure function of the input,
// so a chunk's bytes do not depend on the thread or the run that wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace grundy::io {

// Appends `n` bytes to `out` as deflate blocks with dynamic Huffman codes, one block for each
// `kRleBlockBytes` of input, the last one ending the stream (n = 0: one empty final block). The
// first byte is written as a literal, so the blocks may follow any byte-aligned blocks (stored
// ones, say).
void rle_deflate(const uint8_t* data, size_t n, std::vector<uint8_t>& out);

// Bytes of input per block: each block gets its own codes, which follow the values' mix as it
// changes along a plane. On the 1024 high byte planes of 16384^2 (256 MiB), blocks of 16, 32,
// 64 and 128 KiB give 49.6, 49.8, 50.5 and 52.2 MiB (libdeflate's level 1: 50.1 MiB), and 32
// KiB encode fastest: 650 MB/s against 520 for 16 KiB, where making each block's codes shows.
inline constexpr size_t kRleBlockBytes = size_t{32} << 10;

}  // namespace grundy::io
