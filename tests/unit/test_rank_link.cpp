// The rank logic of grundy-mpi (a strip cut into bands of rows, one per rank, rows changing hands
// as they settle: strip/ranks/rank_link.hpp) run in one process, each rank a thread over an
// in-process link (support/thread_link.hpp): every rank count gives the single process's
// certificate and rows. tests/python/test_mpi.py runs the same through MPI.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "grundy/periods.hpp"
#include "strip/certify/run_hooks.hpp"
#include "support/thread_link.hpp"

namespace grundy {
namespace {

PeriodsOptions options(uint64_t rows) {
    PeriodsOptions o;
    o.rows = rows;
    o.threads = 1;
    o.ring_budget_bytes = uint64_t{1} << 26;
    return o;
}

// Every rank's result (rank 0's holds the rows), each rank a thread.
std::vector<strip::RunResult> certify_on_ranks(uint64_t rows, int ranks) {
    testing::ThreadLinks links(ranks);
    std::vector<strip::RunResult> results(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            strip::RunHooks hooks;
            hooks.link = &links.link(r);
            results[r] = strip::certify_row_periods(options(rows), hooks);
        });
    for (auto& t : threads) t.join();
    return results;
}

void expect_same_rows(const PeriodsResult& ranks, const PeriodsResult& single) {
    EXPECT_EQ(ranks.status, single.status);
    EXPECT_EQ(ranks.x0, single.x0);
    EXPECT_EQ(ranks.period, single.period);
    ASSERT_EQ(ranks.rows.size(), single.rows.size());
    for (size_t i = 0; i < single.rows.size(); ++i) {
        const RowPeriod &a = ranks.rows[i], &b = single.rows[i];
        SCOPED_TRACE("row " + std::to_string(b.row));
        EXPECT_EQ(a.row, b.row);
        EXPECT_EQ(a.certified, b.certified);
        ASSERT_EQ(a.periodicity.has_value(), b.periodicity.has_value());
        if (b.periodicity) {
            EXPECT_EQ(a.periodicity->period, b.periodicity->period);
            EXPECT_EQ(a.periodicity->preperiod, b.periodicity->preperiod);
        }
        EXPECT_EQ(a.block, b.block);
    }
}

TEST(RankLink, RanksGiveTheSingleProcessRows) {
    for (const uint64_t rows : {17u, 100u}) {
        const PeriodsResult single = certify_row_periods(options(rows));
        ASSERT_EQ(single.status, PeriodsResult::Status::Certified);
        for (const int ranks : {1, 2, 3}) {
            SCOPED_TRACE(std::to_string(rows) + " rows on " + std::to_string(ranks) + " ranks");
            const std::vector<strip::RunResult> results = certify_on_ranks(rows, ranks);
            const strip::RunResult& first = results[0];
            EXPECT_EQ(first.ranks.ranks, ranks);
            expect_same_rows(first.periods, single);
            // Every rank knows the certificate; boundaries went up the ranks.
            for (const strip::RunResult& r : results) {
                EXPECT_EQ(r.periods.status, single.status);
                EXPECT_EQ(r.periods.period, single.period);
            }
            EXPECT_EQ(first.ranks.bytes_sent > 0, ranks > 1);
            // The same rows although rows changed hands (with their state and ring) as they
            // settled.
            if (ranks > 1 && rows >= 100) {
                EXPECT_GT(first.ranks.rebalances, 0u);
                EXPECT_GT(first.ranks.rows_moved, 0u);
            }
        }
    }
}

}  // namespace
}  // namespace grundy
