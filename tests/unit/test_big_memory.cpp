// base::prefault (base/big_memory.hpp): every page of a fresh mapping present after it, and
// none before, as the kernel reports them (mincore), on one thread and on several; a buffer
// that starts inside a page and ends inside another is covered too; a cancelled one stops.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/big_memory.hpp"

namespace grundy::base {
namespace {

// How many of the pages of [p, p + bytes) are resident.
size_t resident_pages(const void* p, size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(p) / page * page;
    const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
    std::vector<unsigned char> in((end - begin + page - 1) / page);
    EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, in.data()), 0);
    size_t n = 0;
    for (unsigned char c : in) n += c & 1;
    return n;
}

TEST(BigMemory, PrefaultMakesEveryPagePresent) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (int threads : {1, 2, 3}) {
        const size_t pages = 1000;
        SmallPageBlock block(pages * page);
        ASSERT_EQ(resident_pages(block.data(), block.bytes()), 0u);  // fresh: nothing yet
        prefault(block.data(), block.bytes(), threads);
        EXPECT_EQ(resident_pages(block.data(), block.bytes()), pages) << threads << " threads";
    }
}

TEST(BigMemory, PrefaultCoversAnUnalignedBufferAndNothingAround) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    SmallPageBlock block(600 * page);
    char* base = static_cast<char*>(block.data());
    // From the middle of page 100 to the middle of page 499: pages 100..499.
    prefault(base + 100 * page + page / 2, 399 * page, 2);
    EXPECT_EQ(resident_pages(base + 100 * page, 400 * page), 400u);
    EXPECT_EQ(resident_pages(base, 100 * page), 0u);
    EXPECT_EQ(resident_pages(base + 500 * page, 100 * page), 0u);
}

TEST(BigMemory, PrefaultStopsOnceCancelled) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    SmallPageBlock block(size_t{128} << 20);  // two pieces of 64 MiB
    const std::atomic<bool> cancel{true};
    prefault(block.data(), block.bytes(), 2, &cancel);
    EXPECT_EQ(resident_pages(block.data(), block.bytes()), 0u);
    const std::atomic<bool> go{false};
    prefault(block.data(), block.bytes(), 2, &go);
    EXPECT_EQ(resident_pages(block.data(), block.bytes()), block.bytes() / page);
}

}  // namespace
}  // namespace grundy::base
