// The CLI of certified row periods (grundy periods): checkpoints surviving SIGKILL and SIGTERM
// at any moment and on any number of threads, damaged or mismatched checkpoints refused, exit
// statuses, the CSV and HDF5 outputs. Runs are stopped on signs of progress (checkpoints
// written, CPU time used), never after a fixed time.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/periods_csv.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // tests/support: scratch directories, the CLI, tables

TEST(PeriodsCli, SigkillAtSeveralMomentsThenResume) {
    ScratchDir tmp;
    const std::string rows = "90";
    ASSERT_EQ(run_grundy({"periods", "--rows", rows, "--csv", tmp / "ref.csv", "-q"}, tmp / "log"),
              0);
    const std::string ref = slurp(tmp / "ref.csv");
    ASSERT_NE(ref.find("\n89,"), std::string::npos);
    // The production blocks of 90 rows (x0 = 124910, P = 6144) end at column 181 (2Y + 1), then
    // every 65536 columns. With the ring (24576 columns: one pass) phase 1 has blocks 1 (nothing
    // settled) and 2 (71 rows settled), then block 3 ends at 131253 in its tail (the state has
    // repeated) and the run's last block ends at x0 + ring + 1 = 149487. Without it
    // (--ring-memory 0: two passes), blocks 1 and 2 of phase 1, whose third ends at the
    // certificate, then phase 2: block 3 at 65536, block 4 at x0 + 1 = 124911 (its state kept
    // for the re-check at x0 + P), and the run's last at x0 + P + 1. Every block but a phase's last
    // ends with a checkpoint
    // (--checkpoint-every 0) and then a 200 ms sleep, in which the kill after the n-th checkpoint
    // lands: early and late in phase 1 and in its tail (ring), in phase 1 and before and after
    // phase 2's x0 (no ring). The layout of the blocks does not depend on the machine; only the
    // sleep must outlast the test's wait. With compact checkpoints (the ring swept again from a
    // seed on resuming): seeded at column 0 (the first), at column 180 (the second) and at
    // column 65716 (the third).
    struct Kill {
        int checkpoints;
        const char* ring;
        bool compact = false;
    };
    for (const Kill k :
         {Kill{1, "2^30"}, Kill{2, "2^30"}, Kill{3, "2^30"}, Kill{2, "0"}, Kill{3, "0"},
          Kill{4, "0"}, Kill{1, "2^30", true}, Kill{2, "2^30", true}, Kill{3, "2^30", true}}) {
        const std::string tag =
            std::to_string(k.checkpoints) + "_" + k.ring + (k.compact ? "_compact" : "");
        const std::string ck = tmp / ("ck" + tag);
        const std::string csv = tmp / ("out" + tag + ".csv");
        std::vector<std::string> args = {"periods",
                                         "--rows",
                                         rows,
                                         "--checkpoint",
                                         ck,
                                         "--checkpoint-every",
                                         "0",
                                         "--test-delay-us",
                                         "200000",
                                         "--csv",
                                         csv,
                                         "-q",
                                         "--ring-memory",
                                         k.ring};
        if (k.compact) args.push_back("--compact-checkpoints");
        const pid_t pid = spawn_grundy(args, tmp / "log");
        ASSERT_TRUE(wait_for_rewrites(pid, ck, k.checkpoints))
            << "fewer than " << k.checkpoints << " checkpoints written, ring " << k.ring << ": "
            << slurp(tmp / "log");
        ASSERT_TRUE(signal_while_running(pid, {SIGKILL}))
            << "the run ended before checkpoint " << k.checkpoints << ", ring " << k.ring;
        ASSERT_EQ(wait_grundy(pid), 128 + SIGKILL);
        ASSERT_TRUE(fs::exists(ck));
        // The CSV written after the last checkpoint or the one before (the kill may land between
        // the two files): the rows certified by then.
        if (fs::exists(csv)) expect_certified_prefix(csv, tmp / "ref.csv", 90);
        if (k.compact) {
            EXPECT_LT(fs::file_size(ck), 90u * 24576 * 2 / 100) << tag;
        }
        ASSERT_EQ(run_grundy({"periods", "--rows", rows, "--checkpoint", ck, "--resume", "--csv",
                              csv, "-q", "--ring-memory", k.ring},
                             tmp / "log"),
                  0)
            << slurp(tmp / "log");
        EXPECT_EQ(slurp(csv), ref) << "killed after checkpoint " << k.checkpoints << ", ring "
                                   << k.ring << (k.compact ? ", compact" : "");
    }
}

