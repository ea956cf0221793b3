// The checkpoint's files on disk (strip/certify/checkpoint.hpp): a save is in place only once all
// its bytes are, and what an interrupted save of several ranks leaves beside the manifest is
// removed without touching the parts the manifest names. The runs of ranks killed while saving are
// in tests/python/test_mpi.py (mpirun).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "grundy/periods.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/strip_config.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;

fs::path fresh_folder(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::set<std::string> files_in(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
    return names;
}

TEST(CheckpointFiles, SaveIsInPlaceOnlyOnceWritten) {
    const fs::path dir = fresh_folder("grundy_ckfiles_save");
    const fs::path ck = dir / "ck";
    std::atomic<bool> stop{false};
    PeriodsOptions o;
    o.rows = 72;
    o.threads = 1;
    o.checkpoint = ck.string();
    o.checkpoint_every = 1e9;  // only the checkpoint of the stop
    o.cancel = &stop;
    // The stop is asked for after the first production block (columns 0..144) and made after
    // the second (columns 145..65680), before the run's last, which ends at x0 + ring + 1 =
    // 73769.
    strip::RunHooks hooks;
    hooks.after_block = [&](uint64_t) { stop.store(true); };
    int commits = 0;
    bool only_tmp = false;
    hooks.before_commit = [&] {
        ++commits;
        only_tmp = fs::file_size(dir / "ck.tmp") > 0 && !fs::exists(ck);
    };
    const PeriodsResult r = strip::certify_row_periods(o, hooks).periods;
    EXPECT_EQ(r.status, PeriodsResult::Status::Interrupted);
    EXPECT_TRUE(r.checkpoint_saved);
    EXPECT_EQ(r.column, 145 + strip::kBlockColumns);
    EXPECT_EQ(commits, 1);
    EXPECT_TRUE(only_tmp) << "the hook runs with the bytes in ck.tmp and nothing at ck yet";
    EXPECT_EQ(files_in(dir), std::set<std::string>{"ck"});
    fs::remove_all(dir);
}

TEST(CheckpointFiles, StrayPartsAreRemovedAndTheManifestsKept) {
    const fs::path dir = fresh_folder("grundy_ckfiles_strays");
    const std::set<std::string> kept = {
        "ck",           "ck.rank0.4096", "ck.rank1.4096",  // the manifest and its parts
        "ck2.rank0.10", "ck2.tmp",       "ckx.tmp",        // another checkpoint's files
        "ck.csv",       "ck.rank0.x",    "ck.rank0.10.bak", "ck.rank.10"};  // not parts
    const std::set<std::string> strays = {
        "ck.rank0.2048",      // an older save's part, left by a run killed before removing it
        "ck.rank0.8192",      // a newer save's part whose manifest was never written
        "ck.rank1.8192.tmp",  // a newer save's part killed while being written
        "ck.tmp"};            // a manifest killed while being written
    for (const auto* names : {&kept, &strays})
        for (const std::string& name : *names) std::ofstream(dir / name) << name;
    EXPECT_EQ(strip::remove_stray_parts((dir / "ck").string(), 4096), strays.size());
    EXPECT_EQ(files_in(dir), kept);
    EXPECT_EQ(strip::remove_stray_parts((dir / "ck").string(), 4096), 0u);

    // A manifest named without a folder: its strays in the current directory.
    const fs::path cwd = fs::current_path();
    fs::current_path(dir);
    std::ofstream("ck.rank2.1.tmp") << "x";
    EXPECT_EQ(strip::remove_stray_parts("ck", 4096), 1u);
    fs::current_path(cwd);
    EXPECT_EQ(files_in(dir), kept);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace grundy
