// The strip's sweep (strip/sweep/strip_sweep_template.hpp: bands of rows over batches of columns,
// swept a few columns at a time along anti-diagonals) against a direct mex written here, cell by
// cell, and its comparisons with a saved state against the state rebuilt from those cells: with and
// without settled rows, 1 and 2 threads, lags from 1 to the default, blocks of every length.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "grundy/engine.hpp"
#include "strip/sweep/strip.hpp"
#include "support/kernel_builds.hpp"

namespace grundy {
namespace {

// g(x, y) for x < X, y < Y by the definition: the least value not among the cells to the left,
// below and down-left on the diagonal. Each set is a list of flags with the least value it lacks,
// from which the union's scan starts (the union lacks nothing below any one set's least).
class DirectMex {
  public:
    DirectMex(uint64_t X, uint64_t Y) : X_(X), Y_(Y), g_(X * Y) {
        const uint64_t values = X + Y + 1;  // g(x, y) <= x + y: its options are fewer
        std::vector<Set> rows(Y, Set(values)), cols(X, Set(values)), diags(X + Y, Set(values));
        for (uint64_t x = 0; x < X; ++x)
            for (uint64_t y = 0; y < Y; ++y) {
                Set& r = rows[y];
                Set& c = cols[x];
                Set& d = diags[x + Y - y];
                uint64_t v = std::max({r.least, c.least, d.least});
                while (r.has[v] || c.has[v] || d.has[v]) ++v;
                g_[x * Y + y] = v;
                r.add(v);
                c.add(v);
                d.add(v);
            }
    }
    uint64_t operator()(uint64_t x, uint64_t y) const { return g_[x * Y_ + y]; }

    // The state after column x relative to it (strip.hpp), as sorted lists of g - x: row y's
    // values of columns 0..x, and the diagonal through (x, y - 1)'s (for y >= 1).
    std::vector<int64_t> row_state(uint64_t x, uint64_t y) const {
        // A value of column c is at most c + y (it is the least one missing among c + y
        // options), so only the last 3y columns can reach the segment.
        std::vector<int64_t> v;
        for (uint64_t c = x + 1 > 3 * y ? x + 1 - 3 * y : 0; c <= x; ++c) {
            const int64_t r = static_cast<int64_t>((*this)(c, y)) - static_cast<int64_t>(x);
            if (r >= 1 - 2 * static_cast<int64_t>(y)) v.push_back(r);  // all below are in
        }
        std::sort(v.begin(), v.end());
        return v;
    }
    std::vector<int64_t> diagonal_state(uint64_t x, uint64_t y) const {
        std::vector<int64_t> v;
        for (uint64_t k = 0; k < y && k <= x; ++k)
            v.push_back(static_cast<int64_t>((*this)(x - k, y - 1 - k)) - static_cast<int64_t>(x));
        std::sort(v.begin(), v.end());
        return v;
    }
    // The largest m such that rows 0..m-1 and the diagonals entering them are in the same state
    // after columns a and b (StripBlock::matched_rows): the least y >= 1 whose row or diagonal
    // differs, else Y. Kept: every case asks the same.
    uint64_t matched_rows(uint64_t a, uint64_t b) const {
        const auto [at, fresh] = matched_.try_emplace({a, b}, Y_);
        if (fresh)
            for (uint64_t y = 1; y < Y_; ++y)
                if (row_state(a, y) != row_state(b, y) ||
                    diagonal_state(a, y) != diagonal_state(b, y)) {
                    at->second = y;
                    break;
                }
        return at->second;
    }

  private:
    struct Set {
        std::vector<char> has;
        uint64_t least = 0;
        explicit Set(uint64_t n) : has(n + 1, 0) {}
        void add(uint64_t v) {
            has[v] = 1;
            while (has[least]) ++least;
        }
    };
    uint64_t X_, Y_;
    std::vector<uint64_t> g_;
    mutable std::map<std::pair<uint64_t, uint64_t>, uint64_t> matched_;
};

constexpr uint64_t kRows = 45, kColumns = 3300;

const DirectMex& reference() {
    static const DirectMex ref(kColumns, kRows);
    return ref;
}

// Sweeps columns strip.columns_done() .. end - 1 in blocks of the given lengths (cycled),
// checking every reported cell against the reference; with `saved`, also each column's
// matched_rows against the reference's (entries of at most the settled rows only bound it).
void sweep_and_check(strip::Strip& strip, uint64_t end, const std::vector<uint64_t>& blocks,
                     const strip::StripSnapshot* saved = nullptr) {
    const DirectMex& ref = reference();
    const uint64_t Y = strip.rows();
    for (size_t i = 0; strip.columns_done() < end; ++i) {
        const uint64_t first = strip.columns_done();
        strip::StripBlock b;
        b.columns = std::min(blocks[i % blocks.size()], end - first);
        std::vector<uint64_t> seen(b.columns * Y, 0);
        b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
            for (uint64_t y = y0; y < y1; ++y) {
                ++seen[(x - first) * Y + y];
                ASSERT_EQ(g[y - y0], ref(x, y)) << "x " << x << " y " << y;
            }
        };
        std::vector<uint32_t> matched;
        if (saved) {
            b.compare = saved;
            b.matched_rows = &matched;
        }
        strip.advance_block(b);
        ASSERT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<int64_t>(seen.size()))
            << "every cell reported once, block at " << first;
        if (!saved) continue;
        ASSERT_EQ(matched.size(), b.columns);
        const uint64_t S = strip.settled_rows();
        for (uint64_t j = 0; j < b.columns; ++j) {
            const uint64_t exact = ref.matched_rows(saved->column, first + j);
            if (matched[j] == S && S > 0)
                ASSERT_LE(exact, S) << "column " << first + j;
            else
                ASSERT_EQ(matched[j], exact) << "column " << first + j;
        }
    }
}

