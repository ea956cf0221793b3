// Packed boundary sets (strip/sweep/boundary_bits.hpp), the sets a rank hands the rank above:
// a packed set starts below the receiving window's floor, and its first word must not be
// written below the window's storage.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/bit_window.hpp"
#include "strip/sweep/boundary_bits.hpp"

namespace grundy {
namespace {

constexpr uint64_t kGuard = 0x9e3779b97f4a7c15;

// A window over the test's own storage, a guard word on each side of its words and summary,
// so that a write outside them shows in every build (the window memory's slabs hide one).
struct GuardedWindow {
    std::vector<uint64_t> storage;
    engine::BitWindow w;

    GuardedWindow(uint64_t floor, uint64_t capacity) {
        const uint64_t summary = capacity / 64 + 3;
        storage.assign(1 + capacity + summary + 1, 0);
        storage.front() = storage.back() = kGuard;
        w.words = storage.data() + 1;
        w.base = floor / 64;
        w.capacity = capacity;
        w.low = floor;
        w.full = w.words + capacity;
        w.full_words = summary;
        w.word_origin = reinterpret_cast<uintptr_t>(w.words) - 8 * w.base;
        w.full_origin = reinterpret_cast<uintptr_t>(w.full) - 8 * (w.base / 64);
    }
    bool guards_intact() const { return storage.front() == kGuard && storage.back() == kGuard; }
};

// Floors at a word's start and just past it, packings starting 1 and 2 values below them (a
// diagonal's and a column's, boundary_bits.hpp): every packed value at or above the floor
// arrives, nothing is written outside the window's storage, values below the floor still count,
// and packing the window again gives what was sent.
TEST(BoundaryBits, PackedSetBelowTheFloorFillsOnlyTheWindow) {
    for (const uint64_t floor : {128u, 129u, 4096u, 4097u, 4100u})
        for (const uint64_t below : {1u, 2u}) {
            GuardedWindow g(floor, 8);
            const std::vector<uint64_t> packed = {~uint64_t{0}, 0x5};
            const int64_t first = static_cast<int64_t>(floor - below);
            strip::or_packed(g.w, packed.data(), 0, 1, first);
            EXPECT_TRUE(g.guards_intact()) << "floor " << floor << ", " << below << " below";
            for (uint64_t v = floor - below; v < floor - below + 64; ++v)
                EXPECT_TRUE(g.w.contains(v)) << "floor " << floor << " value " << v;
            const uint64_t second = floor - below + 64;
            EXPECT_TRUE(g.w.contains(second));
            EXPECT_FALSE(g.w.contains(second + 1));
            EXPECT_TRUE(g.w.contains(second + 2));
            EXPECT_FALSE(g.w.contains(second + 3));
            std::vector<uint64_t> again(2);
            strip::pack_window(g.w, first, 2, again.data());
            EXPECT_EQ(again, packed) << "floor " << floor << ", " << below << " below";
        }
}

}  // namespace
}  // namespace grundy
