// Independent slow implementations the tests compare the library with. Written from the
// definitions only; nothing here is shared with the engine.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "grundy/play.hpp"

namespace grundy::testing {

// g(x, y) by a direct mex over every option: (x - a, y), (x, y - b), (x - c, y - c). A cell has
// x + y + min(x, y) options, so its value is at most that: the values seen are marked in a flag
// array of that length plus one, cleared for each cell (a std::set per cell made the tables
// of a few hundred squared take seconds, and minutes under the sanitizers).
inline std::vector<uint32_t> direct_mex_table(uint64_t rows, uint64_t cols) {
    std::vector<uint32_t> g(rows * cols);
    std::vector<uint8_t> seen;
    auto at = [&](uint64_t x, uint64_t y) { return g[y * cols + x]; };
    for (uint64_t y = 0; y < rows; ++y)
        for (uint64_t x = 0; x < cols; ++x) {
            const uint64_t options = x + y + (x < y ? x : y);
            seen.assign(options + 1, 0);
            auto mark = [&](uint32_t v) {
                if (v <= options) seen[v] = 1;
            };
            for (uint64_t a = 1; a <= x; ++a) mark(at(x - a, y));
            for (uint64_t b = 1; b <= y; ++b) mark(at(x, y - b));
            for (uint64_t c = 1; c <= x && c <= y; ++c) mark(at(x - c, y - c));
            uint32_t m = 0;
            while (seen[m]) ++m;
            g[y * cols + x] = m;
        }
    return g;
}

// Grundy values 0..n-1 of the subtraction game with these moves, by a direct mex.
inline std::vector<uint32_t> naive_subtraction(const std::set<uint64_t>& moves, uint64_t n) {
    std::vector<uint32_t> g(n);
    for (uint64_t s = 0; s < n; ++s) {
        std::set<uint32_t> seen;
        for (uint64_t m : moves)
            if (m <= s) seen.insert(g[s - m]);
        while (seen.count(g[s])) ++g[s];
    }
    return g;
}

// Whether `to` is one move from `from` in Wythoff's game (along the column, the row or the
// diagonal).
inline bool is_option(const WythoffPosition& from, const WythoffPosition& to) {
    if (to.x == from.x) return to.y < from.y;
    if (to.y == from.y) return to.x < from.x;
    return to.x < from.x && to.y < from.y && from.x - to.x == from.y - to.y;
}

}  // namespace grundy::testing
