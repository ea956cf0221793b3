// The Fletcher-32 checksum of HDF5's fletcher32 filter (H5Pset_fletcher32): the checksum that
// every chunk of a table carries after its compression, which any HDF5 reader verifies when
// it reads the chunk and grundy's own chunk decoder verifies too (chunk_codec.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace grundy::io {

// The bytes the filter appends to a chunk: the checksum, little-endian.
inline constexpr size_t kFletcher32Bytes = 4;

// The checksum HDF5's filter computes over n bytes: the data taken as big-endian 16-bit words
// (an odd last byte as the high byte of one more word), sum1 the sum of the words and sum2 the
// sum of the running sums, both modulo 65535 and written 1..65535 (0 only when every byte is
// zero); sum2 << 16 | sum1. Taken 64 bytes a step where the CPU has AVX-512 BW; `portable`
// takes the code for any x86-64 (for tests: the same sums).
uint32_t fletcher32(const uint8_t* data, size_t n, bool portable = false);

// Whether the last kFletcher32Bytes of data[0, n) are the checksum of the bytes before them, as
// HDF5 checks it (it also takes the checksum with the bytes of each half swapped, which HDF5
// before 1.6.3 wrote on little-endian machines).
bool fletcher32_matches(const uint8_t* data, size_t n);

}  // namespace grundy::io
