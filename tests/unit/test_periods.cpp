// Certified row periods (certify_row_periods): published values and seed 001's blocks, agreement
// with the periodicity criterion on a table computed independently by the square engine, the
// strip against that table cell by cell, a damaged state refused, threads. The CLI's
// (checkpoints surviving SIGKILL and SIGTERM, exit statuses) are in cli/test_periods_cli.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <hdf5.h>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/memory_table.hpp"
#include "grundy/periodicity.hpp"
#include "grundy/periods.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/strip_config.hpp"
#include "strip/sweep/strip.hpp"
#include "support/kernel_builds.hpp"
#include "support/periods_results.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using testing::expect_same_certificate;

PeriodsResult certify(uint64_t rows) {
    PeriodsOptions o;
    o.rows = rows;
    const PeriodsResult r = certify_row_periods(o);
    EXPECT_EQ(r.status, PeriodsResult::Status::Certified);
    EXPECT_EQ(r.rows.size(), rows);
    // Every row certified, its period known, periods_observed not applicable (0).
    for (const RowPeriod& row : r.rows) {
        EXPECT_TRUE(row.certified) << row.row;
        if (!row.periodicity)
            ADD_FAILURE() << "row " << row.row << " has no period";
        else
            EXPECT_EQ(row.periodicity->periods_observed, 0u) << row.row;
    }
    return r;
}

TEST(Periods, FirstRowsAndSeedBlocks) {
    const PeriodsResult r = certify(5);
    const std::vector<uint64_t> periods = {1, 3, 3, 6, 12};  // OEIS A004482-A004485
    for (uint64_t y = 0; y < 5; ++y)
        EXPECT_EQ(r.rows[y].periodicity->period, periods[y]) << "row " << y;
    // Seed 001: blocks of g - x + 2y; row 3 repeats from x = 8.
    EXPECT_EQ(r.rows[1].block, (std::vector<uint32_t>{3, 3, 0}));
    EXPECT_EQ(r.rows[2].block, (std::vector<uint32_t>{6, 3, 3}));
    EXPECT_EQ(r.rows[3].block, (std::vector<uint32_t>{8, 9, 4, 2, 9, 4}));
    EXPECT_EQ(r.rows[0].periodicity->preperiod, 0u);
    EXPECT_EQ(r.rows[1].periodicity->preperiod, 0u);
    EXPECT_EQ(r.rows[2].periodicity->preperiod, 0u);
    EXPECT_EQ(r.rows[3].periodicity->preperiod, 8u);
}

MemoryTable table(uint64_t rows, uint64_t cols) {
    MemoryTable t;
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    o.threads = 2;
    compute_table(o, t);
    return t;
}

// Two independent routes: the strip's certificate, and the finite criterion of
// periodicity.hpp on d(x) = g(x, y) - x of a 24 x 8192 table from the square engine.
TEST(Periods, AgreeWithCriterionOnStoredTable) {
    constexpr uint64_t Y = 24, X = 8192;
    const MemoryTable t = table(Y, X);
    const PeriodsResult r = certify(Y);
    std::vector<uint64_t> criterion_rows, table_rows;
    for (uint64_t y = 0; y < Y; ++y) {
        ASSERT_TRUE(r.rows[y].certified && r.rows[y].periodicity) << "row " << y;
        const Periodicity& c = *r.rows[y].periodicity;
        const std::vector<uint32_t>& block = r.rows[y].block;
        std::vector<int64_t> d(X);
        for (uint64_t x = 0; x < X; ++x)
            d[x] = static_cast<int64_t>(t(x, y)) - static_cast<int64_t>(x);
        // The block is g - x + 2y from the preperiod, wherever the table reaches.
        for (uint64_t x = c.preperiod; x < X; ++x)
            ASSERT_EQ(d[x] + 2 * static_cast<int64_t>(y),
                      static_cast<int64_t>(block[(x - c.preperiod) % c.period]))
                << "row " << y << " x " << x;
        // Where the criterion can see the answer (preperiod <= n/2, a few periods after it),
        // it must find exactly the certified values.
        if (c.preperiod <= X / 2 - c.period && c.period <= X / 16) {
            const auto f = find_row_period(d);
            ASSERT_TRUE(f) << "row " << y;
            EXPECT_EQ(f->period, c.period) << "row " << y;
            EXPECT_EQ(f->preperiod, c.preperiod) << "row " << y;
            criterion_rows.push_back(y);
        } else {
            // Otherwise the certified values must hold on the table: periodic from the
            // preperiod on (checked above), and not from one column earlier.
            if (c.preperiod > 0 && c.preperiod - 1 + c.period < X) {
                EXPECT_NE(d[c.preperiod - 1 + c.period], d[c.preperiod - 1]) << "row " << y;
            }
            table_rows.push_back(y);
        }
    }
    // Rows 0..17 (preperiods up to 919) are within the criterion's reach.
    EXPECT_GE(criterion_rows.size(), 18u);
    std::ostringstream s;
    for (auto y : table_rows) s << y << ' ';
    std::cout << "[ info ] rows checked on the table only (preperiod beyond the criterion): "
              << s.str() << std::endl;
}

