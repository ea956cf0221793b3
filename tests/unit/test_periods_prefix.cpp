// The rows a stopped certification had certified (certify_row_periods returns them whatever its
// status): exactly those of a run that finished, blocks included, at every stop; through phase 2
// too, where they come from phase 1's ring.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "grundy/periods.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;

// Every row of `part` (rows 0..k-1) equal, block included, to the finished run's row.
void expect_rows_of(const PeriodsResult& part, const PeriodsResult& whole) {
    ASSERT_LE(part.rows.size(), whole.rows.size());
    for (uint64_t y = 0; y < part.rows.size(); ++y) {
        const RowPeriod& r = part.rows[y];
        EXPECT_EQ(r.row, y);
        EXPECT_TRUE(r.certified) << y;
        ASSERT_TRUE(r.periodicity && whole.rows[y].periodicity) << y;
        EXPECT_EQ(r.periodicity->preperiod, whole.rows[y].periodicity->preperiod) << y;
        EXPECT_EQ(r.periodicity->period, whole.rows[y].periodicity->period) << y;
        EXPECT_EQ(r.block, whole.rows[y].block) << y;
    }
}

// Stopped at --max-cols at several columns, on 1 and 2 threads: the settled rows, more at each,
// with their blocks, are the finished run's; and where the run stopped is said.
TEST(PeriodsPrefix, MaxColsKeepsTheSettledRowsWithTheirBlocks) {
    PeriodsOptions o;
    o.rows = 96;
    o.threads = 2;
    const PeriodsResult whole = certify_row_periods(o);
    ASSERT_EQ(whole.status, PeriodsResult::Status::Certified);
    ASSERT_EQ(whole.rows.size(), 96u);
    uint64_t before = 0;
    for (const uint64_t columns : {20000u, 60000u, 150000u}) {
        for (const int threads : {1, 2}) {
            o.threads = threads;
            o.max_cols = columns;
            const PeriodsResult r = certify_row_periods(o);
            SCOPED_TRACE(std::to_string(columns) + " columns, " + std::to_string(threads) +
                         " threads");
            ASSERT_EQ(r.status, PeriodsResult::Status::NotCertified);
            EXPECT_EQ(r.rows_asked, 96u);
            EXPECT_EQ(r.column, columns);
            EXPECT_EQ(r.phase, 1);
            EXPECT_GE(r.rows.size(), before);
            EXPECT_LT(r.rows.size(), 96u);
            expect_rows_of(r, whole);
            if (threads == 2) before = r.rows.size();
        }
    }
    EXPECT_GT(before, 30u);
}

// Rows settle at a block's end (65536 columns), but each repeat is kept from the column where it
// began: a stopped run holds the rows of every repeat that began a ring length before the stop,
// not only of those noted a ring length before it. 160 rows stopped at 150000 columns (a ring
// of 98304): rows of repeats noted in the block that ends at 65857 (it was none of them when
// that block's end counted). Each repeat's column lies past every preperiod of its rows.
TEST(PeriodsPrefix, StoppedRunKeepsEachRepeatFromItsFirstColumn) {
    PeriodsOptions o;
    o.rows = 160;
    o.threads = 2;
    const PeriodsResult whole = certify_row_periods(o);
    ASSERT_EQ(whole.status, PeriodsResult::Status::Certified);
    const fs::path ck = fs::temp_directory_path() / ("grundy_repeat_" + std::to_string(getpid()));
    fs::remove(ck);
    o.checkpoint = ck.string();
    o.max_cols = 150000;
    const PeriodsResult r = certify_row_periods(o);
    ASSERT_EQ(r.status, PeriodsResult::Status::NotCertified);
    expect_rows_of(r, whole);
    const strip::SearchState saved = strip::load_checkpoint(
        ck.string(), o.rows, strip::Strip(o.rows, MexKernel::Auto).state_words(), 0, o.rows);
    ASSERT_GT(saved.ring_len, 0u);
    ASSERT_FALSE(saved.settled_since.empty());
    uint64_t kept = 0, rows_before = 0, column_before = 0;
    for (const auto& [rows, column] : saved.settled_since) {
        EXPECT_GT(rows, rows_before);
        EXPECT_GE(column, column_before);
        for (uint64_t y = 0; y < rows; ++y)
            EXPECT_LE(whole.rows[y].periodicity->preperiod, column) << "row " << y;
        if (column + saved.ring_len <= o.max_cols) kept = rows;
        rows_before = rows;
        column_before = column;
    }
    EXPECT_EQ(r.rows.size(), kept);
    EXPECT_GT(kept, 40u);  // repeats that began before column 150000 - 98304
    // The stop at --max-cols saved the checkpoint: resumed, the run goes on from its column.
    o.max_cols = 0;
    o.resume = true;
    const PeriodsResult finished = certify_row_periods(o);
    fs::remove(ck);
    ASSERT_EQ(finished.status, PeriodsResult::Status::Certified);
    EXPECT_EQ(finished.columns_swept + 150000, whole.columns_swept);
    ASSERT_EQ(finished.rows.size(), 160u);
    expect_rows_of(finished, whole);
}

