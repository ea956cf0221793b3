// base::BackgroundSync (base/background_sync.hpp): flushes asked for every step of bytes, none
// below it, and the first error a flush met handed to the caller, who must not trust a later
// fsync alone.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "base/background_sync.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::base {
namespace {

using grundy::testing::ScratchDir;

std::string some_file(const ScratchDir& dir) {
    const std::string path = dir / "f";
    std::ofstream(path) << "some bytes";
    return path;
}

// Waits (at most 10 s) until the thread has made `n` flushes.
bool flushed(const BackgroundSync& sync, uint64_t n) {
    for (int i = 0; i < 1000 && sync.flushes() < n; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return sync.flushes() >= n;
}

TEST(BackgroundSync, FlushesOnceAStepIsWritten) {
    ScratchDir dir;
    BackgroundSync sync(some_file(dir), 1000);
    sync.wrote(999);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(sync.flushes(), 0u);  // below a step: nothing asked for
    sync.wrote(1);
    EXPECT_TRUE(flushed(sync, 1));
    sync.wrote(2500);  // counts from the request before: one more
    EXPECT_TRUE(flushed(sync, 2));
    EXPECT_EQ(sync.finish(), 0);
    EXPECT_EQ(sync.flushes(), 2u);
}

TEST(BackgroundSync, HandsTheFirstErrorToTheCaller) {
    ScratchDir dir;
    static int calls = 0;
    calls = 0;
    BackgroundSync sync(some_file(dir), 10, [](int) {
        errno = ++calls == 1 ? EIO : ENOSPC;
        return -1;
    });
    sync.wrote(10);
    ASSERT_TRUE(flushed(sync, 1));
    sync.wrote(10);
    ASSERT_TRUE(flushed(sync, 2));
    EXPECT_EQ(sync.finish(), EIO);
}

TEST(BackgroundSync, AFileThatCannotSyncIsNoError) {
    ScratchDir dir;
    // EINVAL: the file cannot be synced at all, which the caller's own fsync reports.
    BackgroundSync sync(some_file(dir), 10, [](int) {
        errno = EINVAL;
        return -1;
    });
    sync.wrote(10);
    ASSERT_TRUE(flushed(sync, 1));
    EXPECT_EQ(sync.finish(), 0);
}

TEST(BackgroundSync, AMissingFileIsLeftAlone) {
    ScratchDir dir;
    BackgroundSync sync(dir / "missing", 1);
    sync.wrote(100);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(sync.flushes(), 0u);
    EXPECT_EQ(sync.finish(), 0);
    EXPECT_EQ(sync.finish(), 0);  // twice is harmless
}

}  // namespace
}  // namespace grundy::base
