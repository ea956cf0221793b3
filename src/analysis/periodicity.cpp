#include "grundy/periodicity.hpp"

#include "analysis/row_criterion.hpp"

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

std::optional<Periodicity> find_row_period(std::span<const int64_t> s) {
    return analysis::row_criterion(s.size(), [s](uint64_t x) { return s[x]; });
}

}  // namespace grundy
