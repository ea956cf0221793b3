// Eventual periodicity of a finite sequence, by one criterion shared by every part of the
// project (row periods of stored tables, subtraction games, cross-checks of certified periods),
// so their results are reproducible and comparable.
//
// For a candidate period p, pre(p) is the least x0 >= 0 with s[x + p] == s[x] for every
// x0 <= x < n - p. The reported period is the least p in [1, max_period] with
// pre(p) <= max_preperiod, and the preperiod is pre(p) for it. For a row of Wythoff's table
// s is d(x) = g(x, y) - x (additive periodicity) and the bounds are n / 4 and n / 2.
//
// Cost: O(n) time and memory (a Z-function over the reversed sequence gives every pre(p) at
// once), never O(n * p).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace grundy {

struct Periodicity {
    uint64_t period = 0;
    uint64_t preperiod = 0;
    uint64_t periods_observed = 0;  // whole periods between the preperiod and the end
};

// pre(p) for every p in [0, n): result[p] (result[0] = 0 by convention).
std::vector<uint64_t> preperiods_for_all_periods(std::span<const int64_t> s);

// The least qualifying period, or nullopt if no p in [1, max_period] has pre(p) <=
// max_preperiod.
std::optional<Periodicity> find_period(std::span<const int64_t> s, uint64_t max_period,
                                       uint64_t max_preperiod);

// The row criterion: max_period = n / 4, max_preperiod = n / 2. Computed from the least period
// of s[n/2..n) (failure function, stops early on tails without a short period): same result as
// find_period, O(n) time, faster by a constant factor on the rows of a table.
std::optional<Periodicity> find_row_period(std::span<const int64_t> s);

}  // namespace grundy
