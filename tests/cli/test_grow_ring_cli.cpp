// `grundy periods --resume --grow-ring`: a run whose rows repeat with a period its ring cannot
// hold lays the ring out again, longer, from its checkpoint's seed, and certifies every row in
// phase 1, each equal to the committed result. Rows 261.. of the committed 512-row result have
// period 196608, twice the ring of 98304 columns that 300 rows get from 58982400 bytes; without
// the longer ring they would need phase 2, a second sweep from column 0 (16 s here against 3).
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/periods_csv.hpp"
#include "support/periods_h5.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // tests/support: scratch directories, the CLI, row-periods CSVs

const std::string kCommitted = std::string(GRUNDY_SOURCE_DIR) + "/jobs/results/row-periods-512.csv";
constexpr const char* kRows = "300";
constexpr const char* kShortRing = "58982400";  // 300 x 98304 x 2 bytes

// `grundy periods --rows 300` with compact checkpoints in `ck` and the CSV in `csv`, and `more`.
int periods(const std::string& ck, const std::string& csv, const std::vector<std::string>& more,
            const std::string& log) {
    std::vector<std::string> args = {"periods",    "--rows", kRows, "--checkpoint",
                                     ck,           "--csv",  csv,   "--compact-checkpoints",
                                     "--no-blocks"};
    args.insert(args.end(), more.begin(), more.end());
    return run_grundy(args, log);
}

// The short ring's run stopped at `column`: its checkpoint, written once for all the tests.
std::string stopped_at(uint64_t column) {
    static ScratchDir dir;
    const std::string ck = dir / ("at" + std::to_string(column) + ".ckpt");
    if (!fs::exists(ck)) {
        EXPECT_EQ(periods(ck, dir / "short.csv",
                          {"--ring-memory", kShortRing, "--max-cols", std::to_string(column)},
                          dir / "log"),
                  3)
            << slurp(dir / "log");
    }
    return ck;
}

// Stopped at column 2.5 M, before rows 261.. repeat (row 261's preperiod is 2 642 856): resumed
// with a ring of 196608 columns for the rows not yet certified, every row is certified in phase
// 1. Stopped again after the longer ring was laid out, the run resumes from that checkpoint (the
// low ring swept again from its seed) to the same rows.
TEST(GrowRingCli, RowsPastTheRingSettleInPhaseOne) {
    ScratchDir tmp;
    const std::string ck = tmp / "c.ckpt", csv = tmp / "rows.csv";
    fs::copy_file(stopped_at(2500000), ck);
    const std::vector<std::string> grow = {"--resume", "--grow-ring", "--ring-memory", "120000000"};
    std::vector<std::string> stop = grow;
    stop.insert(stop.end(), {"--max-cols", "3000000"});
    ASSERT_EQ(periods(ck, csv, stop, tmp / "log"), 3) << slurp(tmp / "log");
    const uint64_t part = expect_certified_prefix(csv, kCommitted, 300);
    EXPECT_GE(part, 250u);
    ASSERT_EQ(periods(ck, csv, grow, tmp / "log"), 0) << slurp(tmp / "log");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 300), 300u);
    const std::string log = slurp(tmp / "log");
    EXPECT_NE(log.find("preperiods from the first pass"), std::string::npos) << log;
    EXPECT_EQ(log.find("second pass needed"), std::string::npos) << log;
}

// The same with a memory budget that leaves no room for the settled rows' tables at the longer
// period: rows 261.. are swept to the certificate instead of settling, to the same results. A
// stop on the way names them, and why they do not settle, in the CSV, the HDF5 output and the
// report.
TEST(GrowRingCli, TablesKeptWithinTheMemoryBudget) {
    ScratchDir tmp;
    const std::string ck = tmp / "c.ckpt", csv = tmp / "rows.csv", h5 = tmp / "rows.h5";
    fs::copy_file(stopped_at(2500000), ck);
    // 90 MB: rows 0..249 keep 98304 columns, rows 250..299 get 196608; 150 MB leaves the
    // tables (300 bytes a column of their period with their growth) less than 196608 columns.
    const std::vector<std::string> grow = {"--resume", "--grow-ring",  "--ring-memory",
                                           "90000000", "--max-memory", "150000000"};
    std::vector<std::string> stop = grow;
    stop.insert(stop.end(), {"--max-cols", "3600000", "-o", h5});
    ASSERT_EQ(periods(ck, csv, stop, tmp / "log"), 3) << slurp(tmp / "log");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 300), 261u);
    expect_repeating_hdf5(h5, 283, 196608, "tables");
    const std::string line =
        "rows 261..282 repeat with period 196608, whose tables the memory "
        "cannot hold";
    EXPECT_NE(slurp(csv).find("\n# " + line + ": certified with the whole strip\n"),
              std::string::npos)
        << slurp(csv);
    EXPECT_NE(slurp(tmp / "log").find(line + ": they are swept to the certificate\n"),
              std::string::npos)
        << slurp(tmp / "log");
    ASSERT_EQ(periods(ck, csv, grow, tmp / "log"), 0) << slurp(tmp / "log");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 300), 300u);
    EXPECT_NE(slurp(tmp / "log").find("preperiods from the first pass"), std::string::npos);
}

