// base::write_direct (base/direct_io.hpp): what it returns, and what errno says, when a direct
// write succeeds, when it must fall back to the page cache and when it fails for real.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/direct_io.hpp"
#include "support/direct_io.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::base {
namespace {

using grundy::testing::direct_io_works;
using grundy::testing::file_bytes;
using grundy::testing::ScratchDir;

struct AlignedPages {
    explicit AlignedPages(size_t pages) : bytes(pages * kDirectAlign) {
        EXPECT_EQ(::posix_memalign(&data, kDirectAlign, bytes + kDirectAlign), 0);
        for (size_t i = 0; i < bytes + kDirectAlign; ++i)
            static_cast<char*>(data)[i] = static_cast<char>('a' + i % 23);
    }
    ~AlignedPages() { std::free(data); }
    void* data = nullptr;
    size_t bytes;
};

TEST(DirectIo, WritesEveryPageAtItsOffset) {
    ScratchDir dir;
    const std::string path = dir / "f";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
    if (fd < 0 || !direct_io_works(dir)) {
        // Where the file system refuses O_DIRECT, the writer learns it as EINVAL.
        if (fd >= 0) {
            AlignedPages pages(1);
            EXPECT_EQ(write_direct(fd, pages.data, pages.bytes, 0), 0u);
            EXPECT_EQ(errno, EINVAL);
            ::close(fd);
        }
        return;
    }
    AlignedPages pages(3);
    EXPECT_EQ(write_direct(fd, pages.data, pages.bytes, 2 * kDirectAlign), pages.bytes);
    ::close(fd);
    const std::string back = file_bytes(path);
    ASSERT_EQ(back.size(), 5 * kDirectAlign);
    EXPECT_EQ(back.substr(0, 2 * kDirectAlign), std::string(2 * kDirectAlign, '\0'));
    EXPECT_EQ(back.substr(2 * kDirectAlign),
              std::string(static_cast<char*>(pages.data), pages.bytes));
}

TEST(DirectIo, AnUnalignedBufferIsRefusedAsEinval) {
    ScratchDir dir;
    const std::string path = dir / "f";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << "O_DIRECT refused at open: " << std::strerror(errno);
    AlignedPages pages(1);
    errno = 0;
    // Refused whether or not the file system takes aligned direct writes.
    EXPECT_EQ(write_direct(fd, static_cast<char*>(pages.data) + 1, pages.bytes, 0), 0u);
    EXPECT_EQ(errno, EINVAL);  // the caller writes the rest through the cache
    ::close(fd);
}

TEST(DirectIo, ARealErrorIsReportedAsItIs) {
    AlignedPages pages(1);
    errno = 0;
    EXPECT_EQ(write_direct(-1, pages.data, pages.bytes, 0), 0u);
    EXPECT_EQ(errno, EBADF);  // not EINVAL: the caller fails instead of falling back
}

}  // namespace
}  // namespace grundy::base