// The rows of the runs stopped by SIGTERM.
const std::string kSlowRows = "100";

// Starts a slowed-down run of 100 rows checkpointing to `ck`, sends SIGTERM once it is sweeping
// (its handler installed, 20 ms of CPU time used) and returns its exit status. Its production
// blocks end at columns 201 (2Y + 1), 65737, 131273, 196809 and, the run's last, 202521 (x0 +
// ring + 1), each but the last followed by a sleep of 100 ms; the first takes a few ms of CPU
// time and the second hundreds, so the signal comes in the first's sleep or in the second, and
// the run saves at the end of the second (or third), with a block still to go before its end.
int stop_slow_run(const ScratchDir& tmp, const std::string& ck) {
    const pid_t pid = spawn_grundy({"periods", "--rows", kSlowRows, "--checkpoint", ck,
                                    "--test-delay-us", "100000", "--csv", tmp / "out.csv", "-q"},
                                   tmp / "log");
    const bool sweeping = testing::wait_for_cpu_time(pid, SIGTERM, 20);
    EXPECT_TRUE(sweeping) << "no 20 ms of CPU time with the SIGTERM handler installed: "
                          << slurp(tmp / "log");
    const bool signalled = sweeping && signal_while_running(pid, {SIGTERM});
    EXPECT_TRUE(!sweeping || signalled) << "the run ended before SIGTERM";
    if (!signalled) ::kill(pid, SIGKILL);
    return wait_grundy(pid);
}

// The CSV of 100 rows run without a stop (tmp/ref.csv), and the checkpoint `ck` that a run of
// them stopped by SIGTERM saved (exit status 75).
void reference_and_stopped_run(const ScratchDir& tmp, const std::string& ck) {
    ASSERT_EQ(
        run_grundy({"periods", "--rows", kSlowRows, "--csv", tmp / "ref.csv", "-q"}, tmp / "log"),
        0);
    ASSERT_EQ(stop_slow_run(tmp, ck), 75) << slurp(tmp / "log");
    ASSERT_TRUE(fs::exists(ck));  // saved on the signal, long before the 300 s interval
}

TEST(PeriodsCli, SigtermSavesAndExits75) {
    ScratchDir tmp;
    const std::string ck = tmp / "ck";
    ASSERT_NO_FATAL_FAILURE(reference_and_stopped_run(tmp, ck));
    ASSERT_EQ(run_grundy({"periods", "--rows", kSlowRows, "--checkpoint", ck, "--resume", "--csv",
                          tmp / "out.csv", "-q"},
                         tmp / "log"),
              0);
    EXPECT_EQ(slurp(tmp / "out.csv"), slurp(tmp / "ref.csv"));
}