// Stopped at column 3.6 M, after row 261 began to repeat: its last mismatch lies before the
// checkpoint's seed, and its period does not divide the short ring, so the run cannot give its
// exact preperiod and says so in one line, exit status 2, rather than a wrong one.
TEST(GrowRingCli, ASeedPastARowsPreperiodIsRefused) {
    ScratchDir tmp;
    const std::string ck = tmp / "c.ckpt", csv = tmp / "rows.csv";
    fs::copy_file(stopped_at(3600000), ck);
    ASSERT_EQ(
        periods(ck, csv, {"--resume", "--grow-ring", "--ring-memory", "120000000"}, tmp / "log"), 2)
        << slurp(tmp / "log");
    const std::string log = slurp(tmp / "log");
    EXPECT_NE(log.find("error: row 261 repeats with period 196608 from before column "),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("its exact preperiod needs the longer ring from a checkpoint before that "
                       "column\n"),
              std::string::npos)
        << log;
}

// A ring lengthened to 98304 columns from 49152 (stopped at column 1.6 M, before rows 218..260 of
// period 98304 repeat) still cannot hold rows 261.. (196608): the run needs phase 2, and a
// checkpoint of phase 2 after the longer ring (SIGTERM, exit 75) resumes to the committed rows.
TEST(GrowRingCli, PhaseTwoAfterALongerRing) {
    ScratchDir tmp;
    const std::string ck = tmp / "c.ckpt", csv = tmp / "rows.csv";
    ASSERT_EQ(periods(ck, csv, {"--ring-memory", "29491200", "--max-cols", "1600000"}, tmp / "log"),
              3)
        << slurp(tmp / "log");
    const std::vector<std::string> grow = {"--resume", "--grow-ring", "--ring-memory", "40000000"};
    std::vector<std::string> args = {"periods",
                                     "--rows",
                                     kRows,
                                     "--checkpoint",
                                     ck,
                                     "--csv",
                                     csv,
                                     "--compact-checkpoints",
                                     "--no-blocks",
                                     "--progress",
                                     "--progress-every",
                                     "0.2"};
    args.insert(args.end(), grow.begin(), grow.end());
    const std::string log = tmp / "log2";
    const pid_t pid = spawn_grundy(args, log);
    ASSERT_TRUE(wait_for(pid, [&] { return slurp(log).find("phase 2/2") != std::string::npos; }))
        << slurp(log);
    ::kill(pid, SIGTERM);
    ASSERT_EQ(wait_grundy(pid), 75) << slurp(log);
    ASSERT_EQ(periods(ck, csv, grow, tmp / "log3"), 0) << slurp(tmp / "log3");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 300), 300u);
    EXPECT_NE(slurp(tmp / "log3").find("second pass needed"), std::string::npos);
}

// --grow-ring needs --resume and --compact-checkpoints. Resuming a checkpoint it cannot lengthen
// (one that holds its ring), it changes nothing, so that a job may keep it on: the run ends
// with the committed rows.
TEST(GrowRingCli, NeedsACompactCheckpoint) {
    ScratchDir tmp;
    EXPECT_EQ(run_grundy({"periods", "--rows", "8", "--grow-ring"}, tmp / "log"), 2);
    EXPECT_NE(slurp(tmp / "log").find("--grow-ring needs --resume and --compact-checkpoints"),
              std::string::npos)
        << slurp(tmp / "log");
    const std::string full = tmp / "full.ckpt", csv = tmp / "rows.csv";
    ASSERT_EQ(run_grundy({"periods", "--rows", "40", "--checkpoint", full, "--max-cols", "5000"},
                         tmp / "log"),
              3);
    ASSERT_EQ(run_grundy({"periods", "--rows", "40", "--checkpoint", full, "--resume",
                          "--compact-checkpoints", "--grow-ring", "--csv", csv},
                         tmp / "log2"),
              0)
        << slurp(tmp / "log2");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 40), 40u);
}

}  // namespace
}  // namespace grundy
