// The row periods of the analysis (row_period, row_periods) against published values (OEIS row
// periods, seed 001's blocks), synthetic rows of a known period, and the criterion's definition
// (find_period). The other passes are test_analysis.cpp's.
#include <gtest/gtest.h>

#include <random>

#include "grundy/analysis.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/periodicity.hpp"
#include "support/analysis_fixtures.hpp"
#include "support/reference.hpp"

namespace grundy {
namespace {

using namespace testing;  // tests/support: scratch directories, the CLI, tables

// Row periods 1, 3, 3, 6, 12 of rows 0-4: OEIS A004482-A004485 (and row 0: g(x, 0) = x).
TEST(AnalysisPeriods, PublicPeriodsOfRowsZeroToFour) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 6, 2048);
    const Hdf5TableReader table(path);
    const auto periods = row_periods(table, 2);
    ASSERT_EQ(periods.size(), 6u);
    const uint64_t expected[] = {1, 3, 3, 6, 12};
    for (uint64_t y = 0; y < 5; ++y) {
        ASSERT_TRUE(periods[y].periodicity) << "row " << y;
        EXPECT_EQ(periods[y].periodicity->period, expected[y]) << "row " << y;
        EXPECT_EQ(periods[y].row, y);
    }
}

// Seed 001's repeating blocks of g - x + 2y, row 3 from x0 = 8; checked against a direct-mex
// table as well, so neither the engine nor the file path is trusted.
TEST(AnalysisPeriods, SeedBlocks) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 4, 512, 64);
    const auto periods = row_periods(Hdf5TableReader(path));
    EXPECT_EQ(periods[1].block, (std::vector<uint32_t>{3, 3, 0}));
    EXPECT_EQ(periods[2].block, (std::vector<uint32_t>{6, 3, 3}));
    ASSERT_TRUE(periods[3].periodicity);
    EXPECT_EQ(periods[3].periodicity->preperiod, 8u);
    EXPECT_EQ(periods[3].block, (std::vector<uint32_t>{8, 9, 4, 2, 9, 4}));

    const auto direct = testing::direct_mex_table(4, 512);
    for (uint64_t y = 1; y < 4; ++y) {
        const auto r = row_period(std::span<const uint32_t>(direct.data() + y * 512, 512), y);
        EXPECT_EQ(r.block, periods[y].block) << "row " << y;
    }
}

// Synthetic rows with a known period, preperiod and block: g(x) = x - 2y + s(x).
TEST(AnalysisPeriods, SyntheticRowReportsBlockAndCounts) {
    const uint64_t y = 5;
    std::vector<uint32_t> row;
    const std::vector<int64_t> block = {4, 1, 1, 7, 2};
    for (uint64_t x = 0; x < 1000; ++x) {
        const int64_t s = x < 13 ? 100 + static_cast<int64_t>(x) : block[(x - 13) % 5];
        row.push_back(static_cast<uint32_t>(static_cast<int64_t>(x) - 2 * y + s + 20));
    }
    const RowPeriod r = row_period(row, y);
    ASSERT_TRUE(r.periodicity);
    EXPECT_EQ(r.periodicity->period, 5u);
    EXPECT_EQ(r.periodicity->preperiod, 13u);
    EXPECT_EQ(r.periodicity->periods_observed, (1000u - 13u) / 5u);
    EXPECT_EQ(r.block, (std::vector<uint32_t>{24, 21, 21, 27, 22}));
}

