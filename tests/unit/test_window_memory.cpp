// The windows' allocator (engine/window_memory.hpp) on its own: size classes, reuse of freed
// blocks, blocks of every size (not multiples of pages, above the largest class), blocks freed
// by another thread than the one that took them, and everything given back after a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "engine/bit_window.hpp"
#include "engine/window_memory.hpp"
#include "grundy/engine.hpp"
#include "grundy/memory_table.hpp"

namespace grundy::engine {
namespace {

bool aligned64(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(WindowMemory, SizeClassesCoverTheRequestTightly) {
    uint64_t previous = 0;
    for (uint64_t bytes = 1; bytes <= (uint64_t{3} << 20); bytes += 1 + bytes / 37) {
        const uint64_t size = window_block_size(bytes);
        ASSERT_GE(size, bytes);
        ASSERT_EQ(size % 64, 0u) << bytes;
        ASSERT_GE(size, previous) << bytes;  // monotone
        if (bytes <= 1024) {
            ASSERT_LT(size, bytes + 64) << bytes;
        } else if (bytes <= kWindowBlockLargest) {
            // Four classes per doubling, each a cache line short of a quarter step.
            ASSERT_LE(size, bytes + bytes / 4 + 64) << bytes;
        } else {
            ASSERT_EQ(size % 4096, 0u) << bytes;
            ASSERT_LT(size, bytes + 4096) << bytes;
        }
        ASSERT_EQ(window_block_size(size), size) << bytes;  // a block's size is its class
        previous = size;
    }
}

// A tile's windows are a thousand blocks of one class, each read at the same offsets: their
// blocks must not start in a few cache sets (a 1 MiB, 16-way L2 cache has 1024 sets of 64-byte
// lines; blocks of 1500, 6000, 9000, 14000 and 24000 bytes fell in at most 128, 32, 25, 18 and 8 of
// them when the classes were multiples of 2 KiB and every slab's first block began after its
// header).
TEST(WindowMemory, BlocksOfOneClassSpreadOverTheCacheSets) {
    void* keep = allocate_window_block(100);
    for (uint64_t bytes : {1500u, 6000u, 9000u, 14000u, 24000u}) {
        std::vector<void*> blocks;
        std::set<uint64_t> sets;
        for (int i = 0; i < 1536; ++i) {
            blocks.push_back(allocate_window_block(bytes));
            sets.insert(reinterpret_cast<uintptr_t>(blocks.back()) / 64 % 1024);
        }
        EXPECT_GE(sets.size(), 200u)
            << bytes << "-byte blocks start in " << sets.size() << " of 1024 cache sets";
        for (void* b : blocks) free_window_block(b, bytes);
    }
    free_window_block(keep, 100);
}

// Freed blocks serve later requests: taking the same sizes again maps nothing more; and the
// last free gives everything back to the system.
TEST(WindowMemory, FreedBlocksAreReusedAndAllIsReleasedAtTheEnd) {
    const WindowMemoryStats before = window_memory_stats();
    ASSERT_EQ(before.live_blocks, 0u);  // every other test gives its blocks back
    // A block that stays taken, so that the others' frees do not release the mappings.
    void* keep = allocate_window_block(100);
    const uint64_t sizes[] = {1,       63, 64, 65, 1000, 4095, 4097, 12345, kWindowBlockLargest,
                              1u << 20};
    std::vector<void*> blocks;
    for (uint64_t bytes : sizes) blocks.push_back(allocate_window_block(bytes));
    for (void* p : blocks) EXPECT_TRUE(aligned64(p));
    const WindowMemoryStats taken = window_memory_stats();
    EXPECT_EQ(taken.live_blocks, std::size(sizes) + 1);
    for (int round = 1; round <= 3; ++round) {
        // Half of them freed and taken again: the blocks come back from their slabs' lists.
        for (size_t i = 0; i < blocks.size(); i += 2) free_window_block(blocks[i], sizes[i]);
        for (size_t i = 0; i < blocks.size(); i += 2) blocks[i] = allocate_window_block(sizes[i]);
        // All of them, in the reverse order, with sizes of the same class: the slabs come back
        // from the pool of empty ones.
        for (size_t i = 0; i < blocks.size(); ++i) free_window_block(blocks[i], sizes[i]);
        for (size_t i = blocks.size(); i-- > 0;)
            blocks[i] = allocate_window_block(window_block_size(sizes[i]));
        const WindowMemoryStats again = window_memory_stats();
        // The block above the largest class (the last, freed in the second half) is mapped anew.
        EXPECT_EQ(again.mappings_made, taken.mappings_made + round) << "round " << round;
        EXPECT_EQ(again.mapped_bytes, taken.mapped_bytes) << "round " << round;
        EXPECT_GT(again.reused_blocks, taken.reused_blocks);
    }
    for (size_t i = 0; i < blocks.size(); ++i) free_window_block(blocks[i], sizes[i]);
    EXPECT_GT(window_memory_stats().mapped_bytes, 0u);
    free_window_block(keep, 100);
    const WindowMemoryStats after = window_memory_stats();
    EXPECT_EQ(after.live_blocks, 0u);
    EXPECT_EQ(after.mapped_bytes, 0u);
    free_window_block(nullptr, 64);  // ignored
}

// Memory freed by blocks of one size serves blocks of another once whole slabs are free: the
// windows of a run grow through the classes, and what they leave behind must not stay in the
// classes they left.
TEST(WindowMemory, EmptiedSlabsServeOtherClasses) {
    void* keep = allocate_window_block(100);
    std::vector<void*> blocks;
    for (int i = 0; i < 20000; ++i) blocks.push_back(allocate_window_block(1500));
    const WindowMemoryStats small = window_memory_stats();
    for (void* p : blocks) free_window_block(p, 1500);
    blocks.clear();
    for (int i = 0; i < 20000 * 1500 / 6000; ++i) blocks.push_back(allocate_window_block(6000));
    EXPECT_EQ(window_memory_stats().mapped_bytes, small.mapped_bytes);
    EXPECT_EQ(window_memory_stats().mappings_made, small.mappings_made);
    for (void* p : blocks) free_window_block(p, 6000);
    free_window_block(keep, 100);
    EXPECT_EQ(window_memory_stats().mapped_bytes, 0u);
}

// Every byte of every block is the block's own: blocks of many sizes, alive together, each
// filled with its own pattern, none overwritten by another; large ones (above the largest
// class) mapped on their own.
void expect_blocks_not_to_overlap() {
    std::mt19937_64 rng(7);
    struct Block {
        unsigned char* p;
        uint64_t bytes;
        unsigned char fill;
    };
    std::vector<Block> blocks;
    for (int i = 0; i < 600; ++i) {
        const uint64_t bytes = i % 100 == 99 ? kWindowBlockLargest + 1 + rng() % 20000
                                             : 1 + rng() % (i % 3 == 0 ? 60000 : 5000);
        auto* p = static_cast<unsigned char*>(allocate_window_block(bytes));
        ASSERT_TRUE(aligned64(p));
        const auto fill = static_cast<unsigned char>(i);
        std::memset(p, fill, window_block_size(bytes));  // the whole block is usable
        blocks.push_back({p, bytes, fill});
        if (rng() % 3 == 0) {  // free one at random, so that later blocks reuse it
            const size_t k = rng() % blocks.size();
            free_window_block(blocks[k].p, blocks[k].bytes);
            blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(k));
        }
    }
    for (const Block& b : blocks) {
        const uint64_t size = window_block_size(b.bytes);
        ASSERT_EQ(std::count(b.p, b.p + size, b.fill), static_cast<std::ptrdiff_t>(size));
    }
    for (const Block& b : blocks) free_window_block(b.p, b.bytes);
    EXPECT_EQ(window_memory_stats().live_blocks, 0u);
    EXPECT_EQ(window_memory_stats().mapped_bytes, 0u);
}

TEST(WindowMemory, BlocksDoNotOverlap) {
    expect_blocks_not_to_overlap();
}

// A run that expects large windows gets its mappings aligned for huge pages and advised for
// them: the same blocks, as usable, and all given back.
TEST(WindowMemory, BlocksInHugePagesDoNotOverlap) {
    expect_window_bytes(uint64_t{1} << 30);
    expect_blocks_not_to_overlap();
    expect_window_bytes(0);
}

// Blocks taken by one thread and freed by another, by several threads at once: nothing lost,
// nothing handed out twice (every block keeps its owner's pattern until it is freed).
TEST(WindowMemory, ThreadsTakeAndFreeEachOthersBlocks) {
    constexpr int kThreads = 4, kBlocks = 3000;
    using Taken = std::vector<std::pair<unsigned char*, uint64_t>>;
    std::vector<Taken> taken(kThreads);
    std::vector<uint64_t> wrong(kThreads, 0);
    auto run = [&](auto&& body) {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
        for (auto& th : threads) th.join();
    };
    // Each thread takes blocks and frees every other one at once (its free lists churn).
    run([&](int t) {
        std::mt19937_64 rng(static_cast<uint64_t>(t) + 1);
        for (int i = 0; i < kBlocks; ++i) {
            const uint64_t bytes = 8 + rng() % 20000;
            auto* p = static_cast<unsigned char*>(allocate_window_block(bytes));
            std::memset(p, t + 1, bytes);
            if (i % 2)
                free_window_block(p, bytes);
            else
                taken[t].emplace_back(p, bytes);
        }
    });
    // Each thread checks and frees the blocks of the next one.
    run([&](int t) {
        for (const auto& [p, n] : taken[(t + 1) % kThreads]) {
            const int owner = (t + 1) % kThreads + 1;
            wrong[t] += n - static_cast<uint64_t>(std::count(p, p + n, owner));
            free_window_block(p, n);
        }
    });
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0u) << "thread " << t;
    EXPECT_EQ(window_memory_stats().live_blocks, 0u);
    EXPECT_EQ(window_memory_stats().mapped_bytes, 0u);
}

// A window keeps the extra lines of its block's size class as capacity (whole lines, with a
// summary word per 64 lines and three).
TEST(WindowMemory, WindowsUseTheirWholeBlock) {
    for (uint64_t words : {1u, 16u, 100u, 1000u, 5000u, 8000u, 70000u, 600000u}) {
        BitWindow w;
        w.open(0, words);
        EXPECT_GE(w.capacity, words);
        EXPECT_EQ(w.capacity % kLineWords, 0u) << words;
        const uint64_t bytes = (w.capacity + w.full_words) * 8;
        const uint64_t asked =
            (std::max<uint64_t>(words, kMinWindowWords) + kLineWords - 1) / kLineWords * kLineWords;
        const uint64_t block = window_block_size((asked + asked / 512 + 3) * 8);
        EXPECT_LE(bytes, block) << words;
        const uint64_t more = w.capacity + kLineWords;
        EXPECT_GT((more + more / 512 + 3) * 8, block) << words;  // no room for one line more
        EXPECT_EQ(w.close(), bytes);
    }
}

// A whole run gives every block back: the allocator keeps nothing afterwards (in a host
// program, a table's windows' memory is not held after grundy.table returns).
TEST(WindowMemory, ARunGivesEverythingBack) {
    MemoryTable table;
    compute_table(EngineOptions{.rows = 300, .cols = 777, .threads = 2, .tile = 64}, table);
    EXPECT_EQ(window_memory_stats().live_blocks, 0u);
    EXPECT_EQ(window_memory_stats().mapped_bytes, 0u);
    EXPECT_EQ(table(776, 0), 776u);
}

}  // namespace
}  // namespace grundy::engine