// A ring that the strip's period does not divide: phase 1 certifies and phase 2 sweeps again
// from column 0. Stopped in phase 2, and resumed there, the rows that phase 1's ring gave stay
// certified; the finished run has every row, the same as a run whose ring gave them all.
TEST(PeriodsPrefix, PhaseTwoKeepsThePhaseOneRows) {
    PeriodsOptions o;
    o.rows = 96;  // x0 + P past one block of columns: phase 2 has blocks to stop after
    o.threads = 2;
    const PeriodsResult whole = certify_row_periods(o);
    ASSERT_EQ(whole.status, PeriodsResult::Status::Certified);
    ASSERT_FALSE(whole.second_pass);
    // A ring of 3 * 2^k columns shorter than the strip's period: 2 bytes per row and column.
    o.ring_budget_bytes = whole.period / 2 * 2 * o.rows;
    const fs::path ck = fs::temp_directory_path() / ("grundy_prefix_" + std::to_string(getpid()));
    fs::remove(ck);
    o.checkpoint = ck.string();
    o.checkpoint_every = 1e9;
    std::atomic<bool> stop{false};
    PeriodsProgress progress;
    o.cancel = &stop;
    o.progress = &progress;
    strip::RunHooks hooks;
    hooks.after_block = [&](uint64_t) {
        if (progress.phase.load() == 2) stop.store(true);
    };
    const PeriodsResult stopped = strip::certify_row_periods(o, hooks).periods;
    ASSERT_EQ(stopped.status, PeriodsResult::Status::Interrupted);
    EXPECT_EQ(stopped.phase, 2);
    EXPECT_GT(stopped.rows.size(), 0u);
    EXPECT_LT(stopped.rows.size(), 96u);
    expect_rows_of(stopped, whole);
    // Before the certificate, phase 1 saw more rows than it certified repeat with a period that
    // the ring's length is not a multiple of, and said so: a period of each of those rows.
    const uint64_t repeating = progress.repeating_rows,
                   repeating_period = progress.repeating_period;
    EXPECT_GT(repeating, stopped.rows.size());
    EXPECT_LT(repeating, 96u);
    ASSERT_GT(repeating_period, 0u);
    EXPECT_NE(whole.period / 2 % repeating_period, 0u);
    for (uint64_t y = 0; y < repeating; ++y)
        EXPECT_EQ(repeating_period % whole.rows[y].periodicity->period, 0u) << y;
    // Phase 2's ring holds only the rows phase 1 did not certify, a period of each.
    const strip::SearchState saved = strip::load_checkpoint(
        ck.string(), o.rows, strip::Strip(o.rows, MexKernel::Auto).state_words(), 0, o.rows);
    EXPECT_EQ(saved.phase, 2u);
    EXPECT_EQ(saved.unringed_rows, stopped.rows.size());
    EXPECT_EQ(saved.final_rows.size(), stopped.rows.size());
    EXPECT_EQ(saved.ring_len, whole.period);
    EXPECT_EQ(saved.ring.size(), (o.rows - stopped.rows.size()) * whole.period);
    // Resumed in phase 2 and stopped after its first block (the flag already raised): the same
    // rows, from the checkpoint.
    o.resume = true;
    const PeriodsResult again = certify_row_periods(o);
    ASSERT_EQ(again.status, PeriodsResult::Status::Interrupted);
    EXPECT_EQ(again.rows.size(), stopped.rows.size());
    expect_rows_of(again, whole);
    stop.store(false);
    const PeriodsResult finished = certify_row_periods(o);
    fs::remove(ck);
    ASSERT_EQ(finished.status, PeriodsResult::Status::Certified);
    EXPECT_TRUE(finished.second_pass);
    ASSERT_EQ(finished.rows.size(), 96u);
    expect_rows_of(finished, whole);
}

}  // namespace
}  // namespace grundy
