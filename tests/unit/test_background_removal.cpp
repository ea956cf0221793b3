// base::BackgroundRemoval (base/background_removal.hpp): the name is free as soon as it returns,
// a new file there is a file of its own, and the old one's last descriptor is closed (its blocks
// freed) by the time the object is gone; a link goes, not its target; a missing file is an
// error in one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/background_removal.hpp"
#include "grundy/error.hpp"
#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::base {
namespace {

namespace fs = std::filesystem;
using grundy::testing::ScratchDir;
using grundy::testing::slurp;

// Descriptors of this process open on a file once at `path` and since removed.
int open_removed(const std::string& path) {
    int n = 0;
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const fs::path target = fs::read_symlink(entry.path(), ec);
        if (!ec && target.string() == fs::absolute(path).string() + " (deleted)") ++n;
    }
    return n;
}

TEST(BackgroundRemoval, TheNameIsFreeAtOnceAndTheFileClosedAtTheEnd) {
    ScratchDir dir;
    const std::string path = dir / "t.h5";
    std::ofstream(path) << std::string(1 << 20, 'a');
    {
        BackgroundRemoval removal(path);
        EXPECT_FALSE(fs::exists(path));
        std::ofstream(path) << "new";  // the replacement, a file of its own
        EXPECT_EQ(slurp(path), "new");
    }
    EXPECT_EQ(open_removed(path), 0);
    EXPECT_EQ(slurp(path), "new");
}

TEST(BackgroundRemoval, ALinkGoesNotItsTarget) {
    ScratchDir dir;
    const std::string target = dir / "target", link = dir / "link";
    std::ofstream(target) << "kept";
    fs::create_symlink(target, link);
    { BackgroundRemoval removal(link); }
    EXPECT_FALSE(fs::exists(fs::symlink_status(link)));
    EXPECT_EQ(slurp(target), "kept");
}

TEST(BackgroundRemoval, AMissingFileIsAnError) {
    ScratchDir dir;
    const std::string path = dir / "none.h5";
    try {
        BackgroundRemoval removal(path);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot remove " + path + ": No such file or directory");
    }
}

}  // namespace
}  // namespace grundy::base
