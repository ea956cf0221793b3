#include "app/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/utc_time.hpp"
#include "strip/certify/search_progress.hpp"

namespace grundy::app {

ProgressStyle progress_style(double log_every) {
    if (::isatty(STDERR_FILENO)) return {};
    return {false, log_every};
}

ProgressReporter::ProgressReporter(bool enabled, ProgressStyle style, uint64_t total,
                                   std::string unit)
    : enabled_(enabled),
      style_(style),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()) {
    line_ = [this](double seconds) { return counter_line(seconds); };
    if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressReporter::ProgressReporter(bool enabled, ProgressStyle style, LineFn line)
    : enabled_(enabled),
      style_(style),
      line_(std::move(line)),
      start_(std::chrono::steady_clock::now()) {
    if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressReporter::~ProgressReporter() {
    stop();
}

void ProgressReporter::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (!enabled_) return;
    if (style_.redraw && last_width_)
        std::fprintf(stderr, "\r%*s\r", static_cast<int>(last_width_), "");
    else if (!style_.redraw)
        print(true);
}

// The line is built at every tick in both styles: a line function may keep state between calls
// (periods_line measures its speed from the first line it builds).
void ProgressReporter::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; }))
        print(false);
}

// Redraws the line, blanking what is left of a longer one before it; or, in a log, writes it
// with the time when one is due (`last`: the run's end, always).
void ProgressReporter::print(bool last) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = line_(seconds);
    if (!style_.redraw) {
        if (!last && seconds < next_log_) return;
        next_log_ = seconds + std::max(style_.every, 0.25);
        std::fprintf(stderr, "%s %s\n", base::iso8601_now().c_str(), line.c_str());
        std::fflush(stderr);
        return;
    }
    const int pad = static_cast<int>(last_width_ > line.size() ? last_width_ - line.size() : 0);
    std::fprintf(stderr, "\r%s%*s", line.c_str(), pad, "");
    std::fflush(stderr);
    last_width_ = line.size();
}

std::string ProgressReporter::counter_line(double seconds) const {
    const uint64_t done = done_.load(std::memory_order_relaxed);
    const double rate = seconds > 0 ? done / seconds : 0.0;
    const double percent = total_ ? 100.0 * static_cast<double>(done) / total_ : 0.0;
    char eta[32] = "--:--";
    if (rate > 0 && done < total_) {
        const auto left = static_cast<uint64_t>((total_ - done) / rate);
        std::snprintf(eta, sizeof eta, "%llu:%02llu:%02llu",
                      static_cast<unsigned long long>(left / 3600),
                      static_cast<unsigned long long>(left / 60 % 60),
                      static_cast<unsigned long long>(left % 60));
    }
    char line[160];
    std::snprintf(line, sizeof line, "[%5.1f%%] %s %s, %s %s/s, ETA %s", percent,
                  human(static_cast<double>(done)).c_str(), unit_.c_str(), human(rate).c_str(),
                  unit_.c_str(), eta);
    return line;
}

ProgressReporter::LineFn periods_line(const PeriodsProgress& p, uint64_t rows) {
    return [line = strip::PeriodsLine(p, rows)](double t) mutable { return line(t); };
}

bool progress_wanted(bool progress_flag, bool quiet_flag) {
    if (quiet_flag) return false;
    return progress_flag || ::isatty(STDERR_FILENO);
}

}  // namespace grundy::app
