// The periodicity pass: for each row y, d(x) = g(x, y) - x over the stored columns, under the
// one criterion of grundy/periodicity.hpp (Z-function, O(X) per row). The file is read in row
// bands (one chunk height x all columns), since the criterion needs whole rows; the rows of a
// band are done in parallel.
#include <omp.h>

#include <algorithm>
#include <fstream>

#include "analysis/bands.hpp"
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
    std::vector<int64_t> d(row.size());
    for (uint64_t x = 0; x < row.size(); ++x)
        d[x] = static_cast<int64_t>(row[x]) - static_cast<int64_t>(x);
    result.periodicity = find_row_period(d);
    if (result.periodicity) {
        const uint64_t pre = result.periodicity->preperiod, p = result.periodicity->period;
        for (uint64_t x = pre; x < pre + p && x < row.size(); ++x)
            result.block.push_back(d[x] + 2 * static_cast<int64_t>(y));
    }
    return result;
}

std::vector<RowPeriod> row_periods(const Hdf5TableReader& table, int threads) {
    const uint64_t rows = table.rows(), cols = table.cols();
    uint64_t height = table.chunk_rows();
    if (height == 0 || height > 4096) height = std::min<uint64_t>(256, rows);
    std::vector<RowPeriod> result(rows);
    std::vector<uint32_t> band;
    const int t = analysis::thread_count(threads);
    for (uint64_t y0 = 0; y0 < rows; y0 += height) {
        const uint64_t h = std::min(height, rows - y0);
        band.resize(h * cols);
        table.read(0, y0, cols, h, band.data());
#pragma omp parallel for num_threads(t) schedule(dynamic, 1) if (h * cols >= 65536)
        for (uint64_t j = 0; j < h; ++j)
            result[y0 + j] =
                row_period(std::span<const uint32_t>(band.data() + j * cols, cols), y0 + j);
    }
    return result;
}

void write_row_periods_csv(const std::vector<RowPeriod>& periods, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw Error("cannot write " + path);
    out << "row,preperiod,period,periods_observed,block\n";
    for (const RowPeriod& r : periods) {
        out << r.row << ',';
        if (r.periodicity)
            out << r.periodicity->preperiod << ',' << r.periodicity->period << ','
                << r.periodicity->periods_observed << ',';
        else
            out << ",,,";
        for (size_t i = 0; i < r.block.size(); ++i) out << (i ? " " : "") << r.block[i];
        out << '\n';
    }
    out.close();
    if (!out) throw Error("cannot write " + path + " (disk full?)");
}

}  // namespace grundy
