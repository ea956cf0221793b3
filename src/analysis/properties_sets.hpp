// The properties pass's sets and helpers that its two files share (properties.cpp: the pass,
// its rows and its report; properties_lines.cpp: the column and diagonal checks of a band's
// pieces). Internal to the pass.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/message.hpp"
#include "analysis/passes.hpp"
#include "base/simd_clones.hpp"

namespace grundy::analysis {

inline std::string cell(uint64_t x, uint64_t y) {
    return cat("(", x, ", ", y, ")");
}

// Test-and-set of bit v in a bitset whose word 0 is word `first` of the values; nonzero if v
// was there already. No branch: loops that look at the result once at their end use it as is.
inline uint64_t add(uint64_t* bits, uint64_t first, uint64_t v) {
    uint64_t& word = bits[v / 64 - first];
    const uint64_t bit = uint64_t{1} << (v % 64);
    const uint64_t seen = word & bit;
    word |= bit;
    return seen;
}

inline bool seen_before(uint64_t* bits, uint64_t first, uint64_t v) {
    return add(bits, first, v) != 0;
}

inline constexpr uint64_t kColumnBlock = 16;  // 64 bytes of uint32 values: one cache line of a row

// The vectorisable first looks below do their arithmetic in 32 bits (four or more cells per
// instruction): exact while x + y and the bounds fit, which this size ensures.
inline constexpr uint64_t kNarrow = uint64_t{1} << 29;

// Nonzero unless every values[i] (i < n) lies in [low[i], top + i]: the bounds and the set
// windows of a row's segment of columns or diagonals, with no branch per cell (vectorised).
// (properties.cpp)
GRUNDY_SIMD_CLONES uint32_t outside(const uint32_t* values, uint32_t top, const uint32_t* low,
                                    uint32_t n);

// A diagonal's set: a bitset over the words first .. of the values its cells may hold by the
// bounds, allocated when its first cell is met and freed after its last; values below the
// window (out of bounds, so already reported) go to `low`, a list that stays empty on a
// correct table.
struct PropertiesPass::Diagonal {
    std::unique_ptr<uint64_t[]> bits;
    uint64_t first = 0;
    std::vector<uint64_t> low;
};

struct PropertiesPass::Slot {
    std::vector<uint64_t> row_bits;  // the current row's set
    std::vector<uint64_t> odd_bits;  // its odd cells, while a row is checked in two halves
    std::vector<const char*> ahead;  // cache lines to prefetch for the next diagonal block
    FirstViolation bounds, rows, cols, diags;
};

}  // namespace grundy::analysis