// The strip's column sweep against the square engine, cell by cell, and a restore from a
// snapshot continuing exactly like the original: every kernel build (a build this CPU cannot
// run is skipped, with the reason).
class PeriodsKernel : public testing::EachKernelBuild {};

TEST_P(PeriodsKernel, StripMatchesTableAndRestores) {
    constexpr uint64_t Y = 24, X = 3000;
    const MemoryTable t = table(Y, X);
    strip::Strip strip(Y, kernel());
    std::vector<uint64_t> g(Y);
    strip::StripSnapshot snap;
    for (uint64_t x = 0; x < X; ++x) {
        strip.advance(g.data());
        for (uint64_t y = 0; y < Y; ++y) ASSERT_EQ(g[y], t(x, y)) << x << "," << y;
        if (x == 1000) strip.snapshot(snap);
    }
    strip::Strip again(Y, kernel());
    again.restore(snap);
    for (uint64_t x = 1001; x < X; ++x) {
        again.advance(g.data());
        for (uint64_t y = 0; y < Y; ++y) ASSERT_EQ(g[y], t(x, y)) << x << "," << y;
    }
}

INSTANTIATE_TEST_SUITE_P(EachBuild, PeriodsKernel, ::testing::ValuesIn(testing::kKernelBuilds),
                         testing::kernel_build_name);

TEST(Periods, DamagedStateIsNotAccepted) {
    strip::Strip strip(24, MexKernel::Auto);
    std::vector<uint64_t> g(24);
    for (int x = 0; x < 777; ++x) strip.advance(g.data());
    strip::StripSnapshot good;
    strip.snapshot(good);
    EXPECT_TRUE(strip.matches(good));
    ASSERT_GT(strip.state_bits(), 0u);
    uint64_t tried = 0;
    for (uint64_t w = 0; w < good.words.size(); ++w)
        for (uint64_t b = 0; b < 64; ++b) {
            strip::StripSnapshot bad = good;
            bad.words[w] ^= uint64_t{1} << b;
            // Padding bits past a segment's end never match a live state either.
            EXPECT_FALSE(strip.matches(bad)) << "word " << w << " bit " << b;
            EXPECT_FALSE(strip::same_state(good, bad));
            ++tried;
        }
    EXPECT_EQ(tried, good.words.size() * 64);
    // A state of the same strip one column later differs too (as it must, here).
    strip.advance(g.data());
    EXPECT_FALSE(strip.matches(good));
}