// A checkpoint that cannot be written (here a file size limit below its size; on a full disk the
// write fails the same way) stops the run: one line, exit status 75, the previous checkpoint
// intact and no partial .tmp left; with room again, --resume gives the CSV of an uninterrupted
// run. A first checkpoint that cannot be written says that nothing was saved.
TEST(PeriodsCli, CheckpointThatCannotBeWrittenKeepsThePreviousOne) {
    ScratchDir tmp;
    const std::string ck = tmp / "ck";
    ASSERT_NO_FATAL_FAILURE(reference_and_stopped_run(tmp, ck));
    const std::string saved = slurp(ck);
    ASSERT_FALSE(saved.empty());
    SpawnOptions limited;
    limited.log = tmp / "full.log";
    limited.file_size_limit = saved.size() / 2;
    std::vector<std::string> resume = {"periods", "--rows", kSlowRows, "--checkpoint", ck};
    resume.insert(resume.end(),
                  {"--resume", "--checkpoint-every", "0", "--csv", tmp / "out.csv", "-q"});
    ASSERT_EQ(wait_grundy(spawn_grundy(resume, limited)), 75) << slurp(limited.log);
    const std::string log = slurp(limited.log);
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_NE(log.find("cannot write checkpoint " + ck +
                       ".tmp: File too large; the previous "
                       "checkpoint " +
                       ck + " is intact"),
              std::string::npos)
        << log;
    EXPECT_EQ(slurp(ck), saved);
    EXPECT_FALSE(fs::exists(ck + ".tmp"));
    // The stopped runs' CSV: the rows they had certified, no more.
    expect_certified_prefix(tmp / "out.csv", tmp / "ref.csv", 100);
    ASSERT_EQ(run_grundy(resume, tmp / "log"), 0) << slurp(tmp / "log");
    EXPECT_EQ(slurp(tmp / "out.csv"), slurp(tmp / "ref.csv"));

    fs::remove(ck);
    limited.log = tmp / "first.log";
    ASSERT_EQ(wait_grundy(spawn_grundy(resume, limited)), 75) << slurp(limited.log);
    EXPECT_NE(slurp(limited.log).find("no checkpoint was saved"), std::string::npos)
        << slurp(limited.log);
    EXPECT_FALSE(fs::exists(ck));
    EXPECT_FALSE(fs::exists(ck + ".tmp"));
}

// A checkpoint written by a run on 2 threads (SIGTERM) resumed on 1, one written on 1 resumed
// on 3, and one written on 3 killed late and resumed on 2: the same CSV as a run without a stop.
TEST(PeriodsCli, CheckpointsResumeAcrossThreadCounts) {
    ScratchDir tmp;
    ASSERT_EQ(
        run_grundy({"periods", "--rows", "100", "--csv", tmp / "ref.csv", "-q", "--threads", "1"},
                   tmp / "log"),
        0);
    struct Case {
        const char* before;
        const char* after;
        int checkpoints;  // stopped once this many are written (one after every block)
        int signal;
    };
    // The production blocks of 100 rows end at columns 201, 65737 (71 rows settled), 131273
    // (90) and 196809 (in phase 1's tail: the state has repeated), each followed by a checkpoint
    // and a 100 ms sleep, then the run's last at 202521 (x0 + ring + 1). SIGTERM in the sleep
    // after the n-th checkpoint (or in the block after it) stops the run at the end of the next
    // block: the first case saves at 65737, the second at 131273. SIGKILL after the 3rd leaves
    // the checkpoint of 131273 (of 196809 if it comes late: a sleep, a block and a sleep remain
    // before the run's end).
    for (const Case c :
         {Case{"2", "1", 1, SIGTERM}, Case{"1", "3", 2, SIGTERM}, Case{"3", "2", 3, SIGKILL}}) {
        const std::string tag = std::string(c.before) + "_" + c.after;
        const std::string ck = tmp / ("ck" + tag), csv = tmp / ("out" + tag + ".csv");
        const pid_t pid = spawn_grundy(
            {"periods", "--rows", "100", "--checkpoint", ck, "--threads", c.before,
             "--checkpoint-every", "0", "--test-delay-us", "100000", "--csv", csv, "-q"},
            tmp / "log");
        ASSERT_TRUE(wait_for_rewrites(pid, ck, c.checkpoints))
            << "fewer than " << c.checkpoints << " checkpoints written, " << tag << ": "
            << slurp(tmp / "log");
        ASSERT_TRUE(signal_while_running(pid, {c.signal}))
            << "the run ended before checkpoint " << c.checkpoints << ", " << tag;
        const int status = wait_grundy(pid);
        if (c.signal == SIGTERM) {
            ASSERT_EQ(status, 75) << slurp(tmp / "log");
        }
        ASSERT_TRUE(fs::exists(ck)) << tag;
        if (fs::exists(csv)) expect_certified_prefix(csv, tmp / "ref.csv", 100);
        ASSERT_EQ(run_grundy({"periods", "--rows", "100", "--checkpoint", ck, "--resume", "--csv",
                              csv, "-q", "--threads", c.after},
                             tmp / "log"),
                  0)
            << slurp(tmp / "log");
        EXPECT_EQ(slurp(csv), slurp(tmp / "ref.csv")) << tag;
    }
}

