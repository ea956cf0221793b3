// AtomicFile (base/atomic_file.hpp): the bytes written, in pieces of every size, whether they
// go through the page cache or past it; a file not committed leaves nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/atomic_file.hpp"
#include "support/direct_io.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::base {
namespace {

using grundy::testing::direct_io_works;
using grundy::testing::file_bytes;
using grundy::testing::ScratchDir;

// Pieces that start and end off every block boundary, one of exactly the staging size, one
// that spans several, and a tail shorter than a block.
const size_t kPieces[] = {1, 5'000'003, size_t{4} << 20, 17, (size_t{8} << 20) + 4095, 100};

TEST(AtomicFile, WritesEveryPieceThroughTheCacheOrPastIt) {
    ScratchDir dir;
    std::string expected;
    for (size_t i = 0; i < std::size(kPieces); ++i)
        for (size_t k = 0; k < kPieces[i]; ++k)
            expected.push_back(static_cast<char>((k * 131 + i * 7) >> 3));
    for (const bool direct : {false, true}) {
        const std::string path = dir / (direct ? "direct" : "cached");
        AtomicFile f(path, "test", direct);
        size_t at = 0;
        for (const size_t n : kPieces) {
            f.write(expected.data() + at, n);
            at += n;
        }
        EXPECT_FALSE(std::filesystem::exists(path));  // only PATH.tmp until the commit
        f.commit();
        EXPECT_TRUE(file_bytes(path) == expected) << (direct ? "direct" : "through the cache");
        EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
        if (!direct) {
            EXPECT_EQ(f.direct_bytes(), 0u);
        } else if (direct_io_works(dir)) {
            // Every whole 4 MiB block went past the cache, the last partial one through it.
            EXPECT_EQ(f.direct_bytes(), expected.size() / (4 << 20) * (4 << 20));
        }
    }
}

TEST(AtomicFile, NotCommittedLeavesTheOldFile) {
    ScratchDir dir;
    const std::string path = dir / "kept";
    {
        AtomicFile f(path);
        f.write("old");
        f.commit();
    }
    {
        AtomicFile f(path, "test", true);
        const std::string big(size_t{9} << 20, 'n');
        f.write(big.data(), big.size());
    }  // dropped without commit()
    EXPECT_EQ(file_bytes(path), "old");
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

}  // namespace
}  // namespace grundy::base