// The one-pass route (a phase-1 ring that P divides) and the two-pass route (no ring, or a
// ring too short) must give the same rows.
TEST(Periods, RingAndSecondPassAgree) {
    PeriodsOptions o;
    o.rows = 40;
    const PeriodsResult one = certify_row_periods(o);
    EXPECT_FALSE(one.second_pass);
    o.ring_budget_bytes = 0;
    const PeriodsResult two = certify_row_periods(o);
    EXPECT_TRUE(two.second_pass);
    o.ring_budget_bytes = 40 * 2 * 96;  // a ring of 96 columns: P = 768 does not divide it
    const PeriodsResult short_ring = certify_row_periods(o);
    EXPECT_TRUE(short_ring.second_pass);
    for (const PeriodsResult* r : {&two, &short_ring}) {
        EXPECT_EQ(r->x0, one.x0);
        EXPECT_EQ(r->period, one.period);
        ASSERT_EQ(r->rows.size(), one.rows.size());
        for (size_t y = 0; y < one.rows.size(); ++y) {
            ASSERT_TRUE(r->rows[y].periodicity && one.rows[y].periodicity) << y;
            EXPECT_EQ(r->rows[y].periodicity->preperiod, one.rows[y].periodicity->preperiod) << y;
            EXPECT_EQ(r->rows[y].periodicity->period, one.rows[y].periodicity->period) << y;
            EXPECT_EQ(r->rows[y].block, one.rows[y].block) << y;
        }
    }
}

// --- threads -----------------------------------------------------------------------------

// Every cell of every column of `strip`, swept in blocks of the given lengths (cycled).
std::vector<uint64_t> sweep_cells(strip::Strip& strip, uint64_t cols,
                                  const std::vector<uint64_t>& blocks) {
    const uint64_t Y = strip.rows();
    std::vector<uint64_t> cells(cols * Y, ~uint64_t{0});
    const uint64_t first = strip.columns_done();
    for (size_t i = 0; strip.columns_done() < first + cols; ++i) {
        strip::StripBlock b;
        b.columns = std::min(blocks[i % blocks.size()], first + cols - strip.columns_done());
        b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
            for (uint64_t y = y0; y < y1; ++y) cells[(x - first) * Y + y] = g[y - y0];
        };
        strip.advance_block(b);
    }
    return cells;
}

// The pipeline of row bands against the one-thread sweep, cell by cell: odd row counts, 2 and 3
// threads, blocks of 1 column to thousands, and lags from 1 (the lowest band may not start a
// column before the highest has finished the one before) to the default, past the slots'
// wrap-around (column x mod lag, diagonal mod Y + lag); then the states at the end.
TEST(PeriodsThreads, StripMatchesOneThreadCellByCell) {
    struct Case {
        uint64_t rows;
        int threads;
        uint64_t lag;
    };
    for (const Case c : {Case{37, 2, 0}, Case{37, 3, 1}, Case{61, 3, 2}, Case{61, 2, 5},
                         Case{101, 3, 0}, Case{17, 2, 3}}) {
        SCOPED_TRACE("rows " + std::to_string(c.rows) + " threads " + std::to_string(c.threads) +
                     " lag " + std::to_string(c.lag));
        const uint64_t cols = 5000;
        strip::Strip one(c.rows, MexKernel::Auto, 1);
        const std::vector<uint64_t> ref = sweep_cells(one, cols, {cols});
        strip::Strip many(c.rows, MexKernel::Auto, c.threads, c.lag);
        ASSERT_EQ(many.threads(), c.threads);
        const std::vector<uint64_t> got = sweep_cells(many, cols, {1, 7, 300, 1000, 2500});
        for (uint64_t i = 0; i < ref.size(); ++i)
            ASSERT_EQ(got[i], ref[i]) << "x " << i / c.rows << " y " << i % c.rows;
        strip::StripSnapshot a, b;
        one.snapshot(a);
        many.snapshot(b);
        EXPECT_TRUE(strip::same_state(a, b));
        EXPECT_TRUE(many.matches(a));
    }
}