// A checkpoint written by an older build (c0b5794, before the strip's own sweep, the split of
// the certification and the new test delay: tests/data/periods-30rows-c0b5794.ckpt, rows 30,
// --ring-memory 40000, stopped by SIGTERM in phase 1) loads, and the resumed run gives the CSV
// of a run without a stop: a long run resumes across builds.
TEST(PeriodsCli, CheckpointOfAnOlderBuildResumes) {
    ScratchDir tmp;
    const std::string ck = tmp / "ck";
    fs::copy_file(std::string(GRUNDY_SOURCE_DIR) + "/tests/data/periods-30rows-c0b5794.ckpt", ck);
    ASSERT_EQ(run_grundy({"periods", "--rows", "30", "--csv", tmp / "ref.csv", "-q"}, tmp / "log"),
              0);
    ASSERT_EQ(run_grundy({"periods", "--rows", "30", "--checkpoint", ck, "--resume", "--csv",
                          tmp / "out.csv", "--ring-memory", "40000", "-q"},
                         tmp / "log"),
              0)
        << slurp(tmp / "log");
    EXPECT_EQ(slurp(tmp / "out.csv"), slurp(tmp / "ref.csv"));
}

TEST(PeriodsCli, CorruptOrMismatchedCheckpointExit2) {
    ScratchDir tmp;
    const std::string ck = tmp / "ck";
    ASSERT_EQ(stop_slow_run(tmp, ck), 75);
    // Another number of rows.
    EXPECT_EQ(run_grundy({"periods", "--rows", "101", "--checkpoint", ck, "--resume", "-q"},
                         tmp / "log2"),
              2);
    EXPECT_NE(slurp(tmp / "log2").find("--rows 100"), std::string::npos) << slurp(tmp / "log2");
    // A checkpoint of another format version, older (1: before the settled rows and the ranks'
    // parts, no longer read) or newer than this program: refused in one line, exit status 2.
    // (Versions 2 to 7 load: this build writes version 7, the builds before a ring could be laid
    // out again version 6, the builds before the compact form version 5, c0b5794 and the builds
    // before it since the ranks' parts version 4, so a long run resumes across them.)
    std::string data = slurp(ck);
    for (const uint32_t version : {1u, 8u}) {
        std::string other = data;
        std::memcpy(other.data() + 8, &version, 4);
        const std::string other_ck = tmp / ("ck_v" + std::to_string(version));
        std::ofstream(other_ck, std::ios::binary | std::ios::trunc) << other;
        EXPECT_EQ(
            run_grundy({"periods", "--rows", kSlowRows, "--checkpoint", other_ck, "--resume", "-q"},
                       tmp / "log6", /*append=*/false),
            2);
        const std::string said = slurp(tmp / "log6");
        EXPECT_NE(said.find("format version " + std::to_string(version)), std::string::npos)
            << said;
        EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    }
    // One byte changed in the payload.
    data[data.size() / 2] ^= 0x10;
    std::ofstream(ck, std::ios::binary | std::ios::trunc) << data;
    EXPECT_EQ(run_grundy({"periods", "--rows", kSlowRows, "--checkpoint", ck, "--resume", "-q"},
                         tmp / "log3"),
              2);
    EXPECT_NE(slurp(tmp / "log3").find("corrupt"), std::string::npos) << slurp(tmp / "log3");
    // Cut short (a crash while copying it somewhere, say).
    data[data.size() / 2] ^= 0x10;
    std::ofstream(ck, std::ios::binary | std::ios::trunc) << data.substr(0, data.size() - 100);
    EXPECT_EQ(run_grundy({"periods", "--rows", kSlowRows, "--checkpoint", ck, "--resume", "-q"},
                         tmp / "log5"),
              2);
    EXPECT_NE(slurp(tmp / "log5").find("truncated"), std::string::npos) << slurp(tmp / "log5");
    // Not a checkpoint at all.
    std::ofstream(ck, std::ios::binary | std::ios::trunc) << "hello";
    EXPECT_EQ(run_grundy({"periods", "--rows", kSlowRows, "--checkpoint", ck, "--resume", "-q"},
                         tmp / "log4"),
              2);
}

