// The rows a stopped `grundy periods` run had certified are kept: at --max-cols, on SIGTERM,
// after SIGKILL (from its last checkpoint), in the CSV, on standard output and in the HDF5
// output, each certified row equal to the committed result, the others undetermined; the prefix
// never shrinks from one checkpoint to the next, and --resume replaces the run's own stopped
// output and finishes it.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>

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

// The HDF5 output of a stopped run: complete 0, resumable 1, certified_rows and column in
// /analysis/row_periods, and no certificate.
void expect_stopped_hdf5(const std::string& path, uint64_t certified, uint64_t column) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0) << path;
    EXPECT_EQ(int_attribute(f, "complete"), 0);
    EXPECT_EQ(int_attribute(f, "resumable"), 1);
    const hid_t g = H5Gopen2(f, "/analysis/row_periods", H5P_DEFAULT);
    EXPECT_GE(g, 0);
    EXPECT_EQ(int_attribute(g, "certified_rows"), static_cast<int64_t>(certified));
    if (column) {
        EXPECT_EQ(int_attribute(g, "column"), static_cast<int64_t>(column));
    }
    EXPECT_EQ(H5Aexists(g, "x0"), 0);
    std::vector<uint8_t> flags(160);
    const hid_t d = H5Dopen2(g, "certified", H5P_DEFAULT);
    EXPECT_GE(d, 0);
    H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, flags.data());
    for (uint64_t y = 0; y < flags.size(); ++y) EXPECT_EQ(flags[y], y < certified) << y;
    H5Dclose(d);
    H5Gclose(g);
    H5Fclose(f);
    expect_repeating_hdf5(path, 0, 0, "");  // the default ring holds every period of 160 rows
}

// Runs stopped at --max-cols at three columns: exit 3, and the rows settled by then, more at
// each, in the CSV and the HDF5 output, equal to the committed rows. A sub-strip's rows are
// certified once the ring (98304 columns) has held them since their repeat began: rows 0..82
// at column 200000, 0..93 at 250000, 0..109 at 300000. Without --checkpoint the comment says
// that --resume could not continue the run; with one, that it does.
TEST(PeriodsPrefixCli, MaxColsKeepsTheSettledRows) {
    ScratchDir tmp;
    uint64_t before = 0;
    for (const char* columns : {"200000", "250000", "300000"}) {
        const std::string csv = tmp / (std::string(columns) + ".csv");
        const std::string h5 = tmp / (std::string(columns) + ".h5");
        ASSERT_EQ(run_grundy({"periods", "--rows", "160", "--max-cols", columns, "--csv", csv,
                              "--output", h5, "--no-blocks", "-q"},
                             tmp / "log"),
                  3)
            << slurp(tmp / "log");
        const uint64_t k = expect_certified_prefix(csv, kCommitted, 160);
        EXPECT_GT(k, before) << columns;
        EXPECT_LT(k, 160u) << columns;
        before = k;
        EXPECT_NE(slurp(csv).find("# grundy periods --rows 160: not certified within --max-cols "
                                  "in phase 1 at column " +
                                  std::string(columns) + "\n"),
                  std::string::npos);
        expect_stopped_hdf5(h5, k, std::stoull(columns));
        EXPECT_NE(slurp(csv).find("a run with --checkpoint could have been continued with "
                                  "--resume\n"),
                  std::string::npos);
    }
    const std::string kept = tmp / "kept.csv";
    ASSERT_EQ(run_grundy({"periods", "--rows", "160", "--max-cols", "200000", "--csv", kept,
                          "--checkpoint", tmp / "ck", "--no-blocks", "-q"},
                         tmp / "log"),
              3);
    EXPECT_NE(slurp(kept).find("not yet (certified 0, no period); --resume continues the run\n"),
              std::string::npos);
    EXPECT_TRUE(fs::exists(tmp / "ck"));
    // Without --csv the same rows go to standard output, after the comment lines (the output
    // holds stderr's line first).
    const RunResult out = run_grundy("periods --rows 160 --max-cols 250000 --no-blocks -q");
    EXPECT_EQ(out.status, 3);
    const size_t csv = out.output.find("# grundy periods");
    ASSERT_NE(csv, std::string::npos) << out.output;
    EXPECT_EQ(out.output.substr(csv), slurp(tmp / "250000.csv"));
}

// The rows certified in a CSV (0 while it does not exist).
uint64_t certified_rows(const std::string& csv) {
    uint64_t k = 0;
    for (const std::string& line : csv_rows(csv)) {
        const std::vector<std::string> f = csv_fields(line);
        k += f.size() > 4 && f[4] == "1";
    }
    return k;
}

// The arguments of a run of 160 rows that checkpoints, and so rewrites its CSV, after every
// block and then sleeps 20 ms. Its ring of 24576 columns (2^23 bytes) certifies a sub-strip's
// rows 24576 columns after their repeat began: none after the block that ends at column 321,
// then 60, 83, 98, 114, 123, ... after those at 65857, 131393, 196929, 262465, 328001, ...
// (every 65536 columns) up to all 160.
std::vector<std::string> slow_run(const ScratchDir& tmp) {
    return {
        "periods", "--rows",          "160",  "--checkpoint", tmp / "ck",    "--checkpoint-every",
        "0",       "--ring-memory",   "2^23", "--csv",        tmp / "p.csv", "--no-blocks",
        "-q",      "--test-delay-us", "20000"};
}

