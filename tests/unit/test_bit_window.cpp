// BitWindow and the two-level mex kernel's builds on their own, against plain sets: the engine
// tests cover them only through whole tables, where a window rarely slides far or a scan rarely
// crosses many summary words in a small table.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/bit_window.hpp"
#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "support/kernel_builds.hpp"

namespace grundy::engine {
namespace {

// A set of naturals, the slow way.
struct PlainSet {
    std::vector<bool> has;
    bool contains(uint64_t v) const { return v < has.size() && has[v]; }
    void insert(uint64_t v) {
        if (v >= has.size()) has.resize(v + 1);
        has[v] = true;
    }
    uint64_t mex_from(uint64_t v) const {
        while (contains(v)) ++v;
        return v;
    }
};

// Every reserved word of `w` against `plain` from the low-water mark's line to `top_word`, and
// the summary bit of each of those lines (a window starts at a line and holds whole lines).
void expect_same(const BitWindow& w, const PlainSet& plain, uint64_t top_word) {
    ASSERT_EQ(w.low, plain.mex_from(0));
    ASSERT_EQ(w.base % kLineWords, 0u);
    ASSERT_EQ(w.capacity % kLineWords, 0u);
    const WindowView view = w.view();
    for (uint64_t line = w.low / 64 / kLineWords; line <= top_word / kLineWords; ++line) {
        bool line_full = true;
        for (uint64_t word = line * kLineWords; word < (line + 1) * kLineWords; ++word) {
            uint64_t bits = 0;
            for (uint64_t b = 0; b < 64; ++b)
                if (plain.contains(word * 64 + b)) bits |= uint64_t{1} << b;
            ASSERT_EQ(view.word(word), bits) << "word " << word;
            line_full = line_full && bits == ~uint64_t{0};
        }
        const bool full = (view.full_summary(line / 64) >> (line % 64)) & 1;
        ASSERT_EQ(full, line_full) << "summary bit of line " << line;
    }
}

// A row-like set: values arrive roughly in order within a band of `span` values above the
// low-water mark, so the window slides and now and then grows. The window must hold exactly
// the set, and keep at most half again what it needs (an earlier rule doubled it).
TEST(BitWindow, SlidesAndGrowsKeepingTheSetAndAQuarterToSpare) {
    std::mt19937_64 rng(7);
    for (const uint64_t span : {100u, 3000u, 40000u}) {
        BitWindow w;
        w.open(0, 0);
        PlainSet plain;
        uint64_t top = 0;  // the largest value that may be inserted next
        uint64_t most_needed = 0;
        for (int step = 0; step < 20000; ++step) {
            top += rng() % 3;
            const uint64_t last_word = top / 64 + kScanPadWords;
            w.reserve_through(last_word);
            // Growth is by half again what is needed, a quarter each side of a slide; a window
            // never shrinks, so the bound is on the most it ever needed, from the line of its
            // low-water mark, plus a line for rounding the block down to whole lines.
            most_needed =
                std::max(most_needed, last_word - w.low / 64 / kLineWords * kLineWords + 1);
            ASSERT_LE(w.capacity, most_needed + most_needed / 2 + 2 * kMinWindowWords + kLineWords)
                << "span " << span << ", step " << step;
            // A value not yet in the set between the low-water mark and the top, biased low so
            // that the mark moves.
            const uint64_t lo = std::max(w.low, top > span ? top - span : 0);
            uint64_t v = lo + (top >= lo ? rng() % (top - lo + 1) / (1 + rng() % 4) : 0);
            v = plain.mex_from(v);
            if (v > top) continue;
            w.insert(v);
            plain.insert(v);
            if (step % 997 == 0) expect_same(w, plain, last_word);
        }
        expect_same(w, plain, top / 64 + kScanPadWords);
        w.close();
    }
}

// Three windows over [0, top) beside the same sets kept the slow way: the three neighbours a
// cell's mex is taken over.
struct ThreeWindows {
    BitWindow win[3];
    PlainSet plain[3];

