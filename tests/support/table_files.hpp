// Tables the CLI tests compare files with: the engine's table in memory, and a stored file read
// back whole against it.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "grundy/engine.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"

namespace grundy::testing {

// The engine's table in memory: what a file written by the binary must hold.
inline MemoryTable table_in_memory(uint64_t rows, uint64_t cols) {
    MemoryTable t;
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    compute_table(o, t);
    return t;
}

// The whole file read back by the library's reader equals `expected`.
inline void expect_file_equals(const std::string& path, const MemoryTable& expected) {
    Hdf5TableReader reader(path);
    ASSERT_EQ(reader.rows(), expected.rows());
    ASSERT_EQ(reader.cols(), expected.cols());
    std::vector<uint32_t> values(reader.rows() * reader.cols());
    reader.read(0, 0, reader.cols(), reader.rows(), values.data());
    EXPECT_EQ(values, expected.values());
}

// Flips 64 bytes in the middle of the stored chunk of /grundy that holds row y, column x, as a
// failing disk might; returns the file's new bytes ("" when the chunk is not stored).
inline std::string damage_chunk(const std::string& path, uint64_t y, uint64_t x) {
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    hid_t h = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(h, "grundy", H5P_DEFAULT);
    const hsize_t offset[2] = {y, x};
    unsigned mask = 0;
    H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, &size);
    H5Dclose(d);
    H5Fclose(h);
    if (addr == HADDR_UNDEF || size < 128) return "";
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (hsize_t k = size / 2; k < size / 2 + 64; ++k) bytes[addr + k] ^= 0x5A;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return bytes;
}

}  // namespace grundy::testing