struct Case {
    int threads;
    uint64_t lag;  // 0: the default
};
const Case kCases[] = {{1, 0}, {2, 0}, {2, 1}, {2, 2}, {2, 5}, {2, 40}};
const std::vector<uint64_t> kBlocks = {1, 2, 5, 13, 700, 31};

std::string name(const Case& c) {
    return std::to_string(c.threads) + " threads, lag " + std::to_string(c.lag);
}

TEST(StripSweep, EqualsDirectMexCellByCell) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(name(c));
        strip::Strip strip(kRows, MexKernel::Auto, c.threads, c.lag);
        ASSERT_EQ(strip.threads(), c.threads);
        sweep_and_check(strip, kColumns, kBlocks);
    }
    // Fewer rows than a band's least (one band even with threads), and a single row.
    for (uint64_t Y : {uint64_t{1}, uint64_t{2}, uint64_t{9}}) {
        strip::Strip strip(Y, MexKernel::Auto, 2, 3);
        std::vector<uint64_t> g(Y);
        for (uint64_t x = 0; x < 200; ++x) {
            strip.advance(g.data());
            for (uint64_t y = 0; y < Y; ++y) ASSERT_EQ(g[y], reference()(x, y)) << x << "," << y;
        }
    }
}

// Every kernel build, one thread and one band, on fewer columns (a build this CPU cannot run is
// skipped, with the reason).
class StripSweepKernel : public testing::EachKernelBuild {};

TEST_P(StripSweepKernel, EqualsDirectMexCellByCell) {
    strip::Strip strip(kRows, kernel(), 1);
    sweep_and_check(strip, 600, {1, 7, 300});
}

INSTANTIATE_TEST_SUITE_P(EachBuild, StripSweepKernel, ::testing::ValuesIn(testing::kKernelBuilds),
                         testing::kernel_build_name);

// Sweeps a fresh strip through column 2400 (every cell checked) and saves its state there.
strip::StripSnapshot sweep_and_save_at_2400(strip::Strip& strip) {
    sweep_and_check(strip, 2401, {2401});
    strip::StripSnapshot saved;
    strip.snapshot(saved);
    return saved;
}

// The comparison with a state saved at column 2400 in every later column: the sub-strip of rows
// 0..20 repeats with period 384 from there, the lower rows with their own shorter periods, so
// many columns match in part.
TEST(StripSweep, ComparisonsEqualTheDirectStates) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(name(c));
        strip::Strip strip(kRows, MexKernel::Auto, c.threads, c.lag);
        const strip::StripSnapshot saved = sweep_and_save_at_2400(strip);
        ASSERT_EQ(saved.column, 2400u);
        sweep_and_check(strip, kColumns, kBlocks, &saved);
    }
}

// Rows 0..20 settled from column 2401 + 384 (Strip::settle, with a ring of their values): the
// rows above get the same cells, and the comparisons the same answers.
TEST(StripSweep, SettledRowsEqualDirectMex) {
    constexpr uint64_t S = 21, P = 384, L = 3 * P, first = 2401 + P;
    const DirectMex& ref = reference();
    std::vector<uint16_t> ring(L * kRows);
    for (uint64_t x = first - L; x < first; ++x)
        for (uint64_t y = 0; y < kRows; ++y)
            ring[(x % L) * kRows + y] = static_cast<uint16_t>(ref(x, y) + 2 * y - x);
    for (const Case& c : kCases) {
        SCOPED_TRACE(name(c));
        strip::Strip strip(kRows, MexKernel::Auto, c.threads, c.lag);
        const strip::StripSnapshot saved = sweep_and_save_at_2400(strip);
        sweep_and_check(strip, first, {first});
        std::vector<uint16_t> live(ring);
        strip::SettledRows settled;
        settled.rows = S;
        settled.period = P;
        settled.values = live.data();
        settled.length = L;
        settled.stride = kRows;
        strip.settle(settled);
        ASSERT_EQ(strip.settled_rows(), S);
        // The ring follows the sweep, as the run's recorder keeps it.
        for (size_t i = 0; strip.columns_done() < kColumns; ++i) {
            const uint64_t from = strip.columns_done();
            strip::StripBlock b;
            b.columns = std::min(kBlocks[i % kBlocks.size()], kColumns - from);
            std::vector<uint32_t> matched;
            b.compare = &saved;
            b.matched_rows = &matched;
            b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
                for (uint64_t y = y0; y < y1; ++y) {
                    ASSERT_EQ(g[y - y0], ref(x, y)) << "x " << x << " y " << y;
                    live[(x % L) * kRows + y] = static_cast<uint16_t>(g[y - y0] + 2 * y - x);
                }
            };
            strip.advance_block(b);
            for (uint64_t j = 0; j < b.columns; ++j) {
                const uint64_t exact = ref.matched_rows(saved.column, from + j);
                if (matched[j] == S)
                    ASSERT_LE(exact, S) << "column " << from + j;
                else
                    ASSERT_EQ(matched[j], exact) << "column " << from + j;
            }
        }
    }
}

}  // namespace
}  // namespace grundy
