// grundy compute / run through the real binary: HDF5 round trip and every bad-input case.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "support/cli.hpp"
#include "support/reference.hpp"
#include "support/scratch_dir.hpp"
#include "support/table_files.hpp"

namespace grundy {
namespace {

using namespace testing;  // tests/support: scratch directories, the CLI, tables

TEST(CliCompute, Hdf5RoundTrip) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    const auto r = run_grundy("compute --rows 150 --cols 317 --tile 64 --threads 2 -o " + f);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("47550 cells"), std::string::npos) << r.output;
    // Values against an independent direct-mex table.
    const auto direct = testing::direct_mex_table(150, 317);
    Hdf5TableReader reader(f);
    std::vector<uint32_t> values(150 * 317);
    reader.read(0, 0, 317, 150, values.data());
    EXPECT_EQ(values, direct);
    // Layout and attributes, through the HDF5 C API rather than our reader.
    hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    hid_t ds = H5Dopen2(file, "grundy", H5P_DEFAULT);
    hid_t type = H5Dget_type(ds);
    EXPECT_EQ(H5Tget_class(type), H5T_INTEGER);
    EXPECT_EQ(H5Tget_sign(type), H5T_SGN_NONE);
    EXPECT_EQ(H5Tget_size(type), 2u);
    hid_t space = H5Dget_space(ds);
    hsize_t dims[2];
    H5Sget_simple_extent_dims(space, dims, nullptr);
    EXPECT_EQ(dims[0], 150u);
    EXPECT_EQ(dims[1], 317u);
    hid_t dcpl = H5Dget_create_plist(ds);
    EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
    hsize_t chunk[2];
    H5Pget_chunk(dcpl, 2, chunk);
    EXPECT_EQ(chunk[0], 64u);
    EXPECT_EQ(chunk[1], 64u);
    ASSERT_EQ(H5Pget_nfilters(dcpl), 3);
    unsigned flags;
    size_t nelmts = 0;
    EXPECT_EQ(H5Pget_filter2(dcpl, 0, &flags, &nelmts, nullptr, 0, nullptr, nullptr),
              H5Z_FILTER_SHUFFLE);
    nelmts = 0;
    EXPECT_EQ(H5Pget_filter2(dcpl, 1, &flags, &nelmts, nullptr, 0, nullptr, nullptr),
              H5Z_FILTER_DEFLATE);
    nelmts = 0;  // last, over the bytes as stored: every chunk's checksum
    EXPECT_EQ(H5Pget_filter2(dcpl, 2, &flags, &nelmts, nullptr, 0, nullptr, nullptr),
              H5Z_FILTER_FLETCHER32);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(ds);
    H5Fclose(file);
    EXPECT_EQ(reader.string_attribute("game").value_or(""), "wythoff");
    EXPECT_EQ(reader.int_attribute("rows").value_or(0), 150);
    EXPECT_EQ(reader.int_attribute("cols").value_or(0), 317);
    EXPECT_EQ(reader.int_attribute("threads").value_or(0), 2);
    EXPECT_EQ(reader.int_attribute("complete").value_or(0), 1);
    EXPECT_EQ(reader.string_attribute("software").value_or(""), "grundy");
    EXPECT_TRUE(reader.string_attribute("software_version"));
    EXPECT_EQ(reader.string_attribute("created").value_or("").size(), 20u);  // ISO 8601, UTC
    EXPECT_GT(reader.double_attribute("elapsed_seconds").value_or(-1), 0.0);
}

TEST(CliCompute, NoCompressionAndWideValues) {
    ScratchDir dir;
    // X + Y - 2 > 65535: stored as 32-bit values.
    ASSERT_EQ(run_grundy("compute --rows 3 --cols 70000 --compression none -o " + dir.file("w.h5"))
                  .status,
              0);
    expect_file_equals(dir.file("w.h5"), table_in_memory(3, 70000));
    ASSERT_EQ(run_grundy("compute --rows 130 --cols 130 --compression deflate:1 --tile 48 -o " +
                         dir.file("d.h5"))
                  .status,
              0);
    expect_file_equals(dir.file("d.h5"), table_in_memory(130, 130));
}

// The chunks go past the page cache by default (io/direct_writes.hpp), through it with
// --buffered-writes: chunks of 512 x 512 values are large enough for whole pages to go directly.
TEST(CliCompute, DirectAndBufferedWritesGiveTheSameTable) {
    ScratchDir dir;
    const MemoryTable expected = table_in_memory(1100, 1300);
    for (const char* mode : {"", " --buffered-writes", " --compression none"}) {
        const std::string f = dir.file("t.h5");
        const std::string args = "compute --rows 1100 --cols 1300 --tile 512 --threads 2 --force";
        const auto r = run_grundy(args + " -o " + f + mode);
        ASSERT_EQ(r.status, 0) << mode << ": " << r.output;
        expect_file_equals(f, expected);
    }
}

