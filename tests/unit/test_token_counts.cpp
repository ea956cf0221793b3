// The counts of the run-length encoder's tokens (io/token_counts.hpp), against a count one token
// at a time: the AVX-512 VBMI2 code where the CPU has it, and the portable code everywhere.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <random>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/memory_table.hpp"
#include "io/rle_deflate.hpp"
#include "io/token_counts.hpp"

namespace grundy::io {
namespace {

std::vector<uint32_t> slow_counts(const std::vector<uint16_t>& tokens) {
    std::vector<uint32_t> seen(kTokenKinds);
    for (const uint16_t t : tokens) ++seen[t];
    return seen;
}

void expect_counts(const std::vector<uint16_t>& tokens, const std::string& what) {
    const std::vector<uint32_t> want = slow_counts(tokens);
    for (const TokenCounter counter : {TokenCounter::Portable, TokenCounter::Best}) {
        std::vector<uint32_t> seen(kTokenKinds, 7);  // added to, not overwritten
        count_tokens(tokens.data(), tokens.size(), seen.data(), counter);
        for (uint32_t& c : seen) c -= 7;
        EXPECT_EQ(seen, want) << what << (counter == TokenCounter::Best ? ", best" : ", portable");
    }
}

// What the encoder counts: the parse of a table's high byte planes, 64 KiB blocks.
TEST(TokenCounts, HighPlanesOfATable) {
    EngineOptions o;
    o.rows = o.cols = 1024;
    MemoryTable table;
    compute_table(o, table);
    std::vector<uint8_t> high;
    for (uint64_t y = 0; y < 1024; ++y)
        for (uint64_t x = 0; x < 1024; ++x) high.push_back(static_cast<uint8_t>(table(x, y) >> 8));
    for (size_t at = 0; at < high.size(); at += kRleBlockBytes)
        expect_counts(rle_parse(high.data(), at, std::min(high.size(), at + kRleBlockBytes)),
                      "block at " + std::to_string(at));
    if (!token_counter_has_vbmi2())
        std::printf("(no AVX-512 VBMI2 here: the portable code tested twice)\n");
}

// Tokens of many kinds (most of them outside the eight values counted by vector), of fewer
// than eight literals (and none), runs only, and lengths around the sample (512 tokens) and the
// steps of 32.
TEST(TokenCounts, EveryMixAndLength) {
    std::mt19937 rng(9);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{511}, size_t{1023}, size_t{1024},
                           size_t{1025}, size_t{1055}, size_t{1056}, size_t{1057}, size_t{40000}}) {
        for (const int kinds : {kTokenKinds, 256, 12, 3, 1, 0}) {
            std::vector<uint16_t> tokens(n);
            for (auto& t : tokens) {
                if (kinds == 0)  // runs only
                    t = static_cast<uint16_t>(259 + rng() % 256);
                else if (rng() % 10 == 0)
                    t = static_cast<uint16_t>(259 + rng() % 256);
                else
                    t = static_cast<uint16_t>(40 + rng() % kinds % 216);
            }
            expect_counts(tokens,
                          std::to_string(n) + " tokens of " + std::to_string(kinds) + " kinds");
        }
    }
}

}  // namespace
}  // namespace grundy::io
