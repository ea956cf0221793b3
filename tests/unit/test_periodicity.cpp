// The periodicity criterion against a brute-force O(n * p) evaluation of the same definition.
#include <gtest/gtest.h>

#include <random>

#include "grundy/periodicity.hpp"

namespace grundy {
namespace {

uint64_t brute_pre(const std::vector<int64_t>& s, uint64_t p) {
    const uint64_t n = s.size();
    uint64_t x0 = n - p;
    while (x0 > 0 && s[x0 - 1 + p] == s[x0 - 1]) --x0;
    return x0;
}

TEST(Periodicity, MatchesBruteForceOnRandomSequences) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        const uint64_t n = 1 + rng() % 200, period = 1 + rng() % 20, pre = rng() % 60;
        std::vector<int64_t> s(n);
        for (uint64_t i = 0; i < n; ++i)
            s[i] = i < pre ? static_cast<int64_t>(rng() % 3)
                           : static_cast<int64_t>((i - pre) % period % 3);
        const auto all = preperiods_for_all_periods(s);
        for (uint64_t p = 1; p < n; ++p)
            ASSERT_EQ(all[p], brute_pre(s, p)) << "n=" << n << " p=" << p;
    }
}

TEST(Periodicity, KnownPeriodAndPreperiod) {
    std::vector<int64_t> s;
    for (int i = 0; i < 13; ++i) s.push_back(100 + i);  // preperiod 13
    for (int i = 0; i < 200; ++i) s.push_back(std::vector<int64_t>{4, 1, 1, 7, 2}[i % 5]);
    const auto r = find_row_period(s);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->period, 5u);
    EXPECT_EQ(r->preperiod, 13u);
    EXPECT_EQ(r->periods_observed, 40u);
}

TEST(Periodicity, NoPeriodIsReported) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < 500; ++i) s.push_back(i * i % 1009);
    EXPECT_FALSE(find_row_period(s));
}

// A period that only shows with many repetitions: a long block, seen n / p >= 4 times.
TEST(Periodicity, LongPeriodNeedsLongSequence) {
    std::mt19937_64 rng(3);
    std::vector<int64_t> block(97);
    for (auto& b : block) b = static_cast<int64_t>(rng() % 1000);
    std::vector<int64_t> s;
    for (int i = 0; i < 97 * 3; ++i) s.push_back(block[i % 97]);
    EXPECT_FALSE(find_row_period(s)) << "97 > n / 4 must not qualify";
    for (int i = 97 * 3; i < 97 * 5; ++i) s.push_back(block[i % 97]);
    const auto r = find_row_period(s);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->period, 97u);
    EXPECT_EQ(r->preperiod, 0u);
}

// find_row_period has its own algorithm (least period of the tail); it must agree with
// find_period(s, n / 4, n / 2) everywhere, above all at the edges: periods near n / 4,
// preperiods near n / 2, very short sequences, tails that repeat only almost.
TEST(Periodicity, RowCriterionMatchesFindPeriod) {
    std::mt19937_64 rng(19);
    int determined = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const uint64_t n = rng() % 300;
        const uint64_t period = 1 + rng() % (n / 3 + 2), pre = rng() % (n / 2 + 8);
        const int64_t alphabet = 1 + static_cast<int64_t>(rng() % 4);
        std::vector<int64_t> block(period);
        for (auto& b : block) b = static_cast<int64_t>(rng()) % alphabet;
        std::vector<int64_t> s(n);
        for (uint64_t i = 0; i < n; ++i)
            s[i] = i < pre ? static_cast<int64_t>(rng()) % alphabet : block[(i - pre) % period];
        if (n > 0 && rng() % 4 == 0) s[rng() % n] += 1;  // one defect anywhere
        const auto expected = find_period(s, n / 4, n / 2);
        const auto got = find_row_period(s);
        ASSERT_EQ(got.has_value(), expected.has_value()) << "trial " << trial << " n=" << n;
        if (!expected) continue;
        ++determined;
        ASSERT_EQ(got->period, expected->period) << "trial " << trial;
        ASSERT_EQ(got->preperiod, expected->preperiod) << "trial " << trial;
        ASSERT_EQ(got->periods_observed, expected->periods_observed) << "trial " << trial;
    }
    EXPECT_GT(determined, 5000) << "too few periodic cases to mean anything";
}

}  // namespace
}  // namespace grundy