// Blosc (filter 32001): values read back by our reader's own decoder and by HDF5 through the
// filter plugin, and the filter's parameters as its plugin writes them.
TEST(CliCompute, BloscRoundTrip) {
    ScratchDir dir;
    const auto expected = table_in_memory(150, 317);
    for (const std::string c : {"blosc", "blosc:zstd:3", "blosc:blosclz:9"}) {
        const std::string f = dir.file(c.substr(0, 6) + std::to_string(c.size()) + ".h5");
        const auto r = run_grundy("compute --rows 150 --cols 317 --tile 32 -q --compression " + c +
                                  " -o " + f);
        ASSERT_EQ(r.status, 0) << r.output;
        expect_file_equals(f, expected);
        hid_t file = H5Fopen(f.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = H5Dopen2(file, "grundy", H5P_DEFAULT);
        hid_t dcpl = H5Dget_create_plist(ds);
        ASSERT_EQ(H5Pget_nfilters(dcpl), 2);
        unsigned flags = 0, cd[8] = {};
        size_t n = 0;
        EXPECT_EQ(H5Pget_filter2(dcpl, 1, &flags, &n, nullptr, 0, nullptr, nullptr),
                  H5Z_FILTER_FLETCHER32);
        n = 8;
        EXPECT_EQ(H5Pget_filter2(dcpl, 0, &flags, &n, cd, 0, nullptr, nullptr), 32001);
        ASSERT_GE(n, 7u);
        EXPECT_EQ(cd[2], 2u);              // value bytes
        EXPECT_EQ(cd[3], 32u * 32 * 2);    // chunk bytes
        EXPECT_EQ(cd[5], 1u);              // byte shuffle
        if (H5Zfilter_avail(32001) > 0) {  // the plugin (scripts/setup.sh installs it)
            std::vector<uint16_t> all(150 * 317);
            EXPECT_GE(H5Dread(ds, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()), 0);
            EXPECT_TRUE(std::equal(all.begin(), all.end(), expected.values().begin())) << c;
        }
        H5Pclose(dcpl);
        H5Dclose(ds);
        H5Fclose(file);
    }
    // Chunks that do not shrink are stored raw (test_chunk_codec.cpp); tiny ones here.
    const std::string f = dir.file("small.h5");
    ASSERT_EQ(
        run_grundy("compute --rows 40 --cols 40 --tile 8 -q --compression blosc -o " + f).status,
        0);
    expect_file_equals(f, table_in_memory(40, 40));
}

TEST(CliCompute, RefusesToOverwriteWithoutForce) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    ASSERT_EQ(run_grundy("compute --rows 20 --cols 20 -q -o " + f).status, 0);
    const auto again = run_grundy("compute --rows 20 --cols 20 -q -o " + f);
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.output.find("exists"), std::string::npos) << again.output;
    EXPECT_EQ(run_grundy("compute --rows 21 --cols 20 -q --force -o " + f).status, 0);
    EXPECT_EQ(Hdf5TableReader(f).rows(), 21u);
    // Through a link, --force replaces what it points to (the old file removed beside the run
    // only where the name is the file itself, base/background_removal.hpp).
    const std::string link = dir.file("link.h5");
    ASSERT_EQ(::symlink(f.c_str(), link.c_str()), 0);
    EXPECT_EQ(run_grundy("compute --rows 22 --cols 20 -q --force -o " + link).status, 0);
    struct stat st {};
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    EXPECT_EQ(Hdf5TableReader(f).rows(), 22u);
}

// Room is allocated on the disk ahead of the chunks (a full disk must not strike inside HDF5),
// up to 33 MB past the end: a finished table gives it back, here a file of 580 KB.
TEST(CliCompute, AFinishedTableKeepsNoRoomPastItsEnd) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    ASSERT_EQ(run_grundy("compute --rows 700 --cols 700 -q -o " + f).status, 0);
    struct stat st {};
    ASSERT_EQ(::stat(f.c_str(), &st), 0);
    EXPECT_LE(static_cast<uint64_t>(st.st_blocks) * 512,
              static_cast<uint64_t>(st.st_size) + (uint64_t{1} << 20))
        << st.st_size << " bytes";
}

