// The progress a certification reports, and the fitted growth behind its ETA.
#include "strip/certify/search_progress.hpp"

#include <cmath>

namespace grundy::strip {

void report(PeriodsProgress* pr, int phase, uint64_t column, uint64_t target, uint64_t saved,
            const Strip& s) {
    if (!pr) return;
    pr->phase.store(phase, std::memory_order_relaxed);
    pr->column.store(column, std::memory_order_relaxed);
    pr->target.store(target, std::memory_order_relaxed);
    pr->saved_column.store(saved, std::memory_order_relaxed);
    pr->state_bits.store(s.state_bits(), std::memory_order_relaxed);
    pr->window_bytes.store(s.window_bytes(), std::memory_order_relaxed);
}

uint64_t SettleGrowth::predict(uint64_t rows) const {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [m, x] : points_) {
        if (kFitSpan * m < points_.back().first || m < 16) continue;
        const double lx = std::log(static_cast<double>(m)), ly = std::log(static_cast<double>(x));
        n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    if (n < 3 || sxx * n - sx * sx <= 0) return 0;
    const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
    return static_cast<uint64_t>(std::exp(a + b * std::log(static_cast<double>(rows))));
}

}  // namespace grundy::strip
