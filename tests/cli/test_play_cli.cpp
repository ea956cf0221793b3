// The CLI of perfect play (grundy move, play, subtraction): seed 004's moves, random positions
// against a direct-mex table, sums with computed and stored tables, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "grundy/play.hpp"
#include "support/cli.hpp"
#include "support/reference.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

using testing::run_grundy;
using testing::RunResult;

TEST(PlayCli, Seed004Moves) {
    EXPECT_EQ(run_grundy("move 5 0").output, "0 0\n");
    EXPECT_EQ(run_grundy("move 5 10").output, "5 3\n");
    EXPECT_EQ(run_grundy("move 25 30").output, "8 13\n");
    for (const char* lost : {"move 1 2", "move 10 6", "move 0 0"}) {
        const RunResult r = run_grundy(lost);
        EXPECT_EQ(r.status, 1) << lost;
        EXPECT_EQ(r.output, "no winning move\n") << lost;
    }
    const RunResult all = run_grundy("move --all 2 2");
    EXPECT_EQ(all.status, 0);
    EXPECT_EQ(std::count(all.output.begin(), all.output.end(), '\n'), 3);
    const RunResult big = run_grundy("move 9223372036854775807 1000000000000000000");
    EXPECT_EQ(big.status, 0) << big.output;
}

// `grundy move` itself on random positions, against the direct-mex table.
TEST(PlayCli, RandomMovesAgainstDirectMex) {
    const uint64_t n = 60;
    const auto g = testing::direct_mex_table(n, n);
    std::mt19937_64 rng(3);
    for (int i = 0; i < 12; ++i) {  // few: each one starts a process (slow under ASan)
        const uint64_t x = rng() % n, y = rng() % n;
        const RunResult r = run_grundy("move " + std::to_string(x) + " " + std::to_string(y));
        if (g[y * n + x] == 0) {
            EXPECT_EQ(r.status, 1);
            EXPECT_EQ(r.output, "no winning move\n");
            continue;
        }
        ASSERT_EQ(r.status, 0) << r.output;
        std::istringstream in(r.output);
        WythoffPosition to;
        ASSERT_TRUE(in >> to.x >> to.y) << r.output;
        EXPECT_TRUE(testing::is_option({x, y}, to)) << x << " " << y << " -> " << r.output;
        EXPECT_EQ(g[to.y * n + to.x], 0u) << x << " " << y << " -> " << r.output;
    }
}

TEST(PlayCli, SubtractionCsv) {
    const testing::ScratchDir dir;
    const std::string csv = dir / "sub.csv";
    const RunResult r = run_grundy("subtraction --moves 1,2,5 --n 50 --csv " + csv);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("S({1,2,5}): period 3, preperiod 0"), std::string::npos) << r.output;
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "n,grundy");
    const auto expected = testing::naive_subtraction({1, 2, 5}, 50);
    for (uint64_t i = 0; i < 50; ++i) {
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_EQ(line, std::to_string(i) + "," + std::to_string(expected[i]));
    }
    EXPECT_FALSE(std::getline(in, line));
}

TEST(PlayCli, BadInputExits2) {
    for (const char* bad : {"move -5 3",
                            "move 3 -5",
                            "move abc 3",
                            "move 3",
                            "move 1 2 3",
                            "move 3.5 2",
                            "move 9223372036854775808 0",
                            "move 99999999999999999999999 0",
                            "move 1e5 2",
                            "move --sum \"wythoff:13 nim:5\"",
                            "move --sum \"nim:-3\"",
                            "move --sum \"\"",
                            "move --sum \"chess:1\"",
                            "move --sum \"nim:9223372036854775808\"",
                            "move --sum \"nim:3\" 4 5",
                            "play -1 0",
                            "play x 2",
                            "play --sum \"nim:x\"",
                            "play --sum \"nim:3\" 4 5",
                            "play --sum \"wythoff:100000,100000\"",
                            "subtraction --moves 1,0 --n 10",
                            "subtraction --moves 1,a --n 10",
                            "subtraction --moves 1,3 --n -4",
                            "subtraction --moves 1,3 --n 99999999999"}) {
        const RunResult r = run_grundy(bad);
        EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
        EXPECT_NE(r.output.find("error"), std::string::npos) << bad << ": " << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << bad << ": " << r.output;
    }
}

TEST(PlayCli, SumsWithComputedAndStoredTables) {
    const RunResult r = run_grundy("move --sum \"wythoff:13,9 wythoff:3,7 nim:5\" --explain");
    EXPECT_EQ(r.status, 0) << r.output;
    const auto g = testing::direct_mex_table(14, 14);
    const std::string expected = "wythoff:13,9  g = " + std::to_string(g[9 * 14 + 13]) +
                                 "\nwythoff:3,7  g = " + std::to_string(g[7 * 14 + 3]) +
                                 "\nnim:5  g = 5\n";
    EXPECT_EQ(r.output.substr(0, expected.size()), expected);

    const testing::ScratchDir dir;
    const std::string table = dir / "t.h5";
    ASSERT_EQ(run_grundy("compute --rows 16 --cols 32 --output " + table + " -q").status, 0);
    // Same answer from the file, the components either way round.
    const RunResult f =
        run_grundy("move --sum \"wythoff:13,9 wythoff:3,7 nim:5\" --explain --table " + table);
    EXPECT_EQ(f.output, r.output);
    EXPECT_EQ(run_grundy("move --sum \"wythoff:30,15 nim:1\" --table " + table).status,
              run_grundy("move --sum \"wythoff:15,30 nim:1\"").status);
    const RunResult outside = run_grundy("move --sum \"wythoff:20,20 nim:1\" --table " + table);
    EXPECT_EQ(outside.status, 2);
    EXPECT_NE(outside.output.find("outside the table"), std::string::npos) << outside.output;
    EXPECT_EQ(run_grundy("move --sum \"nim:1\" --table " + (dir / "missing.h5")).status, 2);

    const RunResult lost = run_grundy("move --sum \"nim:1 nim:2 nim:3\"");
    EXPECT_EQ(lost.status, 1);
    EXPECT_EQ(lost.output, "no winning move\n");
    EXPECT_EQ(run_grundy("move --sum \"wythoff:100000,100000\"").status, 2);
}

TEST(PlayCli, PlayAndSubtraction) {
    const RunResult p = run_grundy("play 5 3");
    EXPECT_EQ(p.status, 0);
    EXPECT_EQ(p.output.substr(0, p.output.find('\n')), "   (5, 3) \u2208 K");
    EXPECT_NE(p.output.find("\u279e (0, 0) \u2208 K\n"), std::string::npos) << p.output;
    const RunResult ps = run_grundy("play --sum \"nim:3 nim:5 nim:7\"");
    EXPECT_EQ(ps.status, 0);
    EXPECT_EQ(ps.output.substr(0, ps.output.find('\n')), "   nim:3 nim:5 nim:7 \u2209 K");
    EXPECT_NE(ps.output.find("\n\u279e nim:2 nim:5 nim:7 \u2208 K\n"), std::string::npos)
        << ps.output;
    const RunResult s = run_grundy("subtraction --moves 1,3,4 --n 100");
    EXPECT_EQ(s.status, 0);
    EXPECT_NE(s.output.find("0 1 0 1 2 3 2 0 1 0 1 2 3 2 0 1 0 1 2 3"), std::string::npos)
        << s.output;
    EXPECT_NE(s.output.find("period 7, preperiod 0"), std::string::npos) << s.output;
}

}  // namespace
}  // namespace grundy
