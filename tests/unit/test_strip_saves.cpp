// States saved inside a block (StripBlock::save): what the bands write as they leave a column
// against snapshot() of a one-thread strip swept to that column, and the columns after a save
// compared with the new state when the block saves into the state it compares with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy {
namespace {

// The state after column x of a one-thread strip of Y rows, taken the plain way.
strip::StripSnapshot state_after(uint64_t Y, uint64_t x) {
    strip::Strip one(Y, MexKernel::Auto, 1);
    std::vector<uint64_t> g(Y);
    while (one.columns_done() <= x) one.advance(g.data());
    strip::StripSnapshot s;
    one.snapshot(s);
    return s;
}

// Saved columns at the block's first, around a batch's end (24 columns), at a chunk's end (256
// columns) and at the block's last; one thread, and 2 to 4 threads over bands of rows with lags
// from 1 (tiles of one column) to the default.
TEST(StripSaves, EachSaveIsTheStateAfterItsColumn) {
    constexpr uint64_t Y = 131, warm_up = 700, columns = 1500;
    struct Case {
        int threads;
        uint64_t lag;
    };
    const std::vector<std::vector<uint64_t>> saves = {
        {0}, {23, 24, 25}, {255, 256}, {63, 700, 1499}};
    for (const Case c : {Case{1, 0}, Case{2, 0}, Case{3, 64}, Case{4, 1}})
        for (const std::vector<uint64_t>& at : saves) {
            strip::Strip s(Y, MexKernel::Auto, c.threads, c.lag);
            strip::StripBlock warm;
            warm.columns = warm_up;
            s.advance_block(warm);
            strip::StripSnapshot out;
            strip::StripBlock b;
            b.columns = columns;
            b.save = &out;
            b.save_after = at;
            s.advance_block(b);
            const strip::StripSnapshot want = state_after(Y, warm_up + at.back());
            EXPECT_TRUE(strip::same_state(out, want))
                << c.threads << " threads, lag " << c.lag << ", last save after block column "
                << at.back();
            // The block still ends with the state after its last column.
            strip::StripSnapshot end;
            s.snapshot(end);
            EXPECT_TRUE(strip::same_state(end, state_after(Y, warm_up + columns - 1)));
        }
}

// Saves out of order or past the block are refused before anything is swept.
TEST(StripSaves, SavesOutsideTheBlockAreRefused) {
    strip::Strip s(20, MexKernel::Auto, 2);
    strip::StripSnapshot out;
    for (const std::vector<uint64_t>& at : {std::vector<uint64_t>{10}, {3, 2}, {4, 4}}) {
        strip::StripBlock b;
        b.columns = 10;
        b.save = &out;
        b.save_after = at;
        EXPECT_THROW(s.advance_block(b), Error);
        EXPECT_EQ(s.columns_done(), 0u);
    }
}

// 21 rows are periodic (P = 384) before column 2400: compared with the state after 2400, columns
// 2784 and 3168 match; after saves at 2500 and 2551 into the compared state, 2935 and 3319 do
// instead, and nothing before them.
TEST(StripSaves, ColumnsAfterASaveAreComparedWithIt) {
    constexpr uint64_t Y = 21, first = 2401, columns = 999;
    const std::vector<uint64_t> at = {2500 - first, 2551 - first};
    strip::Strip one(Y, MexKernel::Auto, 1);
    std::vector<uint64_t> g(Y);
    while (one.columns_done() < first) one.advance(g.data());
    strip::StripSnapshot saved;
    one.snapshot(saved);
    std::vector<uint8_t> expected;
    strip::StripSnapshot compared = saved;
    for (uint64_t x = first; x < first + columns; ++x) {
        one.advance(g.data());
        expected.push_back(one.matches(compared) ? 1 : 0);
        if (std::binary_search(at.begin(), at.end(), x - first)) one.snapshot(compared);
    }
    std::vector<uint64_t> matching;
    for (uint64_t i = 0; i < expected.size(); ++i)
        if (expected[i]) matching.push_back(first + i);
    ASSERT_EQ(matching, (std::vector<uint64_t>{2935, 3319}));
    for (int threads : {1, 2, 3}) {
        strip::Strip many(Y, MexKernel::Auto, threads, 3);
        many.restore(saved);
        strip::StripSnapshot live = saved;
        std::vector<uint32_t> matched_rows;
        strip::StripBlock b;
        b.columns = columns;
        b.compare = &live;
        b.matched_rows = &matched_rows;
        b.save = &live;
        b.save_after = at;
        many.advance_block(b);
        std::vector<uint8_t> matched;
        for (const uint32_t m : matched_rows) matched.push_back(m == Y ? 1 : 0);
        EXPECT_EQ(matched, expected) << threads << " threads";
        EXPECT_TRUE(strip::same_state(live, state_after(Y, 2551))) << threads << " threads";
    }
}

}  // namespace
}  // namespace grundy

namespace grundy {
namespace {

// The sub-strips' matches (StripBlock::matched_rows, every entry) of one block saving inside it
// against blocks cut at the saved columns with snapshot() between them, as the certification
// did before: 40 rows from column 81, saves at Brent's columns (windows from 64, 1/8 longer).
TEST(StripSaves, MatchesEqualThoseOfBlocksCutAtTheSaves) {
    constexpr uint64_t Y = 40, start = 81, end = 12000;
    std::vector<uint64_t> saves;
    for (uint64_t x = start - 1, power = 64; x + power < end;
         power += std::max<uint64_t>(power / 8, 1))
        saves.push_back(x += power);
    for (int threads : {1, 2, 3}) {
        strip::Strip cut(Y, MexKernel::Auto, threads), whole(Y, MexKernel::Auto, threads);
        strip::StripBlock warm;
        warm.columns = start;
        cut.advance_block(warm);
        whole.advance_block(warm);
        strip::StripSnapshot saved_cut, saved_whole;
        cut.snapshot(saved_cut);
        saved_whole = saved_cut;
        std::vector<uint32_t> want, part;
        for (uint64_t x = start; x < end;) {
            const auto next = std::lower_bound(saves.begin(), saves.end(), x);
            strip::StripBlock b;
            b.columns = (next == saves.end() ? end : *next + 1) - x;
            b.compare = &saved_cut;
            b.matched_rows = &part;
            cut.advance_block(b);
            want.insert(want.end(), part.begin(), part.end());
            if (next != saves.end()) cut.snapshot(saved_cut);
            x += b.columns;
        }
        std::vector<uint32_t> got;
        strip::StripBlock b;
        b.columns = end - start;
        b.compare = &saved_whole;
        b.matched_rows = &got;
        b.save = &saved_whole;
        for (const uint64_t x : saves) b.save_after.push_back(x - start);
        whole.advance_block(b);
        ASSERT_EQ(got.size(), want.size());
        for (uint64_t i = 0; i < got.size(); ++i)
            ASSERT_EQ(got[i], want[i]) << "column " << start + i << ", " << threads << " threads";
        EXPECT_GT(*std::max_element(want.begin(), want.end()), 20u);  // some sub-strips match
    }
}

}  // namespace
}  // namespace grundy
