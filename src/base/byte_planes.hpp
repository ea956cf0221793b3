// A two-byte chunk's byte planes (the shuffle of HDF5's shuffle filter) made from a tile's
// four-byte values: of its rows as they are, or of its columns, the rows of its mirror.
#pragma once

#include <cstdint>

namespace grundy::base {

// n values into their low bytes (b0) and the bytes above them (b1).
void split_row_2(const uint32_t* src, uint64_t n, uint8_t* b0, uint8_t* b1);

// Which code transpose_columns_to_planes takes: the fastest this CPU has, the AVX2 code (where
// the CPU has AVX2), or the code for any x86-64. The same bytes; tests compare them.
enum class PlanesCode { best, avx2, portable };

// Columns x_begin..x_end-1 of `values` (w wide and h high, row-major) as the rows of the two
// planes: low[(x - x_begin) * h + y] = byte 0 of values[y * w + x], high[...] its byte 1. Each
// strip of 16 columns is read a block of rows at a time, a cache line a row, and turned into its
// planes in registers: 64 rows with AVX-512 VBMI (byte permutes, then a 16 x 16 transpose of
// four-byte words), else 16 rows with AVX2 (16-bit blends and byte shuffles, then 4 x 8
// transposes of words). The portable code transposes the strip into a buffer
// (transpose_columns), then split_row_2: on a Zen 3 core it takes 1.4 times as long as the AVX2
// code on a 512 tile (build/grundy_bench_planes, docs/benchmarks.md).
void transpose_columns_to_planes(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                                 uint64_t x_end, uint8_t* low, uint8_t* high,
                                 PlanesCode code = PlanesCode::best);
bool planes_transpose_has_vbmi();
bool planes_transpose_has_avx2();

}  // namespace grundy::base
