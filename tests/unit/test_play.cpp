// Perfect play against independent computations: the seeds' worked examples, a direct-mex
// table, the Zeckendorf characterisation of Wythoff pairs at coordinates near 2^63, sums of
// games checked by brute-force values, subtraction games. The move/play/subtraction CLI is in
// cli/test_play_cli.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/play.hpp"
#include "play/cold_positions.hpp"
#include "play/exact_sqrt.hpp"
#include "support/reference.hpp"

namespace grundy {
namespace {

using Moves = std::vector<WythoffPosition>;

// ---- Independent Wythoff arithmetic: Zeckendorf representations ------------------------------

// F_1 = F_2 = 1, F_3 = 2, ...; F_93 is the last below 2^64.
const std::vector<uint64_t>& fibonacci() {
    static const std::vector<uint64_t> f = [] {
        std::vector<uint64_t> v{0, 1, 1};
        while (v.size() <= 93) v.push_back(v[v.size() - 1] + v[v.size() - 2]);
        return v;
    }();
    return f;
}

// Indices i >= 2 of the Fibonacci numbers F_i summing to v (greedy), largest first.
std::vector<int> zeckendorf(uint64_t v) {
    const auto& f = fibonacci();
    std::vector<int> idx;
    for (int i = 92; i >= 2 && v > 0; --i)
        if (f[i] <= v) {
            v -= f[i];
            idx.push_back(i);
        }
    return idx;
}

uint64_t shifted(const std::vector<int>& idx, int by) {
    uint64_t s = 0;
    for (int i : idx) s += fibonacci()[i + by];
    return s;
}

// v >= 1 is a lower Wythoff number a_k exactly when its smallest Zeckendorf index is even;
// then k and b_k are its Zeckendorf shifts right and left. An upper one b_k shifts right to a_k.
bool is_lower(uint64_t v) {
    return v > 0 && zeckendorf(v).back() % 2 == 0;
}
uint64_t zeck_partner(uint64_t v) {
    if (v == 0) return 0;
    const auto z = zeckendorf(v);
    return is_lower(v) ? shifted(z, 1) : shifted(z, -1);
}
bool zeck_is_p(uint64_t x, uint64_t y) {
    return zeck_partner(std::min(x, y)) == std::max(x, y);
}

// ---- Wythoff: seeds -----------------------------------------------------------------------

TEST(WythoffPlay, Seed004Examples) {
    EXPECT_EQ(wythoff_winning_move(5, 0), (WythoffPosition{0, 0}));
    const Moves two = wythoff_winning_moves(2, 2);
    std::set<std::pair<uint64_t, uint64_t>> got;
    for (auto m : two) got.insert({m.x, m.y});
    const std::set<std::pair<uint64_t, uint64_t>> seed = {{1, 2}, {2, 1}, {0, 0}};
    EXPECT_EQ(got, seed);
    EXPECT_EQ(two.size(), 3u);
    EXPECT_FALSE(wythoff_winning_move(1, 2));
    const auto m139 = wythoff_winning_move(13, 9);
    ASSERT_TRUE(m139);
    EXPECT_TRUE(*m139 == (WythoffPosition{13, 8}) || *m139 == (WythoffPosition{10, 6}));
    EXPECT_EQ(wythoff_winning_moves(13, 9).size(), 2u);
    EXPECT_FALSE(wythoff_winning_move(10, 6));
    EXPECT_EQ(wythoff_winning_move(5, 10), (WythoffPosition{5, 3}));
    EXPECT_EQ(wythoff_winning_move(25, 30), (WythoffPosition{8, 13}));
}

TEST(WythoffPlay, Seed003ColdPositions) {
    const uint64_t a[] = {0, 1, 3, 4, 6, 8, 9, 11, 12, 14, 16};
    const uint64_t b[] = {0, 2, 5, 7, 10, 13, 15, 18, 20, 23, 26};
    for (uint64_t k = 0; k <= 10; ++k) {
        EXPECT_EQ(wythoff_a(k), a[k]);
        EXPECT_EQ(wythoff_partner(a[k]), b[k]);
        EXPECT_EQ(wythoff_partner(b[k]), a[k]);
        EXPECT_TRUE(wythoff_is_p_position(a[k], b[k]));
        EXPECT_TRUE(wythoff_is_p_position(b[k], a[k]));
    }
}

// a_n = the least number not yet used, b_n = a_n + n (seed 000's and seed 003's construction).
TEST(WythoffPlay, LowerSequenceByMexConstruction) {
    const uint64_t n_max = 20000;
    std::vector<char> used(3 * n_max, 0);
    uint64_t a = 0;
    for (uint64_t n = 1; n < n_max; ++n) {
        a += 1;
        while (used[a]) ++a;
        used[a] = used[a + n] = 1;
        ASSERT_EQ(wythoff_a(n), a) << "n = " << n;
        ASSERT_EQ(wythoff_partner(a), a + n);
        ASSERT_EQ(wythoff_partner(a + n), a);
    }
}

// Every winning move against a direct-mex table: exactly the options of value 0.
TEST(WythoffPlay, MovesMatchDirectMexTable) {
    const uint64_t n = 90;
    const auto g = testing::direct_mex_table(n, n);
    auto at = [&](uint64_t x, uint64_t y) { return g[y * n + x]; };
    for (uint64_t y = 0; y < n; ++y)
        for (uint64_t x = 0; x < n; ++x) {
            std::set<std::pair<uint64_t, uint64_t>> expected;
            for (uint64_t k = 1; k <= std::max(x, y); ++k) {
                if (k <= x && at(x - k, y) == 0) expected.insert({x - k, y});
                if (k <= y && at(x, y - k) == 0) expected.insert({x, y - k});
                if (k <= x && k <= y && at(x - k, y - k) == 0) expected.insert({x - k, y - k});
            }
            const Moves moves = wythoff_winning_moves(x, y);
            std::set<std::pair<uint64_t, uint64_t>> got;
            for (auto m : moves) got.insert({m.x, m.y});
            ASSERT_EQ(got, expected) << "at (" << x << ", " << y << ")";
            ASSERT_EQ(wythoff_is_p_position(x, y), at(x, y) == 0);
            if (!moves.empty()) {  // the chosen move takes the fewest tokens
                const uint64_t taken = x - moves[0].x + y - moves[0].y;
                for (auto m : moves) ASSERT_LE(taken, x - m.x + y - m.y);
            }
        }
}

TEST(WythoffPlay, Isqrt128) {
    std::mt19937_64 rng(7);
    auto check = [](uint128 n) {
        const uint128 r = isqrt128(n);
        ASSERT_LE(r * r, n);
        // (r + 1)^2 > n, written so that (r + 1)^2 = 2^128 cannot overflow.
        ASSERT_TRUE(r + 1 > n / (r + 1));
    };
    for (uint128 n : {uint128{0}, uint128{1}, uint128{2}, uint128{3}, uint128{4}, ~uint128{0},
                      ~uint128{0} - 1, (uint128{1} << 64) * ((uint128{1} << 64) - 2) + 1})
        check(n);
    for (int i = 0; i < 20000; ++i) {
        const uint128 n = (uint128{rng()} << 64) | rng();
        check(n >> (i % 128));
        const uint128 r = rng() >> (i % 64);
        check(r * r);
        if (r > 0) check(r * r - 1);
    }
}

// Stepped cold positions against the closed form: from 0 on, and from random starts up to the
// stepping limit, where floor(n sqrt 5) + 1 squared is within 2^3 of 2^128.
TEST(WythoffPlay, ColdPositionsSteppedAreTheClosedForm) {
    std::mt19937_64 rng(5);
    std::vector<uint64_t> starts = {0, 1, 1000000, ColdPositions::kLimit - 2000};
    for (int i = 0; i < 40; ++i) starts.push_back(rng() % (ColdPositions::kLimit - 2000));
    for (const uint64_t start : starts) {
        ColdPositions p(start);
        for (uint64_t n = start; n < start + (start == 0 ? 200000 : 1000); ++n, p.next()) {
            ASSERT_EQ(p.n(), n);
            ASSERT_EQ(p.a(), wythoff_a(n)) << "n = " << n;
            ASSERT_EQ(p.b(), wythoff_a(n) + n);
        }
    }
    EXPECT_THROW(ColdPositions{ColdPositions::kLimit}, Error);
}

// a_n <= n phi < a_n + 1  <=>  (2 a_n - n)^2 <= 5 n^2 < (2 a_n - n + 2)^2, exact in 128 bits for
// n < 8e18; beyond, and everywhere, the Zeckendorf shift: a_n is lower and shifts right to n.
TEST(WythoffPlay, LowerSequenceNear2To63) {
    std::mt19937_64 rng(11);
    std::vector<uint64_t> ns = {1,
                                2,
                                3,
                                kMaxCoordinate,
                                kMaxCoordinate - 1,
                                1000000000000000000ULL,
                                999999999999999999ULL,
                                8250000000000000000ULL,
                                8260000000000000000ULL};
    for (int i = 0; i < 3000; ++i) {
        ns.push_back(1000000000000000000ULL + rng() % 1000000);
        ns.push_back(rng() >> 1);
        ns.push_back(kMaxCoordinate - rng() % 1000000);
    }
    for (uint64_t n : ns) {
        const uint64_t a = wythoff_a(n);
        if (n < 8000000000000000000ULL) {
            const uint128 lo = 2 * uint128{a} - n, n5 = 5 * uint128{n} * n;
            ASSERT_LE(lo * lo, n5) << n;
            ASSERT_LT(n5, (lo + 2) * (lo + 2)) << n;
        }
        ASSERT_TRUE(is_lower(a)) << n;
        ASSERT_EQ(shifted(zeckendorf(a), -1), n) << n;
    }
}

TEST(WythoffPlay, PartnersAndMovesNear2To63) {
    std::mt19937_64 rng(13);
    auto random_coordinate = [&](int i) -> uint64_t {
        switch (i % 3) {
            case 0:
                return 1000000000000000000ULL + rng() % 100000000;
            case 1:
                return rng() >> 1;
            default:
                return kMaxCoordinate - rng() % 100000000;
        }
    };
    for (int i = 0; i < 3000; ++i) {
        const uint64_t v = random_coordinate(i);
        ASSERT_EQ(wythoff_partner(v), zeck_partner(v)) << v;
        // A P-position with a large coordinate, and positions just off it.
        const uint64_t p = zeck_partner(v);
        if (p <= kMaxCoordinate) {
            ASSERT_TRUE(wythoff_is_p_position(v, p));
            ASSERT_FALSE(wythoff_winning_move(p, v));
            ASSERT_TRUE(wythoff_winning_move(v, p + 1));
        }
        const WythoffPosition s{v, random_coordinate(i + 1 + i / 3)};
        const Moves moves = wythoff_winning_moves(s.x, s.y);
        ASSERT_EQ(moves.empty(), zeck_is_p(s.x, s.y)) << s.x << " " << s.y;
        for (const auto& m : moves) {
            ASSERT_TRUE(testing::is_option(s, m))
                << s.x << " " << s.y << " -> " << m.x << " " << m.y;
            ASSERT_TRUE(zeck_is_p(m.x, m.y)) << m.x << " " << m.y;
        }
    }
    const auto m = wythoff_winning_move(kMaxCoordinate, kMaxCoordinate);
    ASSERT_TRUE(m);
    EXPECT_TRUE(zeck_is_p(m->x, m->y));
}

TEST(WythoffPlay, RefusesCoordinatesAbove2To63) {
    EXPECT_THROW(wythoff_winning_moves(kMaxCoordinate + 1, 0), Error);
    EXPECT_THROW(wythoff_winning_moves(0, ~uint64_t{0}), Error);
    EXPECT_THROW(wythoff_a(kMaxCoordinate + 1), Error);
}

TEST(WythoffPlay, PerfectGameAlternatesAndEnds) {
    for (auto [x, y] : std::vector<std::pair<uint64_t, uint64_t>>{{1000, 500}, {25, 30}, {3, 5}}) {
        const auto game = wythoff_perfect_game(x, y, 100000);
        ASSERT_EQ(game.back(), (WythoffPosition{0, 0}));
        const bool first_p = zeck_is_p(x, y);
        for (size_t i = 0; i < game.size(); ++i) {
            ASSERT_EQ(zeck_is_p(game[i].x, game[i].y), (i % 2 == 0) == first_p);
            if (i) {
                ASSERT_TRUE(testing::is_option(game[i - 1], game[i]));
            }
        }
    }
    EXPECT_EQ(wythoff_perfect_game(1000, 500, 3).size(), 4u);
}

// ---- Subtraction games --------------------------------------------------------------------

TEST(Subtraction, Seed002S134) {
    const std::vector<uint32_t> seed = {0, 1, 0, 1, 2, 3, 2, 0, 1, 0, 1, 2, 3, 2, 0, 1, 0, 1, 2, 3};
    const auto g = subtraction_grundy({1, 3, 4}, 20);
    EXPECT_EQ(g, seed);
    const auto a = analyze_subtraction({4, 1, 3}, 200);
    ASSERT_TRUE(a.periodicity);
    EXPECT_EQ(a.periodicity->period, 7u);
    EXPECT_EQ(a.periodicity->preperiod, 0u);
    EXPECT_EQ(a.max_period, 50u);
    EXPECT_EQ(a.max_preperiod, 100u);
}

TEST(Subtraction, OneTwoThreeGameLosesAtMultiplesOf4) {
    const auto g = subtraction_grundy({1, 2, 3}, 1000);
    for (uint64_t n = 0; n < g.size(); ++n) ASSERT_EQ(g[n] == 0, n % 4 == 0) << n;
    const auto a = analyze_subtraction({1, 2, 3}, 1000);
    ASSERT_TRUE(a.periodicity);
    EXPECT_EQ(a.periodicity->period, 4u);
}

TEST(Subtraction, AgainstNaiveMexAndPeriods) {
    const std::vector<std::set<uint64_t>> games = {
        {1, 2, 5}, {2, 5, 7}, {1, 4}, {3, 5, 9, 11}, {2, 3}, {1, 2, 3, 4, 5, 6}, {7}};
    for (const auto& m : games) {
        const uint64_t n = 600;
        const auto expected = testing::naive_subtraction(m, n);
        const auto a = analyze_subtraction(std::vector<uint64_t>(m.begin(), m.end()), n);
        ASSERT_EQ(a.values, expected);
        ASSERT_TRUE(a.periodicity);
        const uint64_t p = a.periodicity->period, pre = a.periodicity->preperiod;
        for (uint64_t i = pre; i + p < n; ++i) ASSERT_EQ(expected[i + p], expected[i]);
        if (pre > 0) {
            EXPECT_NE(expected[pre - 1 + p], expected[pre - 1]);
        }
        for (uint64_t q = 1; q < p; ++q) {  // no smaller period from n / 2 on
            bool periodic = true;
            for (uint64_t i = n / 2; i + q < n; ++i) periodic &= expected[i + q] == expected[i];
            EXPECT_FALSE(periodic) << "period " << q;
        }
    }
    // Seed 002's exercise: S({1, 2, 5}) repeats 0 1 2 from the start.
    const auto a = analyze_subtraction({1, 2, 5}, 1000);
    EXPECT_EQ(a.periodicity->period, 3u);
    EXPECT_EQ(a.periodicity->preperiod, 0u);
}

TEST(Subtraction, RefusesBadMoveSets) {
    EXPECT_THROW(normalize_subtraction_moves({}), Error);
    EXPECT_THROW(normalize_subtraction_moves({0, 1}), Error);
    EXPECT_THROW(normalize_subtraction_moves({1, 3, 1}), Error);
    EXPECT_THROW(subtraction_grundy({1}, kMaxSubtractionLength + 1), Error);
}

// ---- Sums ----------------------------------------------------------------------------------

TEST(GameSum, ParseAndFormat) {
    for (const char* text : {"wythoff:13,9 wythoff:3,7 nim:5", "nim:0", "sub:1,3,4:10 nim:2",
                             "wythoff:9223372036854775807,0"})
        EXPECT_EQ(format_sum(parse_sum(text)), text);
    EXPECT_EQ(format_sum(parse_sum("  nim:3\tsub:4,1,3:7  ")), "nim:3 sub:1,3,4:7");
    for (const char* bad : {"",
                            "   ",
                            "wythoff:13",
                            "wythoff:1,2,3",
                            "wythoff:,3",
                            "wythoff13,9",
                            "nim:-1",
                            "nim:abc",
                            "nim:",
                            "nim:9223372036854775808",
                            "nim:99999999999999999999999",
                            "nim:1,2",
                            "sub::3",
                            "sub:0:3",
                            "sub:1,1:3",
                            "sub:1,3",
                            "sub:1:99999999999",
                            "foo:3",
                            "nim:+3",
                            "nim:3 wythoff:1,x"})
        EXPECT_THROW(parse_sum(bad), Error) << bad;
}

// Brute-force value of a component, written from the rules only.
uint64_t brute_value(const SumComponent& c, const std::vector<uint32_t>& wythoff, uint64_t n) {
    switch (c.kind) {
        case SumComponent::Kind::Nim:
            return c.x;
        case SumComponent::Kind::Wythoff:
            return wythoff[c.y * n + c.x];
        case SumComponent::Kind::Subtraction:
            return testing::naive_subtraction(std::set<uint64_t>(c.moves.begin(), c.moves.end()),
                                              c.x + 1)
                .back();
    }
    return 0;
}

bool legal_component_move(const SumComponent& from, const SumComponent& to) {
    if (from.kind != to.kind || from.moves != to.moves) return false;
    switch (from.kind) {
        case SumComponent::Kind::Nim:
            return to.x < from.x;
        case SumComponent::Kind::Wythoff:
            return testing::is_option({from.x, from.y}, {to.x, to.y});
        case SumComponent::Kind::Subtraction:
            return to.x < from.x && std::find(from.moves.begin(), from.moves.end(),
                                              from.x - to.x) != from.moves.end();
    }
    return false;
}

TEST(GameSum, RandomSumsAgainstBruteForce) {
    const uint64_t n = 40;
    const auto wythoff = testing::direct_mex_table(n, n);
    std::mt19937_64 rng(5);
    int zero = 0;
    for (int trial = 0; trial < 300; ++trial) {
        GameSum sum;
        const int parts = 1 + trial % 4;
        for (int i = 0; i < parts; ++i) {
            SumComponent c;
            switch (rng() % 3) {
                case 0:
                    c.kind = SumComponent::Kind::Wythoff;
                    c.x = rng() % n;
                    c.y = rng() % n;
                    break;
                case 1:
                    c.kind = SumComponent::Kind::Nim;
                    c.x = rng() % 20;
                    break;
                default:
                    c.kind = SumComponent::Kind::Subtraction;
                    c.moves = {1, 3, 4};
                    c.x = rng() % 50;
            }
            sum.push_back(c);
        }
        const WythoffValues values = WythoffValues::computed(sum, 1 << 20, 1);
        uint64_t total = 0;
        const SumAnalysis a = analyze_sum(sum, &values);
        for (size_t i = 0; i < sum.size(); ++i) {
            ASSERT_EQ(a.values[i], brute_value(sum[i], wythoff, n)) << format_sum(sum);
            total ^= a.values[i];
        }
        ASSERT_EQ(a.nim_sum, total);
        const auto next = sum_winning_move(sum, &values);
        ASSERT_EQ(next.has_value(), total != 0) << format_sum(sum);
        if (!next) {
            ++zero;
            continue;
        }
        int changed = 0;
        uint64_t after = 0;
        for (size_t i = 0; i < sum.size(); ++i) {
            if (!(sum[i] == (*next)[i])) {
                ++changed;
                ASSERT_TRUE(legal_component_move(sum[i], (*next)[i])) << format_sum(*next);
            }
            after ^= brute_value((*next)[i], wythoff, n);
        }
        ASSERT_EQ(changed, 1) << format_sum(sum) << " -> " << format_sum(*next);
        ASSERT_EQ(after, 0u) << format_sum(sum) << " -> " << format_sum(*next);
    }
    EXPECT_GT(zero, 0);
}

TEST(GameSum, PerfectGamesAlternate) {
    const uint64_t n = 24;
    const auto wythoff = testing::direct_mex_table(n, n);
    for (const char* text : {"wythoff:4,6 sub:1,3,4:9 nim:2", "wythoff:23,17 wythoff:3,5",
                             "nim:1 nim:2 nim:3 nim:4 nim:4", "sub:2,5:19 wythoff:10,0"}) {
        const GameSum sum = parse_sum(text);
        const WythoffValues values = WythoffValues::computed(sum, 1 << 20, 1);
        const auto game = sum_perfect_game(sum, &values, 10000);
        auto total = [&](const GameSum& s) {
            uint64_t t = 0;
            for (const auto& c : s) t ^= brute_value(c, wythoff, n);
            return t;
        };
        const bool first_lost = total(game.front()) == 0;
        for (size_t i = 0; i < game.size(); ++i) {
            ASSERT_EQ(total(game[i]) == 0, (i % 2 == 0) == first_lost) << format_sum(game[i]);
            if (i == 0) continue;
            int changed = 0;
            for (size_t j = 0; j < sum.size(); ++j)
                if (!(game[i][j] == game[i - 1][j])) {
                    ++changed;
                    ASSERT_TRUE(legal_component_move(game[i - 1][j], game[i][j]));
                }
            ASSERT_EQ(changed, 1);
        }
        EXPECT_FALSE(sum_losing_move(game.back())) << text;  // ended: no move is left
        EXPECT_EQ(total(game.back()), 0u);
    }
}

// Seed 002: Bouton's winning moves, taken from the first heap that can be reduced.
TEST(GameSum, Seed002NimMoves) {
    EXPECT_EQ(format_sum(*sum_winning_move(parse_sum("nim:3 nim:5 nim:7"), nullptr)),
              "nim:2 nim:5 nim:7");
    EXPECT_EQ(format_sum(*sum_winning_move(parse_sum("nim:4 nim:7 nim:9"), nullptr)),
              "nim:4 nim:7 nim:3");
    const auto ex = *sum_winning_move(parse_sum("nim:3 nim:5 nim:7 nim:11"), nullptr);
    EXPECT_EQ(ex[0].x ^ ex[1].x ^ ex[2].x ^ ex[3].x, 0u);
    for (const char* p : {"nim:1 nim:2 nim:3", "nim:3 nim:5 nim:6", "nim:7 nim:7"})
        EXPECT_FALSE(sum_winning_move(parse_sum(p), nullptr)) << p;
}

TEST(GameSum, RefusesTablesTooLarge) {
    EXPECT_THROW(WythoffValues::computed(parse_sum("wythoff:100000,100000"), 1 << 20), Error);
    EXPECT_THROW(
        WythoffValues::computed(parse_sum("wythoff:9223372036854775807,9223372036854775807")),
        Error);
}

}  // namespace
}  // namespace grundy
