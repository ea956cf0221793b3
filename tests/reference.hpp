// Independent slow implementations the tests compare the library with. Written from the
// definitions only; nothing here is shared with the engine.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

namespace grundy::testing {

// g(x, y) by a direct mex over every option: (x - a, y), (x, y - b), (x - c, y - c).
inline std::vector<uint32_t> direct_mex_table(uint64_t rows, uint64_t cols) {
    std::vector<uint32_t> g(rows * cols);
    auto at = [&](uint64_t x, uint64_t y) { return g[y * cols + x]; };
    for (uint64_t y = 0; y < rows; ++y)
        for (uint64_t x = 0; x < cols; ++x) {
            std::set<uint32_t> seen;
            for (uint64_t a = 1; a <= x; ++a) seen.insert(at(x - a, y));
            for (uint64_t b = 1; b <= y; ++b) seen.insert(at(x, y - b));
            for (uint64_t c = 1; c <= x && c <= y; ++c) seen.insert(at(x - c, y - c));
            uint32_t m = 0;
            while (seen.count(m)) ++m;
            g[y * cols + x] = m;
        }
    return g;
}

}  // namespace grundy::testing
