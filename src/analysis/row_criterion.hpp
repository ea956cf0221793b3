// The row criterion of grundy/periodicity.hpp (find_row_period) over any sequence given by a
// function of the position: a stored row is searched as d(x) = g(x, y) - x computed on the fly,
// instead of being copied into a sequence first (a row's length of 64-bit values written and
// read again, for a search that mostly reads only its second half).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "grundy/periodicity.hpp"

namespace grundy::analysis {

// Same result as find_period(s, n / 4, n / 2), for a fraction of its cost: pre(p) <= h = n / 2
// says exactly that p is a period of the tail w = s[h..n), so the answer is w's least period
// when that is at most n / 4, and the preperiod follows by scanning back from h. The least
// period of a prefix of w never decreases as the prefix grows, so a tail without a short period
// (most rows of a square table) is given up after about n / 4 values instead of n. `s(x)` is
// s[x], an int64_t.
template <class Sequence>
std::optional<Periodicity> row_criterion(uint64_t n, Sequence s) {
    if (n < 2) return std::nullopt;
    const uint64_t max_period = std::min<uint64_t>(n / 4, n - 1), h = n / 2, m = n - h;
    if (max_period == 0) return std::nullopt;
    auto w = [&](uint64_t i) { return s(h + i); };
    // border[i]: the longest proper border of w[0..i] (the KMP failure function).
    thread_local std::vector<uint64_t> border;
    if (border.size() < m) border.resize(m);
    border[0] = 0;
    uint64_t k = 0;
    for (uint64_t i = 1; i < m; ++i) {
        const int64_t wi = w(i);
        while (k > 0 && wi != w(k)) k = border[k - 1];
        if (wi == w(k)) ++k;
        border[i] = k;
        if (i + 1 - k > max_period) return std::nullopt;  // w[0..i]'s least period is too long
    }
    const uint64_t p = m - border[m - 1];
    if (p > max_period) return std::nullopt;
    uint64_t x0 = h;  // s[x + p] == s[x] holds for h <= x < n - p
    while (x0 > 0 && s(x0 - 1 + p) == s(x0 - 1)) --x0;
    return Periodicity{p, x0, (n - x0) / p};
}

}  // namespace grundy::analysis
