// The progress a certification reports, and the fitted growth behind its ETA.
#include "strip/certify/search_progress.hpp"

#include <cmath>
#include <cstdio>

#include "base/human_units.hpp"
#include "strip/strip_config.hpp"

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

double SettleGrowth::Law::at(double rows) const {
    return c * std::pow(rows, b);
}

std::optional<SettleGrowth::Law> SettleGrowth::fit() const {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [m, x] : points_) {
        if (kFitSpan * m < points_.back().first || m < 16) continue;
        const double lx = std::log(static_cast<double>(m)), ly = std::log(static_cast<double>(x));
        n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    if (n < 3 || sxx * n - sx * sx <= 0) return std::nullopt;
    const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
    return Law{std::exp(a), b};
}

uint64_t SettleGrowth::predict(uint64_t rows) const {
    const auto law = fit();
    return law ? static_cast<uint64_t>(law->at(static_cast<double>(rows))) : 0;
}

WorkLeft work_left(uint64_t rows, uint64_t settled, uint64_t column, uint64_t expected_x0,
                   double exponent, bool settling) {
    WorkLeft w;
    const double end = static_cast<double>(expected_x0), x = static_cast<double>(column);
    for (uint64_t y = settled; y < rows; ++y) {
        const double cost = static_cast<double>(strip_row_cost(y));
        const double settles =
            settling ? end * std::pow(static_cast<double>(y + 1) / rows, exponent) : end;
        w.per_column += cost;
        if (settles > x) w.units += (settles - x) * cost;
    }
    return w;
}

// Phase 2 settles no row: every column costs about the same, and columns per second give the
// ETA.
std::string PeriodsLine::phase_two(double t) {
    using base::human;
    const uint64_t col = p_->column.load(), target = p_->target.load();
    if (phase2_start_ < 0 || col < phase2_first_) phase2_start_ = t, phase2_first_ = col;
    const double elapsed = t - phase2_start_;
    const double rate = elapsed > 0 ? static_cast<double>(col - phase2_first_) / elapsed : 0;
    const std::string eta = rate > 0 && target > col
                                ? base::human_seconds(static_cast<double>(target - col) / rate)
                                : "unknown";
    char line[200];
    std::snprintf(
        line, sizeof line, "phase 2/2 exact preperiods: column %s of %s (%.1f%%), %s col/s, ETA %s",
        human(static_cast<double>(col)).c_str(), human(static_cast<double>(target)).c_str(),
        target ? 100.0 * static_cast<double>(col) / target : 0.0, human(rate).c_str(), eta.c_str());
    return line;
}

std::string PeriodsLine::operator()(double t) {
    using base::human;
    const PeriodsProgress& p = *p_;
    const uint64_t col = p.column.load();
    char line[200];
    if (p.phase.load() != 1) outlook_.clear();
    if (p.phase.load() == 0) return "starting (allocating, reading the checkpoint)";
    if (p.phase.load() != 1) return phase_two(t);
    if (start_ < 0 || col < last_) start_ = t, first_ = last_ = col, units_ = 0;
    const uint64_t expected = p.expected_x0.load(), settled = p.settled_rows.load();
    const uint64_t repeating = p.repeating_rows.load();
    const WorkLeft work =
        work_left(rows_, settled, col, expected, p.settle_exponent.load(), repeating <= settled);
    units_ += static_cast<double>(col - last_) * work.per_column;
    last_ = col;
    const double elapsed = t - start_;
    const double rate = elapsed > 0 ? static_cast<double>(col - first_) / elapsed : 0.0;
    std::string eta = "unknown";
    if (expected > col && units_ > 0) eta = base::human_seconds(work.units / (units_ / elapsed));
    std::snprintf(line, sizeof line, "rows 0..%llu settled, ",
                  static_cast<unsigned long long>(settled ? settled - 1 : 0));
    outlook_ = line;
    if (repeating > settled) {
        // The period has grown past the ring: said at once, it is the run's news.
        const bool tables = p.repeating_tables_only.load();
        outlook_ +=
            repeating_past_ring(0, repeating - 1, p.repeating_period.load(), tables) +
            (tables ? " (swept to the certificate), " : " (phase 2 gives their preperiods), ");
    }
    std::snprintf(line, sizeof line, "certificate expected near column %s, ETA %s",
                  expected ? human(static_cast<double>(expected)).c_str() : "?", eta.c_str());
    outlook_ += line;
    std::string out = "phase 1/2: column " + human(static_cast<double>(col)) + " (" + human(rate) +
                      " col/s), " + outlook_;
    // What a job killed now would keep (--resume continues from it).
    if (const uint64_t saved = p.checkpoint_column.load())
        out += ", checkpoint at column " + human(static_cast<double>(saved));
    return out;
}

}  // namespace grundy::strip
