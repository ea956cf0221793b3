// The rows of each rank (rank_link.hpp).
#include "strip/rank_link.hpp"

#include <algorithm>
#include <cmath>

#include "engine/config.hpp"
#include "grundy/error.hpp"

namespace grundy::strip {
namespace {
// Rows per rank at least: one to sweep, one more so that rank 0 keeps a row swept while the
// rows below it settle.
constexpr uint64_t kMinRankRows = 2;
// Rows settle near column c (y + 1)^b; b measured on rows 0..1023 (README, "Certified row
// periods").
constexpr double kSettleExponent = 2.8;
}  // namespace

std::vector<uint64_t> cut_rank_rows(uint64_t rows, int ranks) {
    const uint64_t R = ranks > 0 ? static_cast<uint64_t>(ranks) : 1;
    if (rows < kMinRankRows * R)
        throw ArgumentError("{rows} " + std::to_string(rows) + " are too few for " +
                            std::to_string(R) + " ranks (at least " + std::to_string(kMinRankRows) +
                            " rows each)");
    if (R == 1) return {0, rows};
    auto cost = [](uint64_t y) { return static_cast<double>(engine::strip_row_cost(y)); };
    // prefix[a]: rank 0's work with rows 0..a-1 (each row until it settles); suffix[a]: the
    // work of rows a..Y-1, swept to the end.
    std::vector<double> prefix(rows + 1, 0.0), suffix(rows + 1, 0.0);
    const double Y = static_cast<double>(rows);
    for (uint64_t y = 0; y < rows; ++y)
        prefix[y + 1] =
            prefix[y] + cost(y) * std::pow(static_cast<double>(y + 1) / Y, kSettleExponent);
    for (uint64_t y = rows; y-- > 0;) suffix[y] = suffix[y + 1] + cost(y);
    // Rank 0's last row: the one that makes the slowest rank fastest.
    uint64_t best = kMinRankRows;
    double best_work = -1;
    for (uint64_t a = kMinRankRows; a + kMinRankRows * (R - 1) <= rows; ++a) {
        const double work = std::max(prefix[a], suffix[a] / static_cast<double>(R - 1));
        if (best_work < 0 || work < best_work) best = a, best_work = work;
    }
    // Ranks 1..R-1: equal shares of rows best..Y-1.
    std::vector<uint64_t> starts = {0, best};
    const double share = suffix[best] / static_cast<double>(R - 1);
    for (uint64_t k = 2; k < R; ++k) {
        uint64_t y = starts.back() + kMinRankRows;
        while (y + kMinRankRows * (R - k) < rows && suffix[best] - suffix[y] < share * (k - 1)) ++y;
        starts.push_back(y);
    }
    starts.push_back(rows);
    return starts;
}

}  // namespace grundy::strip
