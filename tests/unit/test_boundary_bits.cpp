// Packed boundary sets (strip/sweep/boundary_bits.hpp), the sets a rank hands the rank above:
// a packed set starts below the receiving window's floor, and its first word must not be
// written below the window's storage.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "engine/bit_window.hpp"
#include "strip/sweep/boundary_bits.hpp"

namespace grundy {
namespace {

constexpr uint64_t kGuard = 0x9e3779b97f4a7c15;

// A window over the test's own storage, a guard word on each side of its words and summary,
// so that a write outside them shows in every build (the window memory's slabs hide one). Laid
// out as BitWindow lays out its own (its line_start and summary_words_for): from the floor's
// line, whole lines, then the summary.
struct GuardedWindow {
    std::vector<uint64_t> storage;
    engine::BitWindow w;

    GuardedWindow(uint64_t floor, uint64_t min_capacity) {
        using engine::BitWindow;
        const uint64_t capacity = BitWindow::line_start(min_capacity + engine::kLineWords - 1);
        const uint64_t summary = BitWindow::summary_words_for(capacity);
        storage.assign(1 + capacity + summary + 1, 0);
        storage.front() = storage.back() = kGuard;
        w.base = BitWindow::line_start(floor / 64);
        w.capacity = capacity;
        w.low = floor;
        w.full_words = summary;
        point_at_storage();
    }
    GuardedWindow(const GuardedWindow& other) : storage(other.storage), w(other.w) {
        point_at_storage();
    }
    GuardedWindow& operator=(const GuardedWindow&) = delete;

    void point_at_storage() {
        w.words = storage.data() + 1;
        w.full = w.words + w.capacity;
        w.set_origins();
    }
    bool guards_intact() const { return storage.front() == kGuard && storage.back() == kGuard; }
    // One past the largest value the window's storage holds.
    uint64_t top() const { return (w.base + w.capacity) * 64; }
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

// A window of random values from its floor on, as a sweep leaves one (inserts move its
// low-water mark), some of its words full.
GuardedWindow random_window(std::mt19937_64& rng, uint64_t floor, uint64_t capacity) {
    GuardedWindow g(floor, capacity);
    const uint64_t top = g.top();
    // Every value below `dense` is in the set; in half the windows none is, so that the
    // low-water mark often stays in the floor's word, above values never stored.
    const uint64_t dense = rng() % 2 ? floor : floor + rng() % (top - floor);
    for (uint64_t v = floor; v < top; ++v)
        if (v < dense || rng() % 3 == 0) g.w.insert(v);
    return g;
}

// The fast paths of window_chunk and or_packed (whole words, shifted) against the set bit by
// bit, over random windows, floors, shifts (0 included) and ranges of packed words.
TEST(BoundaryBits, WordsAtATimeAgreeWithTheSetBitByBit) {
    std::mt19937_64 rng(20261202);
    for (int trial = 0; trial < 3000; ++trial) {
        const uint64_t floor = rng() % 3000, capacity = 8 + rng() % 24;
        GuardedWindow g = random_window(rng, floor, capacity);
        const int64_t top = static_cast<int64_t>(g.top());
        const int64_t v = static_cast<int64_t>(floor) - 200 + static_cast<int64_t>(rng() % 400);
        if (v + 64 <= top) {
            uint64_t expect = 0;
            for (int64_t i = 0; i < 64; ++i)
                if (v + i >= 0 && g.w.contains(static_cast<uint64_t>(v + i)))
                    expect |= uint64_t{1} << i;
            ASSERT_EQ(strip::window_chunk(g.w, v), expect) << "trial " << trial;
        }
        // Packed words lo..hi from `first`, with room up to first + 64 (hi + 2) (or_packed).
        const uint64_t hi = rng() % 6, lo = rng() % (hi + 1);
        const int64_t first = v;
        if (first + 64 * static_cast<int64_t>(hi + 2) > top) continue;
        std::vector<uint64_t> packed(hi + 1);
        for (uint64_t& word : packed) word = rng() % 4 == 0 ? ~uint64_t{0} : rng() & rng();
        GuardedWindow expect = g;
        for (uint64_t k = lo; k <= hi; ++k)
            for (int b = 0; b < 64; ++b) {
                const int64_t value = first + static_cast<int64_t>(64 * k) + b;
                if (!(packed[k] >> b & 1) || value < 0) continue;
                const auto u = static_cast<uint64_t>(value);
                // Counts as present already: a word below the low-water mark's is left out, and
                // for the first columns (first < 0, bit by bit) any value below the mark.
                if (u / 64 < expect.w.low / 64 || (first < 0 && u < expect.w.low)) continue;
                expect.w.view().set(u);
            }
        strip::or_packed(g.w, packed.data(), lo, hi, first);
        ASSERT_TRUE(g.guards_intact()) << "trial " << trial;
        ASSERT_EQ(g.storage, expect.storage) << "trial " << trial << ", first " << first;
    }
}

}  // namespace
}  // namespace grundy