// A block holds g - x + 2y in 32 bits (RowPeriod): up to row (2^32 - 1) / 3 whatever the
// values, and a row whose block would not fit (above that row, or below Wythoff's bounds) keeps
// its period but has no block.
TEST(AnalysisPeriods, BlockOutside32BitsIsLeftEmpty) {
    constexpr uint64_t top = 1431655765;  // 3 * top = 2^32 - 1
    std::vector<uint32_t> row;
    for (uint32_t x = 0; x < 64; ++x) row.push_back(x + uint32_t{top});  // g = x + y: 3y
    RowPeriod r = row_period(row, top);
    ASSERT_TRUE(r.periodicity);
    EXPECT_FALSE(r.certified);
    EXPECT_EQ(r.periodicity->period, 1u);
    EXPECT_EQ(r.block, (std::vector<uint32_t>{UINT32_MAX}));
    r = row_period(row, top + 1);  // d + 2y = 2^32 + 1
    ASSERT_TRUE(r.periodicity);
    EXPECT_EQ(r.periodicity->period, 1u);
    EXPECT_TRUE(r.block.empty());
    row.assign(64, 0);
    for (uint32_t x = 1; x < 64; ++x) row[x] = x - 1;  // d(x) = -1 from x = 1: block -1 in row 0
    r = row_period(row, 0);
    ASSERT_TRUE(r.periodicity);
    EXPECT_EQ(r.periodicity->preperiod, 1u);
    EXPECT_TRUE(r.block.empty());
}

// row_period searches d(x) = g(x, y) - x straight from the stored values: it must agree with
// the criterion's definition (find_period over d built in full) on random rows, periodic ones
// with and without a defect, at every edge of the bounds.
TEST(AnalysisPeriods, RowPeriodOfStoredValuesMatchesTheCriterion) {
    std::mt19937_64 rng(23);
    int determined = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const uint64_t n = rng() % 300, y = rng() % 50;
        const uint64_t period = 1 + rng() % (n / 3 + 2), pre = rng() % (n / 2 + 8);
        const int64_t alphabet = 1 + static_cast<int64_t>(rng() % 4);
        std::vector<int64_t> block(period), d(n);
        for (auto& b : block) b = static_cast<int64_t>(rng() % static_cast<uint64_t>(alphabet));
        for (uint64_t x = 0; x < n; ++x)
            d[x] = x < pre ? static_cast<int64_t>(rng() % static_cast<uint64_t>(alphabet))
                           : block[(x - pre) % period];
        if (n > 0 && rng() % 4 == 0) d[rng() % n] += 1;  // one defect anywhere
        for (auto& v : d) v += 100;                      // so that every g(x, y) = x + d(x) is >= 0
        std::vector<uint32_t> row(n);
        for (uint64_t x = 0; x < n; ++x)
            row[x] = static_cast<uint32_t>(static_cast<int64_t>(x) + d[x]);
        const auto expected = find_period(d, n / 4, n / 2);
        const RowPeriod got = row_period(row, y);
        ASSERT_EQ(got.row, y);
        ASSERT_EQ(got.periodicity.has_value(), expected.has_value()) << "trial " << trial;
        if (!expected) {
            ASSERT_TRUE(got.block.empty());
            continue;
        }
        ++determined;
        ASSERT_EQ(got.periodicity->period, expected->period) << "trial " << trial;
        ASSERT_EQ(got.periodicity->preperiod, expected->preperiod) << "trial " << trial;
        ASSERT_EQ(got.periodicity->periods_observed, expected->periods_observed);
        std::vector<uint32_t> want;  // every d + 2y here is in 0..2^32-1
        for (uint64_t x = expected->preperiod; x < expected->preperiod + expected->period; ++x)
            want.push_back(static_cast<uint32_t>(d[x] + 2 * static_cast<int64_t>(y)));
        ASSERT_EQ(got.block, want) << "trial " << trial;
    }
    EXPECT_GT(determined, 5000) << "too few periodic cases to mean anything";
}

TEST(AnalysisPeriods, AperiodicRowIsUndetermined) {
    std::vector<uint32_t> row;
    for (uint32_t x = 0; x < 600; ++x) row.push_back(x + (x * x % 1009));
    const RowPeriod r = row_period(row, 0);
    EXPECT_FALSE(r.periodicity);
    EXPECT_TRUE(r.block.empty());
}

}  // namespace
}  // namespace grundy
