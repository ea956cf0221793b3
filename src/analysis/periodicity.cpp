#include "grundy/periodicity.hpp"

#include <algorithm>

namespace grundy {

std::vector<uint64_t> preperiods_for_all_periods(std::span<const int64_t> s) {
    const uint64_t n = s.size();
    std::vector<uint64_t> pre(n, 0);
    if (n == 0) return pre;
    // r = s reversed; z[p] = length of the longest common prefix of r and r[p..], i.e. how
    // many positions, counted back from the end, satisfy s[x + p] == s[x].
    auto r = [&](uint64_t i) { return s[n - 1 - i]; };
    std::vector<uint64_t> z(n, 0);
    uint64_t left = 0, right = 0;  // [left, right) is the rightmost match window found so far
    for (uint64_t p = 1; p < n; ++p) {
        uint64_t k = 0;
        if (p < right) k = std::min(right - p, z[p - left]);
        while (p + k < n && r(k) == r(p + k)) ++k;
        z[p] = k;
        if (p + k > right) {
            left = p;
            right = p + k;
        }
        pre[p] = n - p - k;  // s[x + p] == s[x] exactly for x in [n - p - k, n - p)
    }
    return pre;
}

std::optional<Periodicity> find_period(std::span<const int64_t> s, uint64_t max_period,
                                       uint64_t max_preperiod) {
    const uint64_t n = s.size();
    if (n < 2) return std::nullopt;
    const auto pre = preperiods_for_all_periods(s);
    const uint64_t last = std::min<uint64_t>(max_period, n - 1);
    for (uint64_t p = 1; p <= last; ++p)
        if (pre[p] <= max_preperiod) return Periodicity{p, pre[p], (n - pre[p]) / p};
    return std::nullopt;
}

// Same result as find_period(s, n / 4, n / 2), for a fraction of its cost: pre(p) <= h = n / 2
// says exactly that p is a period of the tail w = s[h..n), so the answer is w's least period
// when that is at most n / 4, and the preperiod follows by scanning back from h. The least
// period of a prefix of w never decreases as the prefix grows, so a tail without a short period
// (most rows of a square table) is given up after about n / 4 values instead of n.
std::optional<Periodicity> find_row_period(std::span<const int64_t> s) {
    const uint64_t n = s.size();
    if (n < 2) return std::nullopt;
    const uint64_t max_period = std::min<uint64_t>(n / 4, n - 1), h = n / 2, m = n - h;
    if (max_period == 0) return std::nullopt;
    const int64_t* w = s.data() + h;
    // border[i]: the longest proper border of w[0..i] (the KMP failure function).
    thread_local std::vector<uint64_t> border;
    if (border.size() < m) border.resize(m);
    border[0] = 0;
    uint64_t k = 0;
    for (uint64_t i = 1; i < m; ++i) {
        while (k > 0 && w[i] != w[k]) k = border[k - 1];
        if (w[i] == w[k]) ++k;
        border[i] = k;
        if (i + 1 - k > max_period) return std::nullopt;  // w[0..i]'s least period is too long
    }
    const uint64_t p = m - border[m - 1];
    if (p > max_period) return std::nullopt;
    uint64_t x0 = h;  // s[x + p] == s[x] holds for h <= x < n - p
    while (x0 > 0 && s[x0 - 1 + p] == s[x0 - 1]) --x0;
    return Periodicity{p, x0, (n - x0) / p};
}

}  // namespace grundy