// Beyond 8 threads, bands of 64 rows or more (2 a thread at least) and a lag of 2 chunks a
// thread (strip_config.hpp: kStripTileRows, kStripLagChunksPerThread); up to 8, 4 bands a thread.
// 12 threads over 1100 rows: 24 bands, a lag of 6144 columns, swept past its wrap-around.
TEST(PeriodsThreads, ManyThreadsCutWiderBandsAndKeepEveryCell) {
    EXPECT_EQ(strip::Strip(2048, MexKernel::Auto, 2).bands(), 8u);
    EXPECT_EQ(strip::Strip(2048, MexKernel::Auto, 8).bands(), 32u);
    EXPECT_EQ(strip::Strip(2048, MexKernel::Auto, 16).bands(), 32u);
    const uint64_t Y = 1100, cols = 7000;
    strip::Strip one(Y, MexKernel::Auto, 1);
    const std::vector<uint64_t> ref = sweep_cells(one, cols, {cols});
    strip::Strip many(Y, MexKernel::Auto, 12);
    ASSERT_EQ(many.bands(), 24u);
    const std::vector<uint64_t> got = sweep_cells(many, cols, {6500, 500});
    ASSERT_EQ(got, ref);
    strip::StripSnapshot a;
    one.snapshot(a);
    EXPECT_TRUE(many.matches(a));
}

// The bands' comparison with a saved state, column by column, against the one-thread strip's
// matches(); a state saved by one thread count restored into another, continuing identically.
TEST(PeriodsThreads, ComparisonsAndRestoresAcrossThreadCounts) {
    // The strip of 21 rows is periodic (P = 384) before column 2400, so the state saved there
    // comes back twice in the next 999 columns.
    constexpr uint64_t Y = 21;
    strip::Strip one(Y, MexKernel::Auto, 1);
    std::vector<uint64_t> g(Y);
    for (uint64_t x = 0; x <= 2400; ++x) one.advance(g.data());
    strip::StripSnapshot saved;
    one.snapshot(saved);  // after column 2400
    std::vector<uint8_t> expected;
    for (uint64_t x = 2401; x < 3400; ++x) {
        one.advance(g.data());
        expected.push_back(one.matches(saved) ? 1 : 0);
    }
    ASSERT_GE(std::count(expected.begin(), expected.end(), 1), 2);  // it does repeat
    for (int threads : {2, 3}) {
        strip::Strip many(Y, MexKernel::Auto, threads, 3);
        many.restore(saved);
        strip::StripBlock b;
        b.columns = 999;
        std::vector<uint32_t> matched_rows;
        b.compare = &saved;
        b.matched_rows = &matched_rows;
        many.advance_block(b);
        std::vector<uint8_t> matched;
        for (const uint32_t m : matched_rows) matched.push_back(m == Y ? 1 : 0);
        EXPECT_EQ(matched, expected) << threads << " threads";
        strip::StripSnapshot end_one, end_many;
        one.snapshot(end_one);
        many.snapshot(end_many);
        EXPECT_TRUE(strip::same_state(end_one, end_many)) << threads << " threads";
    }
}

