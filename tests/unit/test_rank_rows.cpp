// cut_rank_rows: the rows of each MPI rank (strip/ranks/rank_link.hpp). The ranks' results
// themselves are compared with the single process in tests/python/test_mpi.py (mpirun).
#include <gtest/gtest.h>

#include <algorithm>

#include "grundy/error.hpp"
#include "strip/ranks/rank_link.hpp"
#include "strip/strip_config.hpp"

namespace grundy {
namespace {

TEST(RankRows, CoverEveryRowOnceWithTwoRowsOrMoreEach) {
    // With a third of the rows settled (all on rank 0), where the cut leaves room for them.
    for (const uint64_t rows : {2u, 8u, 17u, 100u, 512u, 2048u})
        for (int R = 1; R <= 16; ++R) {
            if (rows < 2u * static_cast<uint64_t>(R)) continue;
            const uint64_t most = rows - 1 - 2 * static_cast<uint64_t>(R - 1);
            const auto s = strip::cut_rank_rows(rows, R, R == 1 ? 0 : std::min(rows / 3, most));
            ASSERT_EQ(s.size(), static_cast<size_t>(R) + 1);
            EXPECT_EQ(s.front(), 0u);
            EXPECT_EQ(s.back(), rows);
            for (int r = 0; r < R; ++r) EXPECT_GE(s[r + 1], s[r] + 2) << rows << " rows, " << R;
        }
}

// The work per column of rows y0..y1-1 that have not settled.
uint64_t work(uint64_t y0, uint64_t y1, uint64_t settled) {
    uint64_t w = 0;
    for (uint64_t y = std::max(y0, settled); y < y1; ++y) w += strip::strip_row_cost(y);
    return w;
}

TEST(RankRows, EqualSharesOfTheRowsNotSettled) {
    // Each rank's work per column within a row's cost of the mean; rank 0 keeps the settled rows
    // and at least one more (a cell of row y costs kStripCostBase + kStripCostPerRow y).
    for (const uint64_t settled : {0u, 100u, 300u, 480u})
        for (const int R : {2, 3, 4}) {
            const auto s = strip::cut_rank_rows(512, R, settled);
            ASSERT_EQ(s.size(), static_cast<size_t>(R) + 1);
            EXPECT_GT(s[1], settled);
            const uint64_t mean = work(0, 512, settled) / static_cast<uint64_t>(R);
            for (int r = 0; r < R; ++r) {
                EXPECT_GE(s[r + 1], s[r] + 2);
                const uint64_t w = work(s[r], s[r + 1], settled);
                EXPECT_LE(std::max(w, mean) - std::min(w, mean), strip::strip_row_cost(512))
                    << settled << " settled, rank " << r << " of " << R;
            }
            EXPECT_LE(
                strip::cut_imbalance(s, settled),
                1.0 + static_cast<double>(strip::strip_row_cost(512)) / static_cast<double>(mean));
        }
    EXPECT_EQ(strip::cut_rank_rows(512, 1, 300), (std::vector<uint64_t>{0, 512}));
}

TEST(RankRows, RankZerosExtraWorkLeavesItFewerRows) {
    // Work rank 0 does besides its rows (measured during a run) counts as part of its share.
    const double extra = 20.0 * static_cast<double>(strip::strip_row_cost(300));
    for (const int R : {2, 4}) {
        const auto plain = strip::cut_rank_rows(512, R, 200);
        const auto s = strip::cut_rank_rows(512, R, 200, extra);
        EXPECT_LT(s[1], plain[1]);
        const double mean = (static_cast<double>(work(0, 512, 200)) + extra) / R;
        EXPECT_NEAR(static_cast<double>(work(0, s[1], 200)) + extra, mean,
                    static_cast<double>(strip::strip_row_cost(512)));
        for (int r = 1; r < R; ++r)
            EXPECT_NEAR(static_cast<double>(work(s[r], s[r + 1], 200)), mean,
                        static_cast<double>(strip::strip_row_cost(512)));
        EXPECT_LT(strip::cut_imbalance(s, 200, extra), strip::cut_imbalance(plain, 200, extra));
    }
}

TEST(RankRows, SettlingUnbalancesTheCutItWasMadeFor) {
    // Rank 0's rows stop costing as they settle: a cut made before has rank 1 doing most of the
    // work, which is what Certification cuts again for.
    const auto s = strip::cut_rank_rows(512, 2);
    EXPECT_NEAR(strip::cut_imbalance(s, 0), 1.0, 0.01);
    // Rows 0..s[1]-2 settled: rank 0 sweeps one row, rank 1 all of its own.
    const double after = strip::cut_imbalance(s, s[1] - 1);
    const auto one = static_cast<double>(strip::strip_row_cost(s[1] - 1)),
               rest = static_cast<double>(work(s[1], 512, 0));
    EXPECT_NEAR(after, 2 * rest / (one + rest), 1e-9);
    EXPECT_GT(after, 1.9);
}

TEST(RankRows, TooManySettledRowsForACutAreAnInternalError) {
    // Rank 0 keeps one unsettled row and every other rank two: 512 - 1 - 2 is the most.
    EXPECT_NO_THROW(strip::cut_rank_rows(512, 2, 509));
    EXPECT_THROW(strip::cut_rank_rows(512, 2, 510), Error);
}

TEST(RankRows, TooFewRowsAreRefused) {
    EXPECT_THROW(strip::cut_rank_rows(7, 4), ArgumentError);
    EXPECT_NO_THROW(strip::cut_rank_rows(8, 4));
}

}  // namespace
}  // namespace grundy