// SIGTERM once 30 rows are certified: they are in the CSV and the HDF5 output; --resume, with
// the same output and without --force, replaces the run's own stopped file and ends certified
// with every row. Another run may not overwrite that output.
TEST(PeriodsPrefixCli, SigtermKeepsTheRowsAndResumeFinishesThem) {
    ScratchDir tmp;
    const std::string csv = tmp / "p.csv", h5 = tmp / "p.h5";
    std::vector<std::string> run = slow_run(tmp);
    run.insert(run.end(), {"--output", h5});
    const pid_t pid = spawn_grundy(run, tmp / "log");
    ASSERT_TRUE(wait_for(pid, [&] { return certified_rows(csv) >= 30; })) << slurp(tmp / "log");
    ASSERT_TRUE(signal_while_running(pid, {SIGTERM})) << "the run ended before SIGTERM";
    ASSERT_EQ(wait_grundy(pid), 75) << slurp(tmp / "log");
    const uint64_t k = expect_certified_prefix(csv, kCommitted, 160);
    EXPECT_GE(k, 30u);
    EXPECT_LT(k, 160u);
    expect_stopped_hdf5(h5, k, 0);
    EXPECT_EQ(run_grundy({"periods", "--rows", "160", "--output", h5, "-q", "--max-cols", "10"},
                         tmp / "log"),
              2);
    std::vector<std::string> resume(run.begin(), run.end());
    resume.push_back("--resume");
    ASSERT_EQ(run_grundy(resume, tmp / "log"), 0) << slurp(tmp / "log");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 160), 160u);
    EXPECT_EQ(slurp(csv).find('#'), std::string::npos);
}

// The CSV read after each of its rewrites: the certified rows never fewer than the time before,
// and always the committed ones, over at least 5 rewrites (0, 60, 83, 98 and 114 rows certified);
// SIGKILL then leaves the last checkpoint's rows.
TEST(PeriodsPrefixCli, PrefixNeverShrinksAndSurvivesSigkill) {
    ScratchDir tmp;
    const std::string csv = tmp / "p.csv";
    const pid_t pid = spawn_grundy(slow_run(tmp), tmp / "log");
    uint64_t last = 0;
    int rewrites = 0;
    struct timespec seen {};
    const auto rewritten = [&] {  // a new file renamed over the CSV (read whole, never a part)
        struct stat st {};
        if (::stat(csv.c_str(), &st) != 0) return false;
        if (st.st_mtim.tv_sec == seen.tv_sec && st.st_mtim.tv_nsec == seen.tv_nsec) return false;
        seen = st.st_mtim;
        return true;
    };
    while (last < 100 && wait_for(pid, rewritten) && still_running(pid)) {
        const uint64_t k = expect_certified_prefix(csv, kCommitted, 160);
        EXPECT_GE(k, last) << "after rewrite " << rewrites;
        last = k;
        ++rewrites;
    }
    EXPECT_GE(last, 100u) << rewrites << " rewrites: " << slurp(tmp / "log");
    EXPECT_GE(rewrites, 5);
    ASSERT_TRUE(signal_while_running(pid, {SIGKILL})) << "the run ended before SIGKILL";
    EXPECT_EQ(wait_grundy(pid), 128 + SIGKILL);
    EXPECT_GE(expect_certified_prefix(csv, kCommitted, 160), last);
}

// A ring of 98304 columns, where rows 261.. of the committed result have period 196608: stopped
// at --max-cols once those rows had repeated, the run names them with their period in the CSV's
// comment, the HDF5 output's attributes and on stderr, and leaves them uncertified (phase 2
// would give their preperiods).
TEST(PeriodsPrefixCli, RowsThatRepeatPastTheRingAreNamed) {
    ScratchDir tmp;
    const std::string csv = tmp / "ring.csv", h5 = tmp / "ring.h5";
    ASSERT_EQ(run_grundy({"periods", "--rows", "300", "--ring-memory", "58982400", "--max-cols",
                          "3600000", "--csv", csv, "-o", h5, "--no-blocks"},
                         tmp / "log"),
              3)
        << slurp(tmp / "log");
    EXPECT_EQ(expect_certified_prefix(csv, kCommitted, 300), 261u);
    const std::string text = slurp(csv);
    const size_t at = text.find("# rows 261..");
    ASSERT_NE(at, std::string::npos) << text.substr(0, 600);
    const uint64_t last = std::stoull(text.substr(at + 12));
    EXPECT_GE(last, 261u);
    EXPECT_LT(last, 299u);
    const std::string line = "rows 261.." + std::to_string(last) +
                             " repeat with period 196608, which the ring cannot hold";
    EXPECT_EQ(text.find("# " + line + ": certified once phase 2 gives their preperiods\n"), at);
    expect_repeating_hdf5(h5, static_cast<int64_t>(last) + 1, 196608, "ring");
    EXPECT_NE(slurp(tmp / "log").find(line + ": phase 2 will give their preperiods\n"),
              std::string::npos)
        << slurp(tmp / "log");
}

}  // namespace
}  // namespace grundy