    explicit ThreeWindows(uint64_t top) {
        for (auto& w : win) {
            w.open(0, top / 64 + 2 * kScanPadWords);
            w.reserve_through(top / 64 + kScanPadWords);
        }
    }
    ~ThreeWindows() {
        for (auto& w : win) w.close();
    }
    // Owns its windows' blocks: a copy would close them twice.
    ThreeWindows(const ThreeWindows&) = delete;
    ThreeWindows& operator=(const ThreeWindows&) = delete;
    void put(int k, uint64_t v) {
        if (plain[k].contains(v)) return;
        win[k].insert(v);
        plain[k].insert(v);
    }
    // The cell's lower bound: no value below any window's low-water mark is missing from it.
    uint64_t lo() const { return std::max({win[0].low, win[1].low, win[2].low}); }
    // The mex of the union from `v`, value by value.
    uint64_t union_mex_from(uint64_t v) const {
        while (plain[0].contains(v) || plain[1].contains(v) || plain[2].contains(v)) ++v;
        return v;
    }
    // The mex from `from` by each kernel: the two-level scan in the given build, and the
    // portable one.
    uint64_t summary_mex(uint64_t from, engine::Build build) const {
        const WindowView a = win[0].view(), b = win[1].view(), c = win[2].view();
        switch (build) {
            case engine::Build::Avx2:
                return mex_lines_avx2(a, b, c, from);
            case engine::Build::Avx512:
                return mex_lines_avx512(a, b, c, from);
            default:
                return mex_finish_summary(a, b, c, mex_probe_summary(a, b, c, from));
        }
    }
    uint64_t portable_mex(uint64_t from) const {
        const WindowView a = win[0].view(), b = win[1].view(), c = win[2].view();
        return mex_finish_portable(a, b, c, probe_first_word(a, b, c, from));
    }
};

// The summary kernel's builds: the scalar one (the same source in the any-CPU and BMI2 builds)
// and those with a line in vector registers, each where this CPU runs it (a visible skip where
// it does not).
class SummaryBuild : public ::testing::TestWithParam<engine::Build> {
  protected:
    void SetUp() override {
        if (engine::best_build() < GetParam())
            GTEST_SKIP() << "this CPU cannot run the " << testing::build_name(GetParam())
                         << " build of the summary kernel";
    }
};

constexpr uint64_t kSummaryValues = 64 * kLineWords * 64;  // values per summary word

// The two-level scan, probe then finish, against the mex of the union taken value by value,
// with the mex far above lo: the scans cross several summary words, stop in the word of lo,
// and meet words full in the union but in no single window.
TEST_P(SummaryBuild, SummaryScanMatchesTheUnionValueByValue) {
    std::mt19937_64 rng(11);
    constexpr uint64_t kTop = kSummaryValues * 6;  // six summary words of values
    for (int trial = 0; trial < 120; ++trial) {
        ThreeWindows t(kTop);
        // Below the gap every value goes to one window, chosen at random, so that words are
        // full in the union without being full in any window; some windows get whole runs, so
        // that their summaries skip.
        const uint64_t gap = rng() % (kTop - 64);
        const uint64_t run = 1 + rng() % (trial % 2 ? 5000 : 40000);
        for (uint64_t v = 0; v < gap; ++v)
            t.put((v / run) % 2 == 0 ? static_cast<int>(rng() % 3) : 0, v);
        // Sparse values above the gap.
        for (uint64_t v = gap + 1; v < kTop; v += 1 + rng() % 7)
            t.put(static_cast<int>(rng() % 3), v);
        const uint64_t lo = t.lo(), expected = t.union_mex_from(lo);
        ASSERT_EQ(t.summary_mex(lo, GetParam()), expected)
            << "trial " << trial << ", gap " << gap << ", run " << run;
        ASSERT_EQ(t.portable_mex(lo), expected);
    }
}

// Gaps of hundreds of summary words, as in tables from 32768^2 on: long runs of values each held
// whole by one window in turn (each window missing an early value, so the cell's lower bound
// lies below the runs), sprinkled into the others too; the scan agrees with the union.
TEST_P(SummaryBuild, LongGapsOfRunsHeldWholeByOneWindow) {
    std::mt19937_64 rng(13);
    constexpr uint64_t kSummary = kSummaryValues;
    constexpr uint64_t kTop = kSummary * 40;  // forty summary words of values
    for (int trial = 0; trial < 24; ++trial) {
        ThreeWindows t(kTop);
        const uint64_t gap = kSummary * (20 + rng() % 18) + rng() % kSummary;
        const uint64_t run = kSummary / 8 * (1 + rng() % 70) + (trial % 2 ? rng() % 300 : 0);
        for (uint64_t v = 0; v < gap; ++v) {
            t.put(static_cast<int>((v / run + (v < 3 ? v : 0)) % 3), v);
            if (rng() % 5 == 0) t.put(static_cast<int>(rng() % 3), v);
        }
        for (uint64_t v = gap + 1; v < kTop; v += 1 + rng() % 7)
            t.put(static_cast<int>(rng() % 3), v);
        const uint64_t lo = t.lo(), expected = t.union_mex_from(lo);
        ASSERT_LT(lo, 2 * run + 3) << "the lower bound lies below the runs";
        ASSERT_GT(expected, lo + 16 * kSummary) << "a gap of many summary words";
        ASSERT_EQ(t.summary_mex(lo, GetParam()), expected)
            << "trial " << trial << ", gap " << gap << ", run " << run;
        ASSERT_EQ(t.portable_mex(lo), expected);
    }
}

INSTANTIATE_TEST_SUITE_P(EachBuild, SummaryBuild,
                         ::testing::Values(engine::Build::AnyCpu, engine::Build::Avx2,
                                           engine::Build::Avx512),
                         [](const ::testing::TestParamInfo<engine::Build>& info) {
                             return std::string("summary_") + testing::build_name(info.param);
                         });

}  // namespace
}  // namespace grundy::engine
