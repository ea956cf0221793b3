// Compact checkpoints (PeriodsOptions::compact_checkpoints, strip/certify/ring_seed.cpp): a run
// stopped again and again and resumed each time from a file without its ring ends with the
// results of a run that never stopped, its files are a small fraction of the ring's size, and a
// file whose seed does not lead to the state it recorded is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "grundy/error.hpp"
#include "grundy/periods.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/sweep/strip.hpp"
#include "support/periods_results.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using testing::expect_same_certificate;

// 100 rows: x0 = 177944, P = 12288, a ring of L = 24576 columns (one pass); blocks end at
// columns 201, 65737, 131273 and 196809 (strip_config.hpp: kBlockColumns).
constexpr uint64_t kRows = 100;

fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove(p);
    return p;
}

strip::SearchState load(const fs::path& ck) {
    return strip::load_checkpoint(ck.string(), kRows,
                                  strip::Strip(kRows, MexKernel::Auto).state_words(), 0, kRows);
}

// A whole run, never stopped.
PeriodsResult whole_run(int threads) {
    PeriodsOptions o;
    o.rows = kRows;
    o.threads = threads;
    return certify_row_periods(o);
}

// Compact checkpoints to `ck`, written only when the run stops (max_cols).
PeriodsOptions compact_options(const fs::path& ck, int threads) {
    PeriodsOptions o;
    o.rows = kRows;
    o.threads = threads;
    o.checkpoint = ck.string();
    o.checkpoint_every = 1e9;
    o.compact_checkpoints = true;
    return o;
}

// Stops at columns before the first ring length (seeded at column 0), just past it, with rows
// settled, and in the tail after the certificate; each resumes the last one's compact file.
TEST(CompactCheckpoints, StoppedRunsResumeToTheSameResultsInSmallFiles) {
    const fs::path ck = scratch("grundy_compact");
    PeriodsOptions o = compact_options(ck, 2);
    const PeriodsResult whole = whole_run(2);
    ASSERT_EQ(whole.status, PeriodsResult::Status::Certified);
    ASSERT_EQ(whole.ring_len, 24576u);
    o.resume = true;
    uint64_t last_rows = 0;
    for (const uint64_t stop : {20000, 30000, 100000, 150000, 180000, 190000}) {
        o.max_cols = stop;
        const PeriodsResult r = certify_row_periods(o);
        if (stop < whole.x0) {
            ASSERT_EQ(r.status, PeriodsResult::Status::NotCertified) << stop;
            EXPECT_EQ(r.column, stop);
        }
        const strip::SearchState s = load(ck);
        ASSERT_TRUE(s.seed) << stop;
        EXPECT_EQ(s.ring.size(), 0u);
        EXPECT_TRUE(s.strip.words.empty());
        // Seeded at column 0 only within two ring lengths, else a ring length back at least.
        if (s.seed->words.empty())
            EXPECT_LT(s.strip.column, 2 * s.ring_len) << stop;
        else
            EXPECT_LE(s.seed->column + s.ring_len, s.strip.column) << stop;
        // The ring alone would be kRows * L * 2 = 4.9 MB.
        EXPECT_LT(fs::file_size(ck), kRows * s.ring_len * 2 / 100) << stop;
        // What the stopped run certified is what the whole run certified.
        ASSERT_LE(r.rows.size(), whole.rows.size());
        EXPECT_GE(r.rows.size(), last_rows) << stop;
        last_rows = r.rows.size();
        for (size_t y = 0; y < r.rows.size(); ++y)
            EXPECT_EQ(r.rows[y].periodicity->preperiod, whole.rows[y].periodicity->preperiod);
    }
    EXPECT_GE(last_rows, 90u);
    o.max_cols = 0;
    const PeriodsResult resumed = certify_row_periods(o);
    ASSERT_EQ(resumed.status, PeriodsResult::Status::Certified);
    EXPECT_TRUE(resumed.resumed);
    expect_same_certificate(resumed, whole);
    fs::remove(ck);
}

// A checkpoint with its ring, resumed with compact checkpoints, seeds them from the state it
// resumed: its next checkpoint, a ring length later, is compact, and the run ends the same.
TEST(CompactCheckpoints, AFullCheckpointResumedWritesCompactOnes) {
    const fs::path ck = scratch("grundy_compact_full");
    PeriodsOptions o = compact_options(ck, 1);
    const PeriodsResult whole = whole_run(1);
    o.compact_checkpoints = false;
    o.resume = true;
    o.max_cols = 70000;
    certify_row_periods(o);
    EXPECT_FALSE(load(ck).seed);
    o.compact_checkpoints = true;
    o.max_cols = 80000;  // less than a ring length after 70000: no seed yet, the full form
    certify_row_periods(o);
    EXPECT_FALSE(load(ck).seed);
    o.max_cols = 110000;
    certify_row_periods(o);
    const strip::SearchState s = load(ck);
    ASSERT_TRUE(s.seed);
    EXPECT_EQ(s.seed->column, 79999u);
    o.max_cols = 0;
    expect_same_certificate(certify_row_periods(o), whole);
    fs::remove(ck);
}

// A compact file whose recorded state is not the one its seed leads to (here: the CRC of no
// words) is refused when the ring has been swept again, with the file named.
TEST(CompactCheckpoints, AStateTheSeedDoesNotReachIsRefused) {
    const fs::path ck = scratch("grundy_compact_bad");
    PeriodsOptions o = compact_options(ck, 2);
    o.max_cols = 100000;
    certify_row_periods(o);
    strip::SearchState s = load(ck);
    ASSERT_TRUE(s.seed);
    strip::write_checkpoint(ck.string(), s, kRows);  // s.strip.words is empty
    o.resume = true;
    o.max_cols = 0;
    try {
        certify_row_periods(o);
        ADD_FAILURE() << "a state its seed does not reach was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("its seed does not lead to the state it recorded"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(ck.string()), std::string::npos) << e.what();
    }
    fs::remove(ck);
}

// tests/fuzz/corpus/checkpoint/compact-seeded: a compact file of 6 rows whose seed (said to be of
// column 3) holds the words of another column's state, which no strip has after column 3.
TEST(CompactCheckpoints, ASeedOfAnotherColumnIsRefused) {
    const fs::path ck = scratch("grundy_compact_seeded");
    fs::copy_file(std::string(GRUNDY_SOURCE_DIR) + "/tests/fuzz/corpus/checkpoint/compact-seeded",
                  ck);
    PeriodsOptions o;
    o.rows = 6;
    o.checkpoint = ck.string();
    o.resume = true;
    try {
        certify_row_periods(o);
        ADD_FAILURE() << "a seed of another column was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is corrupt (its seed"), std::string::npos)
            << e.what();
    }
    fs::remove(ck);
}

TEST(CompactCheckpoints, NeedACheckpointFile) {
    PeriodsOptions o;
    o.rows = 10;
    o.compact_checkpoints = true;
    EXPECT_THROW(certify_row_periods(o), ArgumentError);
}

}  // namespace
}  // namespace grundy