struct BadInput {
    std::string args;
    std::string message;  // a fragment the one-line error must contain
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitStatusTwoAndOneClearLine) {
    ScratchDir dir;
    std::string args = GetParam().args;
    for (size_t p; (p = args.find("DIR")) != std::string::npos;)
        args.replace(p, 3, dir.path().string());
    const auto r = run_grundy(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(GetParam().message), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    // Nothing left behind that claims to be complete.
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) ADD_FAILURE() << e.path();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(
        BadInput{"compute --rows -5 --cols 10 -o DIR/t.h5", "--rows"},
        BadInput{"compute --rows 0 --cols 10 -o DIR/t.h5", "--rows must be a whole number from 1"},
        BadInput{"compute --rows abc --cols 10 -o DIR/t.h5", "'abc'"},
        BadInput{"compute --rows 1.5 --cols 10 -o DIR/t.h5", "'1.5'"},
        BadInput{"compute --rows 4294967296 --cols 4294967296 -o DIR/t.h5", "--rows"},
        BadInput{"compute --rows 2^32 --cols 10 -o DIR/t.h5", "--rows"},
        BadInput{"compute --rows 99999999999999999999999 --cols 10 -o DIR/t.h5", "too large"},
        BadInput{"compute --rows 2^31 --cols 2^31 -o DIR/t.h5", "of state; this machine has"},
        BadInput{"compute --rows 10 --cols 10 --bogus 1 -o DIR/t.h5", "unrecognised option"},
        BadInput{"compute --cols 10 -o DIR/t.h5", "--rows"},
        BadInput{"compute --rows 10 --cols 10", "--output"},
        BadInput{"compute --rows 10 --cols 10 --threads 0 -o DIR/t.h5", "--threads"},
        BadInput{"compute --rows 10 --cols 10 --tile 3 -o DIR/t.h5", "--tile"},
        BadInput{"compute --rows 10 --cols 10 --compression lzma -o DIR/t.h5", "compression"},
        BadInput{"compute --rows 10 --cols 10 --compression blosc:lzma -o DIR/t.h5", "blosc"},
        BadInput{"compute --rows 10 --cols 10 --compression blosc:lz4:0 -o DIR/t.h5", "LEVEL"},
        BadInput{"compute --rows 10 --cols 10 --compression deflate:10 -o DIR/t.h5", "LEVEL"},
        BadInput{"compute --rows 10 --cols 10 --kernel magic -o DIR/t.h5", "--kernel"},
        BadInput{"compute --rows 10 --cols 10 -o DIR/missing/t.h5", "does not exist"},
        BadInput{"compute --rows 10 --cols 10 -o /proc/grundy-test.h5", "/proc"},
        BadInput{"frobnicate", "unknown command"},
        BadInput{"run DIR/none.ini", "cannot read job file"}));

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

TEST(CliRun, JobFileWithOverrides) {
    ScratchDir dir;
    const std::string job = dir.file("job.ini");
    write_file(job, "# a job\n[compute]\nrows = 40\ncols = 50\noutput = " + dir.file("a.h5") +
                        "\nquiet = true\n");
    ASSERT_EQ(run_grundy("run " + job).status, 0);
    expect_file_equals(dir.file("a.h5"), table_in_memory(40, 50));
    // The command line overrides the file.
    const auto r = run_grundy("run " + job + " --rows 7 --output " + dir.file("b.h5"));
    ASSERT_EQ(r.status, 0) << r.output;
    expect_file_equals(dir.file("b.h5"), table_in_memory(7, 50));
}

TEST(CliRun, MalformedJobFiles) {
    ScratchDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"[compute\nrows = 4\n", "malformed section header"},
        {"[nonsense]\nrows = 4\n", "unknown section"},
        {"rows = 4\n", "outside any [section]"},
        {"[compute]\nrows 4\n", "expected 'key = value'"},
        {"[compute]\nrows = 4\ncols = 4\nno-output = true\ncolour = red\n", "colour"},
        {"[compute]\nrows = x\ncols = 4\nno-output = true\n", "'x'"},
        {"", "has no sections"},
    };
    for (const auto& [text, message] : cases) {
        write_file(dir.file("bad.ini"), text);
        const auto r = run_grundy("run " + dir.file("bad.ini"));
        EXPECT_EQ(r.status, 2) << text;
        EXPECT_NE(r.output.find(message), std::string::npos) << text << "\n" << r.output;
    }
    write_file(dir.file("ok.ini"), "[compute]\nrows = 4\ncols = 4\nno-output = true\n");
    const auto r = run_grundy("run " + dir.file("ok.ini") + " --colour red");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("not used by any section"), std::string::npos) << r.output;
}

