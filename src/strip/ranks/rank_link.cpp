// The rows of each rank (rank_link.hpp).
#include "strip/ranks/rank_link.hpp"

#include <algorithm>
#include <cmath>

#include "grundy/error.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {
namespace {
// Rows per rank at least: two, so that a cut leaves every rank rows to sweep (rank 0 keeps at
// least one unsettled row above its settled ones: RankPlan::settle_limit).
constexpr uint64_t kMinRankRows = 2;

// The work per column of rows settled..y-1 (0 below `settled`), for y = 0..rows.
std::vector<double> unsettled_work(uint64_t rows, uint64_t settled) {
    std::vector<double> prefix(rows + 1, 0.0);
    for (uint64_t y = 0; y < rows; ++y)
        prefix[y + 1] = prefix[y] + (y < settled ? 0.0 : static_cast<double>(strip_row_cost(y)));
    return prefix;
}
}  // namespace

std::vector<uint64_t> cut_rank_rows(uint64_t rows, int ranks, uint64_t settled,
                                    double rank0_extra) {
    const uint64_t R = ranks > 0 ? static_cast<uint64_t>(ranks) : 1;
    if (rows < kMinRankRows * R)
        throw ArgumentError("{rows} " + std::to_string(rows) + " are too few for " +
                            std::to_string(R) + " ranks (at least " + std::to_string(kMinRankRows) +
                            " rows each)");
    if (R == 1) return {0, rows};
    if (settled + 1 + kMinRankRows * (R - 1) > rows)
        throw Error("internal: more settled rows than a cut of the rows can keep on rank 0");
    const std::vector<double> work = unsettled_work(rows, settled);
    std::vector<uint64_t> starts = {0};
    for (uint64_t k = 1; k < R; ++k) {
        // Rank k - 1's last row: the one that brings the work below it nearest to k / R of the
        // total, within what leaves every rank its rows.
        const uint64_t lo =
            k == 1 ? std::max(settled + 1, kMinRankRows) : starts.back() + kMinRankRows;
        const uint64_t hi = rows - kMinRankRows * (R - k);
        // Rank 0 carries its extra work besides its rows'.
        const double goal =
            (work[rows] + rank0_extra) * static_cast<double>(k) / static_cast<double>(R) -
            rank0_extra;
        uint64_t y =
            static_cast<uint64_t>(std::lower_bound(work.begin() + static_cast<int64_t>(lo),
                                                   work.begin() + static_cast<int64_t>(hi), goal) -
                                  work.begin());
        if (y > lo && goal - work[y - 1] < work[y] - goal) --y;
        starts.push_back(y);
    }
    starts.push_back(rows);
    return starts;
}

double cut_imbalance(const std::vector<uint64_t>& starts, uint64_t settled, double rank0_extra) {
    const uint64_t rows = starts.back();
    const std::vector<double> work = unsettled_work(rows, settled);
    const auto R = static_cast<double>(starts.size() - 1);
    if (work[rows] <= 0) return 1.0;
    double busiest = 0;
    for (size_t r = 0; r + 1 < starts.size(); ++r)
        busiest =
            std::max(busiest, work[starts[r + 1]] - work[starts[r]] + (r == 0 ? rank0_extra : 0));
    return busiest * R / (work[rows] + rank0_extra);
}

}  // namespace grundy::strip
