// cut_rank_rows: the rows of each MPI rank (strip/rank_link.hpp). The ranks' results themselves
// are compared with the single process in tests/python/test_mpi.py (mpirun).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/config.hpp"
#include "grundy/error.hpp"
#include "strip/rank_link.hpp"

namespace grundy {
namespace {

TEST(RankRows, CoverEveryRowOnceWithTwoRowsOrMoreEach) {
    for (const uint64_t rows : {2u, 8u, 17u, 100u, 512u, 2048u})
        for (int R = 1; R <= 16; ++R) {
            if (rows < 2u * static_cast<uint64_t>(R)) continue;
            const auto s = strip::cut_rank_rows(rows, R);
            ASSERT_EQ(s.size(), static_cast<size_t>(R) + 1);
            EXPECT_EQ(s.front(), 0u);
            EXPECT_EQ(s.back(), rows);
            for (int r = 0; r < R; ++r) EXPECT_GE(s[r + 1], s[r] + 2) << rows << " rows, " << R;
        }
}

TEST(RankRows, RankZeroTakesMoreRowsBecauseTheySettle) {
    // Rank 0's rows stop costing once they repeat; the others' are swept to the end, so rank 0
    // gets more rows than all the others together, and ranks 1.. equal shares of the rest's
    // work (a cell of row y costs kStripCostBase + kStripCostPerRow y), to a row.
    const auto s = strip::cut_rank_rows(512, 4);
    EXPECT_GT(s[1], 512 - s[1]);
    auto work = [](uint64_t y0, uint64_t y1) {
        uint64_t w = 0;
        for (uint64_t y = y0; y < y1; ++y) w += engine::strip_row_cost(y);
        return w;
    };
    const uint64_t a = work(s[1], s[2]), b = work(s[2], s[3]), c = work(s[3], s[4]);
    const uint64_t row = engine::strip_row_cost(512);
    EXPECT_LE(std::max(a, b) - std::min(a, b), 2 * row);
    EXPECT_LE(std::max(b, c) - std::min(b, c), 2 * row);
    EXPECT_EQ(strip::cut_rank_rows(512, 1), (std::vector<uint64_t>{0, 512}));
}

TEST(RankRows, TooFewRowsAreRefused) {
    EXPECT_THROW(strip::cut_rank_rows(7, 4), ArgumentError);
    EXPECT_NO_THROW(strip::cut_rank_rows(8, 4));
}

}  // namespace
}  // namespace grundy
