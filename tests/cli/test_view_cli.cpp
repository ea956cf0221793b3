// grundy view stopped while it builds a table's pyramid: SIGTERM and SIGINT end the build at
// the next band of rows, the command exits as a stopped viewer does (status 0), and no pyramid
// file is left, whole or half written; the next view builds it again.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

using namespace testing;
namespace fs = std::filesystem;

// 6144 x 4608 (wider than 4096: the view needs a pyramid) without one; its pyramid is built from
// three bands of 2048 rows.
class CliViewBuild : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new ScratchDir;
        table_ = dir_->file("t.h5");
        const auto r =
            run_grundy("compute --rows 6144 --cols 4608 --tile 512 --no-pyramid -q -o " + table_);
        ASSERT_EQ(r.status, 0) << r.output;
    }
    static void TearDownTestSuite() { delete dir_; }
    static ScratchDir* dir_;
    static std::string table_;
};
ScratchDir* CliViewBuild::dir_ = nullptr;
std::string CliViewBuild::table_;

TEST_F(CliViewBuild, SignalDuringTheBuildStopsItAndLeavesNoPyramid) {
    for (const int sig : {SIGTERM, SIGINT}) {
        SCOPED_TRACE(sig);
        const std::string log = dir_->file("log");
        const std::string pyramid = table_ + ".pyramid";
        // Stopped by the testing aid once one band is read: two bands are left to read.
        const pid_t pid =
            spawn_grundy("view " + table_ + " --port 0 --test-pause-after-bands 1", log);
        ASSERT_TRUE(signal_at_pause(pid, {sig})) << slurp(log);
        const auto signalled = std::chrono::steady_clock::now();
        const int status = wait_grundy(pid);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
        std::printf("view's exit %.3f s after signal %d during the pyramid's build\n", seconds,
                    sig);
        const std::string out = slurp(log);
        EXPECT_EQ(status, 0) << out;
        EXPECT_NE(out.find("stopped by signal " + std::to_string(sig) +
                           " while building the zoomed-out views; nothing saved"),
                  std::string::npos)
            << out;
        EXPECT_EQ(out.find("http://"), std::string::npos) << "it served: " << out;
        EXPECT_FALSE(fs::exists(pyramid)) << out;
        EXPECT_FALSE(fs::exists(pyramid + ".tmp")) << out;
        // Generous for a loaded machine: what counts is that the rest was never read (no
        // pyramid), but a stop never waits minutes.
        EXPECT_LT(seconds, 60.0);
    }
    // The next view builds the pyramid again, saves it, and serves.
    const std::string log = dir_->file("log2");
    const pid_t pid = spawn_grundy("view " + table_ + " --port 0", log);
    ASSERT_TRUE(wait_for(pid, [&] { return slurp(log).find("http://") != std::string::npos; }))
        << slurp(log);
    ASSERT_TRUE(signal_while_running(pid, {SIGTERM})) << slurp(log);
    EXPECT_EQ(wait_grundy(pid), 0) << slurp(log);
    EXPECT_TRUE(fs::exists(table_ + ".pyramid")) << slurp(log);
    EXPECT_NE(slurp(log).find(table_ + ".pyramid (built now)"), std::string::npos) << slurp(log);
}

}  // namespace
}  // namespace grundy