// Settled rows (Strip::settle): the lowest rows' values taken from a ring of earlier columns
// instead of a mex give the same cells and the same states as the plain sweep, for 1, 2 and 3
// threads; and a wrong period (rows that are not periodic with it) gives other cells, so the
// comparison can fail. The sub-strip of rows 0..20 repeats with P = 384 from column 2400
// (ComparisonsAndRestoresAcrossThreadCounts).
TEST(PeriodsThreads, SettledRowsGiveTheSameCells) {
    constexpr uint64_t Y = 45, S = 21, P = 384, L = 3 * P, first = 2401 + P, cols = 3000;
    strip::Strip plain(Y, MexKernel::Auto, 1);
    const std::vector<uint64_t> head = sweep_cells(plain, first, {first});
    const std::vector<uint64_t> ref = sweep_cells(plain, cols, {cols});
    // The ring the strip reads: g - x + 2y of every column at (x mod L) * Y + y.
    std::vector<uint16_t> ring(L * Y);
    auto record = [&](uint64_t x, uint64_t y, uint64_t g) {
        ring[(x % L) * Y + y] = static_cast<uint16_t>(g + 2 * y - x);
    };
    for (uint64_t i = 0; i < head.size(); ++i) record(i / Y, i % Y, head[i]);
    for (const auto& [threads, period] : {std::pair{1, P}, {2, P}, {3, P}, {2, uint64_t{3}}}) {
        SCOPED_TRACE(std::to_string(threads) + " threads, period " + std::to_string(period));
        strip::Strip strip(Y, MexKernel::Auto, threads, 3);
        sweep_cells(strip, first, {first});
        std::vector<uint16_t> live(ring);
        strip::SettledRows settled;
        settled.rows = S;
        settled.period = period;
        settled.values = live.data();
        settled.length = L;
        settled.stride = Y;
        strip.settle(settled);
        std::vector<uint64_t> got(cols * Y);
        strip::StripBlock b;
        b.columns = cols;
        b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
            for (uint64_t y = y0; y < y1; ++y) {
                got[(x - first) * Y + y] = g[y - y0];
                live[(x % L) * Y + y] = static_cast<uint16_t>(g[y - y0] + 2 * y - x);
            }
        };
        strip.advance_block(b);
        if (period != P) {
            EXPECT_NE(got, ref);
            continue;
        }
        for (uint64_t i = 0; i < ref.size(); ++i)
            ASSERT_EQ(got[i], ref[i]) << "x " << first + i / Y << " y " << i % Y;
        strip::StripSnapshot a, c;
        plain.snapshot(a);
        strip.snapshot(c);
        EXPECT_TRUE(strip::same_state(a, c));
    }
}

// Rows 0..255 certified by the strip (settled rows, threads) are those of the committed 512-row
// result, computed by a strip without settled rows (jobs/results/README.md).
TEST(PeriodsThreads, Rows256MatchTheCommittedResult) {
    PeriodsOptions o;
    o.rows = 256;
    o.threads = 2;
    o.keep_blocks = false;
    const PeriodsResult r = certify_row_periods(o);
    ASSERT_EQ(r.status, PeriodsResult::Status::Certified);
    std::ifstream in(std::string(GRUNDY_SOURCE_DIR) + "/jobs/results/row-periods-512.csv");
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    ASSERT_EQ(line.rfind("row,preperiod,period,certified", 0), 0u);
    for (const RowPeriod& row : r.rows) {
        ASSERT_TRUE(std::getline(in, line));
        std::ostringstream expected;
        expected << row.row << ',' << row.periodicity->preperiod << ',' << row.periodicity->period
                 << ",1,";
        EXPECT_EQ(line, expected.str());
    }
}

// A run stopped while rows are settled keeps them in its checkpoint (their periodicity was
// proved before it), and the resumed run, settled from the start, ends with the same results as
// a run without a stop.
TEST(PeriodsThreads, CheckpointKeepsTheSettledRows) {
    const fs::path ck = fs::temp_directory_path() / ("grundy_settled_" + std::to_string(getpid()));
    fs::remove(ck);
    PeriodsOptions o;
    o.rows = 100;
    o.threads = 2;
    const PeriodsResult whole = certify_row_periods(o);
    ASSERT_EQ(whole.status, PeriodsResult::Status::Certified);
    std::atomic<bool> stop{false};
    PeriodsProgress progress;
    o.checkpoint = ck.string();
    o.checkpoint_every = 1e9;  // only the checkpoint of the stop
    o.cancel = &stop;
    o.progress = &progress;
    // The run's observer asks for the stop after the first block that ends with rows settled,
    // as a signal would: the production blocks, at a chosen moment. Those of 100 rows end at
    // columns 201, 65737 (71 rows settled), 131273 (90) and 196809 (all: the state has repeated,
    // x0 = 177944), then 202521 (the run's end): the stop comes at 131273, in the cycle search.
    strip::RunHooks hooks;
    hooks.after_block = [&](uint64_t) {
        if (progress.settled_rows.load() > 0) stop.store(true);
    };
    const PeriodsResult stopped = strip::certify_row_periods(o, hooks).periods;
    ASSERT_EQ(stopped.status, PeriodsResult::Status::Interrupted);
    EXPECT_EQ(stopped.column, 201 + 2 * strip::kBlockColumns);
    const strip::SearchState saved = strip::load_checkpoint(
        ck.string(), o.rows, strip::Strip(o.rows, MexKernel::Auto).state_words(), 0, o.rows);
    EXPECT_FALSE(saved.found);
    EXPECT_GE(saved.settled_rows, 71u);
    EXPECT_LT(saved.settled_rows, o.rows);
    EXPECT_GT(saved.settled_period, 0u);
    ASSERT_FALSE(saved.settled_since.empty());
    EXPECT_EQ(saved.settled_since.back().first, saved.settled_rows);
    stop.store(false);
    o.resume = true;
    PeriodsProgress again;
    o.progress = &again;
    const PeriodsResult resumed = certify_row_periods(o);
    fs::remove(ck);
    ASSERT_EQ(resumed.status, PeriodsResult::Status::Certified);
    EXPECT_TRUE(resumed.resumed);
    expect_same_certificate(resumed, whole);
}

