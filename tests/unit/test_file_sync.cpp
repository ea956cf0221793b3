// base/file_sync.hpp: a path's folder, and a file flushed to disk or a clear error naming it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/file_sync.hpp"
#include "grundy/error.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::base {
namespace {

using grundy::testing::ScratchDir;

TEST(FileSync, FolderOfABareNameIsTheCurrentFolder) {
    EXPECT_EQ(folder_of("table.h5"), ".");
    EXPECT_EQ(folder_of("results/table.h5"), "results");
    EXPECT_EQ(folder_of("/tmp/table.h5"), "/tmp");
    EXPECT_EQ(folder_of("/table.h5"), "/");
    EXPECT_EQ(folder_of("./table.h5"), ".");
}

TEST(FileSync, SyncsAFileAndItsFolder) {
    ScratchDir dir;
    const std::string path = dir / "f.txt";
    std::ofstream(path) << "bytes";
    EXPECT_NO_THROW(sync_path(path));
    EXPECT_NO_THROW(sync_folder_of(path));
    EXPECT_NO_THROW(sync_folder_of(dir / "missing/f.txt"));  // best effort: nothing to sync
}

TEST(FileSync, AMissingFileIsAnErrorNamingIt) {
    ScratchDir dir;
    const std::string path = dir / "missing.h5";
    try {
        sync_path(path);
        FAIL() << "no error for " << path;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace grundy::base