// A run that does not end is described and killed by the tests' wait instead of hanging the
// test until ctest's timeout (tests/support/cli.hpp): here a run frozen by SIGSTOP.
TEST(CliSupport, AHungRunIsDescribedAndEnded) {
    ScratchDir dir;
    const pid_t pid =
        spawn_grundy("compute --rows 16384 --cols 16384 --no-output -q", dir.file("log"));
    ASSERT_GT(pid, 0);
    const std::string comm = "/proc/" + std::to_string(pid) + "/comm";
    ASSERT_TRUE(wait_for(pid, [&] { return slurp(comm) == "grundy\n"; })) << slurp(comm);
    ASSERT_EQ(::kill(pid, SIGSTOP), 0);
    siginfo_t info{};
    ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(pid), &info, WSTOPPED | WNOWAIT), 0);
    const std::string described = describe_process(pid);
    EXPECT_NE(described.find("(grundy)"), std::string::npos) << described;
    EXPECT_NE(described.find("state T"), std::string::npos) << described;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(wait_grundy(pid, std::chrono::seconds(1)), 128 + SIGKILL);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// grundy runs as the user started it: no second exec with glibc's malloc tunables (the
// engine's windows have their own allocator, engine/window_memory.cpp), so the process keeps
// the environment it was given and its name.
TEST(CliCompute, RunsWithoutStartingItselfAgain) {
    ScratchDir dir;
    SpawnOptions o;
    o.log = dir.file("log");
    o.env = {"GRUNDY_TEST_MARK=kept"};
    const pid_t pid = spawn_grundy(words("compute --rows 16384 --cols 16384 --no-output"), o);
    ASSERT_GT(pid, 0);
    const std::string proc = "/proc/" + std::to_string(pid);
    std::string name, environment;
    // Until the exec is done (the run lasts seconds more) and its environment readable: read
    // at the moment of the exec, /proc/PID/environ can come back empty (a flaky failure in CI).
    const bool named = wait_for(pid, [&] {
        name = slurp(proc + "/comm");
        environment = slurp(proc + "/environ");
        return name == "grundy\n" && !environment.empty();
    });
    kill(pid, SIGKILL);
    wait_grundy(pid);
    EXPECT_TRUE(named) << "the process was never named grundy with an environment: " << name;
    // Read while it runs (a process that has ended shows an empty environment).
    EXPECT_NE(environment.find("GRUNDY_TEST_MARK=kept"), std::string::npos) << environment;
    EXPECT_EQ(environment.find("glibc.malloc."), std::string::npos);
}

TEST(CliCompute, HelpAndVersion) {
    EXPECT_EQ(run_grundy("--version").status, 0);
    const auto top = run_grundy("--help");
    EXPECT_EQ(top.status, 0);
    EXPECT_NE(top.output.find("compute"), std::string::npos);
    const auto help = run_grundy("compute --help");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.output.find("--compression"), std::string::npos);
    EXPECT_EQ(run_grundy("run --help").status, 0);
}

// SIGTERM stops the run cleanly: exit status 75 (EX_TEMPFAIL), one line saying how far it got and
// how to go on, and the file kept for --resume, marked incomplete (test_resume_cli.cpp goes on from
// there).
TEST(CliCompute, InterruptedRunKeepsResumableFile) {
    ScratchDir dir;
    const std::string f = dir.file("big.h5");
    const pid_t pid = testing::spawn_grundy(
        "compute --rows 6000 --cols 6000 --threads 1 --test-pause-after-chunks 4 -o " + f,
        dir.file("log"));
    ASSERT_GT(pid, 0);
    // Stopped once it has written its first 4 chunks (the run is under way).
    ASSERT_TRUE(testing::signal_at_pause(pid, {SIGTERM}))
        << "the run ended before SIGTERM: " << slurp(dir.file("log"));
    EXPECT_EQ(testing::wait_grundy(pid), 75);
    const std::string text = slurp(dir.file("log"));
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_EQ(text.find("error"), std::string::npos) << text;  // a stop, not a failure
    EXPECT_NE(text.find("interrupted by signal 15 after"), std::string::npos) << text;
    EXPECT_NE(text.find(" tiles; " + f + " keeps them"), std::string::npos) << text;
    EXPECT_NE(text.find("--resume"), std::string::npos) << text;
    ASSERT_TRUE(std::filesystem::exists(f));
    Hdf5TableReader reader(f, true);
    EXPECT_FALSE(reader.complete());
    EXPECT_EQ(reader.int_attribute("resumable").value_or(0), 1);
    EXPECT_THROW(Hdf5TableReader{f}, Error);  // readers refuse it
}

}  // namespace
}  // namespace grundy
