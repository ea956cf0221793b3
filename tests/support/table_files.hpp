// Tables the CLI tests compare files with: the engine's table in memory, and a stored file read
// back whole against it.
#pragma once

#include <cstdint>
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

}  // namespace grundy::testing
