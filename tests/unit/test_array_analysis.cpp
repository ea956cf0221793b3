// The analyses over a table in memory (grundy/array_analysis.hpp) against the same analyses of
// the same table stored in a file: equal results on correct tables and on tables with one
// wrong cell, from 16-bit and 32-bit arrays, with a row stride wider than the table.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "grundy/array_analysis.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "support/analysis_fixtures.hpp"

namespace grundy::testing {
namespace {

struct Arrays {
    std::vector<uint32_t> v32;
    std::vector<uint16_t> v16;
    uint64_t rows, cols, stride;
    TableArray a32() const { return {rows, cols, stride, nullptr, v32.data()}; }
    TableArray a16() const { return {rows, cols, stride, v16.data(), nullptr}; }
};

// The file's table, copied into both kinds of array with `pad` unused values after each row.
Arrays arrays_of(const Hdf5TableReader& file, uint64_t pad) {
    Arrays a{{}, {}, file.rows(), file.cols(), file.cols() + pad};
    a.v32.assign(a.rows * a.stride, 0xdead);
    file.read(0, 0, a.cols, a.rows, a.v32.data(), a.stride);
    a.v16.assign(a.v32.begin(), a.v32.end());
    return a;
}

void expect_same(const Hdf5TableReader& file, const TableArray& array) {
    EXPECT_EQ(testing::periods_text(row_periods(array, 2)),
              testing::periods_text(row_periods(file, 2)));
    const VerifyReport va = verify_table(array, 2), vf = verify_table(file, 2);
    // A failed verify stops after the band of its wrong cell: bands differ in width.
    if (vf.ok()) {
        EXPECT_EQ(va.cells_checked, vf.cells_checked);
    }
    EXPECT_EQ(va.ok() ? "ok" : va.wrong->describe(), vf.ok() ? "ok" : vf.wrong->describe());
    const PPositionReport pa = check_ppositions(array, 2), pf = check_ppositions(file, 2);
    EXPECT_EQ(pa.zeros, pf.zeros);
    EXPECT_EQ(pa.expected, pf.expected);
    EXPECT_EQ(pa.first_disagreement.value_or("ok"), pf.first_disagreement.value_or("ok"));
    EXPECT_EQ(properties_text(check_properties(array, 2)),
              properties_text(check_properties(file, 2)));
}

TEST(ArrayAnalysis, SameResultsAsTheFile) {
    ScratchDir dir;
    for (const auto& [rows, cols] : {std::pair<uint64_t, uint64_t>{70, 300}, {300, 70}, {1, 90}}) {
        const std::string path = dir.file("t.h5");
        write_table(path, rows, cols, 16);
        const Hdf5TableReader file(path);
        const Arrays a = arrays_of(file, 5);
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
        expect_same(file, a.a32());
        expect_same(file, a.a16());
        EXPECT_TRUE(verify_table(a.a16()).ok());
        EXPECT_TRUE(check_properties(a.a32()).ok());
    }
}

// The passes on a table computed into memory, never written: rows 0-4 have the periods of
// OEIS A004482-A004485, and every check passes.
TEST(ArrayAnalysis, MemoryTableWithoutAFile) {
    MemoryTable t;
    EngineOptions o;
    o.rows = 6;
    o.cols = 2048;
    compute_table(o, t);
    const TableArray a = table_array(t);
    const auto periods = row_periods(a, 2);
    ASSERT_EQ(periods.size(), 6u);
    const uint64_t expected[] = {1, 3, 3, 6, 12};
    for (int y = 0; y < 5; ++y) {
        ASSERT_TRUE(periods[y].periodicity) << y;
        EXPECT_EQ(periods[y].periodicity->period, expected[y]) << y;
    }
    EXPECT_TRUE(verify_table(a, 2).ok());
    EXPECT_TRUE(check_ppositions(a, 2).ok());
    EXPECT_TRUE(check_properties(a, 2).ok());
}

TEST(ArrayAnalysis, OneWrongCellIsNamedAsInTheFile) {
    ScratchDir dir;
    const std::string path = dir.file("bad.h5");
    write_table(path, 90, 260, 16);
    corrupt_cell(path, 200, 40, 7);
    const Hdf5TableReader file(path);
    const Arrays a = arrays_of(file, 0);
    expect_same(file, a.a32());
    expect_same(file, a.a16());
    const VerifyReport v = verify_table(a.a16());
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.wrong->x, 200u);
    EXPECT_EQ(v.wrong->y, 40u);
    EXPECT_FALSE(check_properties(a.a32()).ok());
}

TEST(ArraySink, SameTableAsMemoryTableAtEitherWidth) {
    EngineOptions o;
    o.rows = 77;
    o.cols = 131;
    o.tile = 16;
    o.threads = 2;
    MemoryTable reference;
    compute_table(o, reference);
    std::vector<uint16_t> v16(o.rows * (o.cols + 3), 0xffff);
    std::vector<uint32_t> v32(o.rows * o.cols, 0xffffffff);
    ArraySink<uint16_t> s16(v16.data(), o.cols + 3);
    ArraySink<uint32_t> s32(v32.data(), o.cols);
    compute_table(o, s16);
    compute_table(o, s32);
    for (uint64_t y = 0; y < o.rows; ++y)
        for (uint64_t x = 0; x < o.cols; ++x) {
            ASSERT_EQ(v16[y * (o.cols + 3) + x], reference(x, y)) << x << ", " << y;
            ASSERT_EQ(v32[y * o.cols + x], reference(x, y)) << x << ", " << y;
        }
    EXPECT_EQ(v16[o.cols], 0xffff);  // the padding is left alone
}

TEST(ArrayAnalysis, BadViewsAreRefused) {
    const std::vector<uint32_t> values(12, 0);
    EXPECT_THROW(row_periods(TableArray{3, 4, 0, nullptr, nullptr}), Error);
    EXPECT_THROW(verify_table(TableArray{3, 4, 2, nullptr, values.data()}), Error);
}

}  // namespace
}  // namespace grundy::testing
