// The periodicity pass: for each row y, d(x) = g(x, y) - x over the stored columns, under the
// one criterion of grundy/periodicity.hpp (O(X) per row). It rides on the row-band stream
// (one chunk height x all columns), since the criterion needs whole rows; the rows of a band
// are done in parallel.
#include <algorithm>
#include <cstdint>

#include "analysis/passes.hpp"
#include "analysis/row_criterion.hpp"
#include "grundy/error.hpp"

namespace grundy {

const char* const kRowPeriodCriterion =
    "d(x) = g(x, y) - x over the stored columns 0..X-1; for a candidate p, pre(p) is the least "
    "x0 >= 0 such that d(x + p) = d(x) for all x0 <= x < X - p; the period is the least p with "
    "1 <= p <= X/4 (integer division) and pre(p) <= X/2, the preperiod is pre(p) for that p; if "
    "no p qualifies the row is undetermined. periods_observed = (X - preperiod) / period; block "
    "= g(x, y) - x + 2y for x = preperiod .. preperiod + period - 1.";

RowPeriod row_period(std::span<const uint32_t> row, uint64_t y) {
    RowPeriod result;
    result.row = y;
    auto d = [row](uint64_t x) { return static_cast<int64_t>(row[x]) - static_cast<int64_t>(x); };
    result.periodicity = analysis::row_criterion(row.size(), d);
    if (result.periodicity) {
        const uint64_t pre = result.periodicity->preperiod, p = result.periodicity->period;
        for (uint64_t x = pre; x < pre + p && x < row.size(); ++x) {
            const int64_t v = d(x) + 2 * static_cast<int64_t>(y);
            // Outside 32 bits (RowPeriod::block): no block rather than a wrong one.
            if (v < 0 || v > int64_t{UINT32_MAX}) {
                result.block.clear();
                break;
            }
            result.block.push_back(static_cast<uint32_t>(v));
        }
    }
    return result;
}

namespace analysis {

void PeriodicityPass::row(const RowBand& band, uint64_t y, int /*thread*/) {
    periods_[y] = row_period(std::span<const uint32_t>(band.row(y), band.cols), y);
}

}  // namespace analysis

std::vector<RowPeriod> row_periods(const TableSource& table, int threads) {
    analysis::check_pass_memory(table, &AnalysisOptions::periodicity);
    analysis::PeriodicityPass pass(table.rows());
    analysis::RowBandPass* passes[] = {&pass};
    analysis::stream_row_bands(table, passes, threads);
    return pass.take();
}

}  // namespace grundy