TEST(PeriodsCli, BadInputAndMaxCols) {
    ScratchDir tmp;
    const std::string log = tmp / "log";
    EXPECT_EQ(run_grundy({"periods", "--rows", "0"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "abc"}, log), 2);
    EXPECT_EQ(run_grundy({"periods"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--resume"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--checkpoint-every", "-1"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--max-cols", "0"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--kernel", "sse9"}, log), 2);
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--csv", tmp / "nowhere/p.csv"}, log), 2);
    fs::remove(log);
    EXPECT_EQ(run_grundy({"periods", "--rows", "40", "--max-cols", "1000", "-q"}, log), 3);
    // Also how far it went and how long that took: what a benchmark at --max-cols reads.
    EXPECT_NE(slurp(log).find("not certified within 1000 columns (1000 columns swept in "),
              std::string::npos);
}

TEST(PeriodsCli, WritesCsvAndHdf5) {
    ScratchDir tmp;
    ASSERT_EQ(run_grundy({"periods", "--rows", "5", "--csv", tmp / "p.csv", "--output",
                          tmp / "p.h5", "-q"},
                         tmp / "log"),
              0)
        << slurp(tmp / "log");
    EXPECT_EQ(slurp(tmp / "p.csv"),
              "row,preperiod,period,periods_observed,certified,block\n0,0,1,,1,0\n1,0,3,,1,3 3 0\n"
              "2,0,3,,1,6 3 3\n3,8,6,,1,8 9 4 2 9 4\n4,9,12,,1,7 11 9 7 11 9 3 11 9 7 3 9\n");
    // Without --csv the same CSV goes to standard output (one writer for both).
    const RunResult out = run_grundy("periods --rows 5 -q");
    EXPECT_EQ(out.status, 0);
    EXPECT_EQ(out.output, slurp(tmp / "p.csv"));
    {
        const hid_t f = H5Fopen((tmp / "p.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        std::vector<uint64_t> period(5), offsets(6);
        std::vector<uint32_t> values(1 + 3 + 3 + 6 + 12);
        const hid_t dp = H5Dopen2(f, "/analysis/row_periods/period", H5P_DEFAULT);
        const hid_t doff = H5Dopen2(f, "/analysis/row_periods/block_offsets", H5P_DEFAULT);
        const hid_t dv = H5Dopen2(f, "/analysis/row_periods/block_values", H5P_DEFAULT);
        ASSERT_GE(dp, 0);
        ASSERT_GE(doff, 0);
        ASSERT_GE(dv, 0);
        H5Dread(dp, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, period.data());
        H5Dread(doff, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, offsets.data());
        H5Dread(dv, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
        EXPECT_EQ(period, (std::vector<uint64_t>{1, 3, 3, 6, 12}));
        EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 1, 4, 7, 13, 25}));
        EXPECT_EQ(std::vector<uint32_t>(values.begin() + 7, values.begin() + 13),
                  (std::vector<uint32_t>{8, 9, 4, 2, 9, 4}));
        const hid_t g = H5Gopen2(f, "/analysis/row_periods", H5P_DEFAULT);
        EXPECT_GT(H5Aexists(g, "x0"), 0);
        EXPECT_GT(H5Aexists(g, "P"), 0);
        EXPECT_GT(H5Aexists(g, "comparison_method"), 0);
        int32_t complete = 0;
        const hid_t a = H5Aopen(f, "complete", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT32, &complete);
        EXPECT_EQ(complete, 1);
        H5Aclose(a);
        H5Gclose(g);
        H5Dclose(dp);
        H5Dclose(doff);
        H5Dclose(dv);
        H5Fclose(f);
    }
    // Refuses to overwrite without --force.
    EXPECT_EQ(run_grundy({"periods", "--rows", "5", "--output", tmp / "p.h5", "-q"}, tmp / "log"),
              2);
}

}  // namespace
}  // namespace grundy
