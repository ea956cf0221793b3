// A two-byte chunk's byte planes (the shuffle of HDF5's shuffle filter) made from a tile's
// four-byte values: of its rows as they are, or of its columns, the rows of its mirror.
#pragma once

#include <cstdint>

namespace grundy::base {

// n values into their low bytes (b0) and the bytes above them (b1).
void split_row_2(const uint32_t* src, uint64_t n, uint8_t* b0, uint8_t* b1);

// Columns x_begin..x_end-1 of `values` (w wide and h high, row-major) as the rows of the two
// planes: low[(x - x_begin) * h + y] = byte 0 of values[y * w + x], high[...] its byte 1. Where
// the CPU has AVX-512 VBMI (planes_transpose_has_vbmi), each strip of 16 columns is read 64 rows
// at a time, sixteen cache lines, and turned into its planes in registers (byte permutes, then a
// 16 x 16 transpose of four-byte words); `portable` takes the code for any x86-64 instead: the
// strip transposed into a buffer (transpose_columns), then split_row_2.
void transpose_columns_to_planes(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                                 uint64_t x_end, uint8_t* low, uint8_t* high,
                                 bool portable = false);
bool planes_transpose_has_vbmi();

}  // namespace grundy::base