// The observer of internal runs sees every block, and the blocks are the production ones: a test
// that stops a run through it exercises the same block layout as a real run. Those of 100 rows
// (x0 = 177944, a ring of 24576 columns: one pass) end at columns 201 (2Y + 1), then every
// kBlockColumns up to 196809, then at x0 + ring + 1 = 202521, the run's end, which is not
// observed.
TEST(PeriodsThreads, ObserverSeesTheProductionBlocks) {
    PeriodsOptions o;
    o.rows = 100;
    o.threads = 2;
    std::vector<uint64_t> blocks;
    strip::RunHooks hooks;
    hooks.after_block = [&](uint64_t n) { blocks.push_back(n); };
    const PeriodsResult r = strip::certify_row_periods(o, hooks).periods;
    ASSERT_EQ(r.status, PeriodsResult::Status::Certified);
    const PeriodsResult plain = certify_row_periods(o);
    expect_same_certificate(r, plain);
    ASSERT_FALSE(r.second_pass);
    const uint64_t K = strip::kBlockColumns;
    EXPECT_EQ(blocks, (std::vector<uint64_t>{2 * o.rows + 1, K, K, K}));
    // Every column of phase 1 is in some block; the last, past x0, ends the run unobserved.
    uint64_t columns = 0;
    for (const uint64_t n : blocks) columns += n;
    EXPECT_EQ(r.columns_swept, r.x0 + r.ring_len + 1);
    EXPECT_GT(columns, r.x0);
    EXPECT_LT(columns, r.columns_swept);
}

// certify_row_periods with 1, 2 and 3 threads: the same certificate and rows, through the
// one-pass route and the two-pass one (no ring).
TEST(PeriodsThreads, CertificatesAgree) {
    for (uint64_t ring : {uint64_t{1} << 30, uint64_t{0}}) {
        PeriodsOptions o;
        o.rows = 43;
        o.ring_budget_bytes = ring;
        o.threads = 1;
        const PeriodsResult one = certify_row_periods(o);
        ASSERT_EQ(one.status, PeriodsResult::Status::Certified);
        EXPECT_EQ(one.second_pass, ring == 0);
        for (int threads : {2, 3}) {
            o.threads = threads;
            const PeriodsResult r = certify_row_periods(o);
            SCOPED_TRACE(std::to_string(threads) + " threads, ring " + std::to_string(ring));
            ASSERT_EQ(r.status, PeriodsResult::Status::Certified);
            EXPECT_EQ(r.threads, threads);
            EXPECT_EQ(r.second_pass, one.second_pass);
            EXPECT_EQ(r.ring_len, one.ring_len);
            expect_same_certificate(r, one);
        }
    }
}

}  // namespace
}  // namespace grundy
