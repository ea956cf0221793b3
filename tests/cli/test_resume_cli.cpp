// grundy compute stopped by signals or a full disk and continued with --resume, through the real
// binary: a stopped run exits with status 75 and one line, the resumed file must be the table of
// an uninterrupted run, chunk for chunk; every refusal is one line, exit status 2, and leaves
// the file as it was.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "support/cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/table_files.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // tests/support: scratch directories, the CLI, tables

size_t lines(const std::string& text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct Stopped {
    int status = -1;
    std::string log;
};

// Starts `args`, lets it run until it has written `chunks` chunks and flushed the file (its
// hidden --test-pause-after-chunks stops it there), sends `sig`, and waits for the end: the
// signal comes at that point of the run however busy the machine is. A run that ended before
// that many chunks fails here with a message that says so.
Stopped stop_at(const std::string& args, uint64_t chunks, int sig, const std::string& log) {
    const pid_t pid =
        spawn_grundy(args + " --test-pause-after-chunks " + std::to_string(chunks), log);
    EXPECT_GT(pid, 0);
    if (pid <= 0) return {};
    const bool signalled = testing::signal_at_pause(pid, {sig});
    EXPECT_TRUE(signalled) << "the run ended before " << chunks << " chunks: " << slurp(log);
    Stopped s;
    s.status = wait_grundy(pid);
    s.log = slurp(log);
    return s;
}

// Values against the engine's table, and every stored chunk byte for byte against the file
// of an uninterrupted run.
void expect_same_table(const std::string& path, const std::string& uninterrupted,
                       const MemoryTable& expected) {
    testing::expect_file_equals(path, expected);
    Hdf5TableReader reader(path);
    hid_t a = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t b = H5Fopen(uninterrupted.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t da = H5Dopen2(a, "grundy", H5P_DEFAULT), db = H5Dopen2(b, "grundy", H5P_DEFAULT);
    const uint64_t cr = reader.chunk_rows(), cc = reader.chunk_cols();
    for (uint64_t y = 0; y < reader.rows(); y += cr)
        for (uint64_t x = 0; x < reader.cols(); x += cc) {
            const hsize_t offset[2] = {y, x};
            hsize_t na = 0, nb = 0;
            ASSERT_GE(H5Dget_chunk_storage_size(da, offset, &na), 0);
            ASSERT_GE(H5Dget_chunk_storage_size(db, offset, &nb), 0);
            ASSERT_EQ(na, nb) << "chunk at x = " << x << ", y = " << y;
            std::vector<char> ca(na), cb(nb);
            uint32_t ma = 0, mb = 0;
            H5Dread_chunk(da, H5P_DEFAULT, offset, &ma, ca.data());
            H5Dread_chunk(db, H5P_DEFAULT, offset, &mb, cb.data());
            ASSERT_TRUE(ca == cb && ma == mb) << "chunk at x = " << x << ", y = " << y;
        }
    H5Dclose(da);
    H5Dclose(db);
    H5Fclose(a);
    H5Fclose(b);
}

int64_t attribute(const std::string& path, const char* name) {
    return Hdf5TableReader(path, true).int_attribute(name).value_or(-1);
}

// "interrupted by signal 15 after N of M tiles": N, or -1.
long tiles_done(const std::string& log) {
    // (Not std::regex: GCC 12 warns inside it under the sanitizers, and warnings are errors.)
    const size_t at = log.find("interrupted by signal ");
    const size_t after = at == std::string::npos ? at : log.find(" after ", at);
    if (after == std::string::npos || log.find(" tiles", after) == std::string::npos) return -1;
    return std::strtol(log.c_str() + after + 7, nullptr, 10);
}

struct RunSpec {
    uint64_t rows, cols;
    uint64_t tile;
    std::string options;  // besides --rows, --cols, --tile and -o
    // The table's chunks (one per tile), and `share` of them.
    uint64_t chunks() const { return ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile); }
    uint64_t chunks(double share) const {
        return std::max<uint64_t>(1, static_cast<uint64_t>(share * static_cast<double>(chunks())));
    }
};

std::string command(const RunSpec& r, const std::string& file) {
    return "compute --rows " + std::to_string(r.rows) + " --cols " + std::to_string(r.cols) +
           " --tile " + std::to_string(r.tile) + " " + r.options + " -o " + file;
}

class CliResume : public ::testing::Test {
  protected:
    ScratchDir dir;
    // The finished table of `run` into `uninterrupted`, then the same run into `file` stopped
    // by `sig` once half its chunks are written (status -1 if the finished run failed).
    Stopped finished_then_stopped(const RunSpec& run, const std::string& uninterrupted,
                                  const std::string& file, int sig) {
        const auto r = run_grundy(command(run, uninterrupted) + " -q");
        if (r.status != 0) return {-1, r.output};
        return stop_at(command(run, file), run.chunks(0.5), sig, dir.file("log"));
    }
};

// SIGTERM at several moments (after the first chunk, 30% and 65% of them), each resumed; one of
// them stopped again while resuming and resumed once more. Both engine modes: a square (symmetric)
// and a tall table (general: mirrored tiles filled into their sets).
void stop_and_resume_at_several_moments(const RunSpec& run, const ScratchDir& dir) {
    auto file = [&](const std::string& name) { return dir.file(name); };
    const std::string reference = file("uninterrupted.h5");
    const auto r = run_grundy(command(run, reference) + " -q");
    ASSERT_EQ(r.status, 0) << r.output;
    const MemoryTable expected = table_in_memory(run.rows, run.cols);

    for (const double fraction : {0.0, 0.3, 0.65}) {
        SCOPED_TRACE("stopped at " + std::to_string(fraction));
        const std::string f = file("t" + std::to_string(static_cast<int>(fraction * 100)) + ".h5");
        const Stopped s = stop_at(command(run, f), run.chunks(fraction), SIGTERM, file("log"));
        ASSERT_EQ(s.status, 75) << s.log;
        EXPECT_NE(s.log.find("interrupted by signal 15 after"), std::string::npos) << s.log;
        EXPECT_NE(s.log.find("--resume"), std::string::npos) << s.log;
        EXPECT_EQ(lines(s.log), 1u) << s.log;
        ASSERT_TRUE(fs::exists(f));
        EXPECT_EQ(attribute(f, "complete"), 0);
        EXPECT_EQ(attribute(f, "resumable"), 1);
        // The pyramid being written went with the stopped run.
        EXPECT_FALSE(fs::exists(f + ".pyramid.tmp"));
        EXPECT_FALSE(fs::exists(f + ".pyramid"));
        const long done = tiles_done(s.log);
        EXPECT_GE(done, static_cast<long>(run.chunks(fraction))) << s.log;
        // Readers refuse the unfinished file.
        EXPECT_THROW(Hdf5TableReader{f}, Error);

        if (fraction == 0.3) {
            // Stopped again while resuming, a little further on, then resumed once more.
            // A third of the chunks left, written by the resumed run.
            const Stopped again =
                stop_at(command(run, f) + " --resume",
                        (run.chunks() - static_cast<uint64_t>(done)) / 3, SIGTERM, file("log2"));
            ASSERT_EQ(again.status, 75) << again.log;
            EXPECT_GE(tiles_done(again.log), done) << again.log;
            EXPECT_EQ(attribute(f, "resumable"), 1);
            EXPECT_EQ(attribute(f, "resumed_runs"), 1);
        }
        const auto resumed = run_grundy(command(run, f) + " --resume");
        ASSERT_EQ(resumed.status, 0) << resumed.output;
        EXPECT_NE(resumed.output.find("resumed:"), std::string::npos) << resumed.output;
        EXPECT_EQ(resumed.output.find("resumed: 0 cells"), std::string::npos) << resumed.output;
        EXPECT_EQ(attribute(f, "complete"), 1);
        EXPECT_EQ(attribute(f, "resumable"), 0);
        EXPECT_EQ(attribute(f, "resumed_runs"), fraction == 0.3 ? 2 : 1);
        expect_same_table(f, reference, expected);
        // Once complete, nothing more to resume.
        const auto more = run_grundy(command(run, f) + " --resume");
        EXPECT_EQ(more.status, 2);
        EXPECT_NE(more.output.find("already complete"), std::string::npos) << more.output;
    }
}

TEST_F(CliResume, SquareStoppedAtSeveralMoments) {
    stop_and_resume_at_several_moments({4096, 4096, 128, "--threads 2"}, dir);
}

TEST_F(CliResume, TallTableStoppedAtSeveralMoments) {
    stop_and_resume_at_several_moments({4000, 1500, 96, "--threads 2"}, dir);
}

// Blosc and uncompressed chunks resume as well (the stored tiles are decoded by grundy).
TEST_F(CliResume, OtherCompressions) {
    for (const std::string c : {"none", "blosc"}) {
        const RunSpec run{2000, 2500, 64, "--threads 2 --compression " + c};
        const std::string ref = dir.file(c + "-ref.h5"), f = dir.file(c + ".h5");
        const Stopped s = finished_then_stopped(run, ref, f, SIGINT);
        ASSERT_EQ(s.status, 75) << s.log;
        EXPECT_NE(s.log.find("interrupted by signal 2"), std::string::npos) << s.log;
        // --compression may be left out: the file's is used.
        const auto r =
            run_grundy("compute --rows 2000 --cols 2500 --threads 2 -q --resume -o " + f);
        ASSERT_EQ(r.status, 0) << r.output;
        expect_same_table(f, ref, table_in_memory(2000, 2500));
    }
}

// A job file continues with `grundy run JOB.ini --resume`.
TEST_F(CliResume, JobFileResume) {
    const RunSpec run{2048, 2048, 64, "--threads 2"};
    const std::string ref = dir.file("ref.h5"), f = dir.file("job.h5");
    ASSERT_EQ(run_grundy(command(run, ref) + " -q").status, 0);
    // force = true, as in jobs/*.ini: --resume continues the file instead of overwriting it.
    std::ofstream(dir.file("job.ini")) << "[compute]\nrows = 2048\ncols = 2048\ntile = 64\n"
                                          "threads = 2\nforce = true\ncompression = deflate\n"
                                          "output = "
                                       << f << "\n";
    // Options after the job file reach its [compute] section, the testing aid too.
    const Stopped s =
        stop_at("run " + dir.file("job.ini"), run.chunks(0.5), SIGTERM, dir.file("log"));
    ASSERT_EQ(s.status, 75) << s.log;
    const auto r = run_grundy("run " + dir.file("job.ini") + " --resume");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("resumed: "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("resumed: 0 cells"), std::string::npos) << r.output;
    expect_same_table(f, ref, table_in_memory(2048, 2048));
}

// Every refusal: exit status 2, one line naming the reason, the file unchanged.
TEST_F(CliResume, Refusals) {
    const RunSpec run{1500, 1500, 64, "--threads 2"};
    const std::string stopped = dir.file("stopped.h5"), complete = dir.file("complete.h5");
    const Stopped s = finished_then_stopped(run, complete, stopped, SIGTERM);
    ASSERT_EQ(s.status, 75) << s.log;
    std::ofstream(dir.file("text.h5")) << "not an HDF5 file\n";
    // Truncated, as a hard kill or a full disk may leave it.
    const std::string bytes = slurp(stopped);
    std::ofstream(dir.file("truncated.h5"), std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    // A file with complete = 0 but no resumable = 1 (written by an older grundy).
    fs::copy_file(stopped, dir.file("old.h5"));
    hid_t h = H5Fopen(dir.file("old.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(H5Adelete(h, "resumable"), 0);
    H5Fclose(h);

    struct Case {
        std::string args, file, message;
    };
    const std::string base = "compute --rows 1500 --cols 1500 --threads 2 --resume ";
    const std::vector<Case> cases = {
        {base + "-o " + dir.file("missing.h5"), "", "no such file"},
        {base + "-o " + complete, complete, "already complete"},
        {base + "--tile 128 -o " + stopped, stopped, "was computed with --tile 64, not 128"},
        {"compute --rows 1501 --cols 1500 --resume -o " + stopped, stopped,
         "was computed with --rows 1500, not 1501"},
        {"compute --rows 1500 --cols 2000 --resume -o " + stopped, stopped, "--cols 1500, not"},
        {base + "--compression deflate:4 -o " + stopped, stopped,
         "was computed with --compression deflate:1, not deflate:4"},
        {base + "--compression blosc -o " + stopped, stopped, "--compression deflate:1"},
        {base + "-o " + dir.file("text.h5"), dir.file("text.h5"), "not an HDF5 file"},
        {base + "-o " + dir.file("truncated.h5"), dir.file("truncated.h5"), "cannot resume"},
        {base + "-o " + dir.file("old.h5"), dir.file("old.h5"), "not resumable"},
        {base + "-o " + dir.path().string(), "", "is a directory"},
        {"compute --rows 1500 --cols 1500 --resume --no-output", "", "--resume needs --output"},
        {base + "--checkpoint-every soon -o " + stopped, stopped, "--checkpoint-every"},
    };
    for (const Case& c : cases) {
        const std::string before = c.file.empty() ? "" : slurp(c.file);
        const auto r = run_grundy(c.args);
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
        EXPECT_EQ(lines(r.output), 1u) << c.args << "\n" << r.output;
        if (!c.file.empty()) {
            EXPECT_TRUE(slurp(c.file) == before) << c.args << ": file changed";
        }
    }
    EXPECT_FALSE(fs::exists(dir.file("missing.h5")));
    // After all that the stopped file still resumes.
    const auto r = run_grundy(base + "-q -o " + stopped);
    EXPECT_EQ(r.status, 0) << r.output;
    expect_same_table(stopped, complete, table_in_memory(1500, 1500));
}

// A stored chunk damaged on disk: refused with one line when its tile is read back, and the
// file is left as it was (nothing is written before every stored tile has been replayed).
TEST_F(CliResume, DamagedStoredChunk) {
    const RunSpec run{1500, 1500, 64, "--threads 2"};
    const std::string ref = dir.file("ref.h5"), f = dir.file("f.h5");
    const Stopped s = finished_then_stopped(run, ref, f, SIGTERM);
    ASSERT_EQ(s.status, 75) << s.log;
    const std::string bytes = testing::damage_chunk(f, 64, 64);
    ASSERT_FALSE(bytes.empty()) << "no chunk stored at (64, 64)";
    const auto r = run_grundy(command(run, f) + " --resume");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("damaged"), std::string::npos) << r.output;
    EXPECT_EQ(lines(r.output), 1u) << r.output;
    EXPECT_TRUE(slurp(f) == bytes) << "file changed";
}

// SIGKILL gives no chance to close the file: what a hard kill leaves is what the last flush of
// the chunk index saved (--checkpoint-every). Killed right after such a flush (the testing aid
// flushes when it stops the run), every run resumes, replaying the more of the table the later
// it was killed, into the table of an uninterrupted run.
TEST_F(CliResume, HardKill) {
    const RunSpec run{3000, 3000, 64, "--threads 2 --checkpoint-every 0.02"};
    const std::string ref = dir.file("ref.h5");
    ASSERT_EQ(run_grundy(command(run, ref) + " -q").status, 0);
    const MemoryTable expected = table_in_memory(3000, 3000);
    unsigned long long earlier = 0;  // cells resumed after the previous kill
    for (const double fraction : {0.2, 0.5, 0.8}) {
        SCOPED_TRACE("killed at " + std::to_string(fraction));
        const std::string f = dir.file("k" + std::to_string(static_cast<int>(fraction * 10)));
        const Stopped s = stop_at(command(run, f), run.chunks(fraction), SIGKILL, dir.file("log"));
        ASSERT_EQ(s.status, 128 + SIGKILL) << s.log;
        // The pyramid being written is left as it was, under a name no reader opens.
        EXPECT_TRUE(fs::exists(f + ".pyramid.tmp"));
        EXPECT_FALSE(fs::exists(f + ".pyramid"));
        const auto r = run_grundy(command(run, f) + " --resume");
        ASSERT_EQ(r.status, 0) << r.output;
        EXPECT_FALSE(fs::exists(f + ".pyramid.tmp"));  // the resumed run writes none
        // The chunks flushed before the kill were taken over: more, the later the kill.
        const size_t at = r.output.find("resumed: ");
        ASSERT_NE(at, std::string::npos) << r.output;
        const unsigned long long cells = std::strtoull(r.output.c_str() + at + 9, nullptr, 10);
        EXPECT_GT(cells, earlier) << r.output;
        earlier = cells;
        expect_same_table(f, ref, expected);
    }
}

// Runs the binary with a file size limit of `limit` bytes (RLIMIT_FSIZE: a write past it fails
// with EFBIG, as one on a full disk fails with ENOSPC), `env` added to the environment, stdout
// and stderr into `log`. SIGXFSZ keeps its default action (it kills the process): grundy must
// ignore it itself. Returns the exit status, or 128 + signal.
int run_with_file_limit(const std::string& args, rlim_t limit, const std::string& log,
                        const std::vector<std::string>& env = {}) {
    testing::SpawnOptions o;
    o.log = log;
    o.file_size_limit = limit;
    o.env = env;
    return wait_grundy(spawn_grundy(testing::words(args), o));
}

// "stopped after N of M tiles": N, or -1.
long tiles_kept(const std::string& log) {
    const size_t at = log.find("; stopped after ");
    return at == std::string::npos ? -1 : std::strtol(log.c_str() + at + 16, nullptr, 10);
}

// A disk that fills up (here a file size limit) stops the run like a signal: one line, exit
// status 75, every chunk written so far kept in a file that stays within the limit, closed as a
// stopped run; the same command with --resume continues it (stopped once more by the limit
// while resuming) into the table of an uninterrupted run, chunk for chunk.
TEST_F(CliResume, FullDiskKeepsTheTilesWrittenAndResumes) {
    for (const RunSpec& run : {RunSpec{2048, 2048, 128, "--threads 2"},
                               RunSpec{1500, 2600, 96, "--threads 2 --compression none"}}) {
        SCOPED_TRACE(command(run, "F"));
        const std::string ref = dir.file("ref.h5"), f = dir.file("full.h5");
        fs::remove(f);
        ASSERT_EQ(run_grundy(command(run, ref) + " --force -q").status, 0);
        const uintmax_t final_size = fs::file_size(ref);

        const rlim_t limit = final_size * 2 / 5;
        const int status = run_with_file_limit(command(run, f), limit, dir.file("log"));
        const std::string log = slurp(dir.file("log"));
        ASSERT_EQ(status, 75) << log;
        EXPECT_EQ(lines(log), 1u) << log;  // no HDF5-DIAG error stack
        EXPECT_NE(log.find("cannot write " + f + ": File too large; stopped after "),
                  std::string::npos)
            << log;
        EXPECT_NE(log.find("free some space, then run the same command again with --resume"),
                  std::string::npos)
            << log;
        const long kept = tiles_kept(log);
        EXPECT_GT(kept, 0) << log;
        ASSERT_TRUE(fs::exists(f));
        EXPECT_LE(fs::file_size(f), limit);
        EXPECT_EQ(attribute(f, "complete"), 0);
        EXPECT_EQ(attribute(f, "resumable"), 1);
        EXPECT_THROW(Hdf5TableReader{f}, Error);

        // Resumed with a little more room, it fills that and stops again, keeping more.
        const int again = run_with_file_limit(command(run, f) + " --resume", final_size * 3 / 4,
                                              dir.file("log2"));
        const std::string log2 = slurp(dir.file("log2"));
        ASSERT_EQ(again, 75) << log2;
        EXPECT_EQ(lines(log2), 1u) << log2;
        EXPECT_GT(tiles_kept(log2), kept) << log2;

        const auto resumed = run_grundy(command(run, f) + " --resume");
        ASSERT_EQ(resumed.status, 0) << resumed.output;
        EXPECT_EQ(attribute(f, "complete"), 1);
        EXPECT_EQ(attribute(f, "resumed_runs"), 2);
        expect_same_table(f, ref, table_in_memory(run.rows, run.cols));
    }
}

// The disk fills up at the last chunk, written after the engine's last tile (the writer takes
// the chunks in batches): the run stops as on a full disk mid-run, exit status 75 and the file
// kept, where it used to fail with status 2 and remove a file that --resume could finish.
TEST_F(CliResume, FullDiskAtTheLastChunkStopsTheRunToo) {
    const RunSpec run{2048, 2048, 128, "--threads 2 --no-pyramid"};
    const std::string ref = dir.file("ref.h5"), f = dir.file("full.h5");
    ASSERT_EQ(run_grundy(command(run, ref) + " --force -q").status, 0);
    // Room for all but the last chunk (about 20 KB) with the 1 MiB the writer keeps for closing.
    const rlim_t limit = fs::file_size(ref) + (1 << 20) - 20000;
    const int status = run_with_file_limit(command(run, f), limit, dir.file("log"));
    const std::string log = slurp(dir.file("log"));
    ASSERT_EQ(status, 75) << log;
    EXPECT_NE(log.find("cannot write " + f + ": File too large; stopped after "), std::string::npos)
        << log;
    EXPECT_EQ(attribute(f, "complete"), 0);
    EXPECT_EQ(attribute(f, "resumable"), 1);
    const auto resumed = run_grundy(command(run, f) + " --resume");
    ASSERT_EQ(resumed.status, 0) << resumed.output;
    expect_same_table(f, ref, table_in_memory(run.rows, run.cols));
}

// No room even to start: one line, exit status 2, no file left behind.
TEST_F(CliResume, FullDiskBeforeTheFirstTile) {
    const std::string f = dir.file("f.h5");
    const int status =
        run_with_file_limit("compute --rows 2048 --cols 2048 -o " + f, 64 << 10, dir.file("log"));
    const std::string log = slurp(dir.file("log"));
    EXPECT_EQ(status, 2) << log;
    EXPECT_EQ(lines(log), 1u) << log;
    EXPECT_NE(log.find("cannot write " + f + ": File too large"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(f));
}

// Without room allocated ahead (GRUNDY_PREALLOCATE=0) the full disk strikes inside HDF5, which
// then cannot close the file either: one line says that it cannot be resumed and has been
// removed, exit status 2, and the process does not crash on its way out.
TEST_F(CliResume, FullDiskInsideHdf5RemovesTheFile) {
    const std::string f = dir.file("f.h5");
    const int status = run_with_file_limit("compute --rows 2048 --cols 2048 --tile 128 -o " + f,
                                           1 << 20, dir.file("log"), {"GRUNDY_PREALLOCATE=0"});
    const std::string log = slurp(dir.file("log"));
    EXPECT_EQ(status, 2) << log;
    EXPECT_EQ(lines(log), 1u) << log;
    EXPECT_NE(log.find("cannot be resumed and has been removed"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(f));
}

// A second signal while stopping ends the run at once and removes its file.
TEST_F(CliResume, SecondSignalAbortsAtOnce) {
    const RunSpec run{4096, 4096, 512, "--threads 1"};
    const std::string f = dir.file("f.h5");
    const pid_t pid =
        spawn_grundy(command(run, f) + " --test-pause-after-chunks 2", dir.file("log"));
    ASSERT_GT(pid, 0);
    // Under way: its first chunks written. Both signals pending at once (the run stopped while
    // they are sent): the second always comes while the first stop is still waiting for the
    // tiles in flight. Another signal number, so that the two are not merged into one.
    ASSERT_TRUE(testing::signal_at_pause(pid, {SIGTERM, SIGINT}))
        << "the run ended before the signals: " << slurp(dir.file("log"));
    const int status = wait_grundy(pid);
    const std::string log = slurp(dir.file("log"));
    // Pending signals are taken lowest number first, so which of the two is the second (the one
    // the process dies of) is the kernel's choice; that it dies of one of them is not.
    EXPECT_TRUE(status == 128 + SIGINT || status == 128 + SIGTERM) << status << ": " << log;
    EXPECT_NE(log.find("stopped at once by a second signal"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(f));
}

}  // namespace
}  // namespace grundy
