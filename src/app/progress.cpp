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
    // Speeds are measured from the first line (a resumed run starts at its checkpoint's column):
    // columns per second for the line, and for the ETA the strip's cost units per second, each
    // column counted at what it cost when it was swept (strip::work_left says why).
    struct Sweep {
        double start = -1;
        uint64_t first = 0, last = 0;  // the column at the first line, at the last
        double units = 0;              // swept since the first line
    };
    return [&p, rows, s = Sweep{}](double t) mutable {
        const uint64_t col = p.column.load(), target = p.target.load();
        char line[200];
        if (p.phase.load() == 0)
            return std::string("starting (allocating, reading the checkpoint)");
        if (p.phase.load() != 1) {
            std::snprintf(
                line, sizeof line, "phase 2/2 exact preperiods: column %s of %s (%.1f%%), %.0f s",
                human(static_cast<double>(col)).c_str(), human(static_cast<double>(target)).c_str(),
                target ? 100.0 * static_cast<double>(col) / target : 0.0, t);
            return std::string(line);
        }
        if (s.start < 0 || col < s.last) s = {t, col, col, 0.0};
        const uint64_t expected = p.expected_x0.load(), settled = p.settled_rows.load();
        const strip::WorkLeft work =
            strip::work_left(rows, settled, col, expected, p.settle_exponent.load());
        s.units += static_cast<double>(col - s.last) * work.per_column;
        s.last = col;
        const double elapsed = t - s.start;
        const double rate = elapsed > 0 ? static_cast<double>(col - s.first) / elapsed : 0.0;
        std::string eta = "unknown";
        if (expected > col && s.units > 0) eta = human_seconds(work.units / (s.units / elapsed));
        std::snprintf(line, sizeof line,
                      "phase 1/2: column %s (%s col/s), rows 0..%llu settled, certificate "
                      "expected near column %s, ETA %s",
                      human(static_cast<double>(col)).c_str(), human(rate).c_str(),
                      static_cast<unsigned long long>(settled ? settled - 1 : 0),
                      expected ? human(static_cast<double>(expected)).c_str() : "?", eta.c_str());
        // What a job killed now would keep (--resume continues from it).
        if (const uint64_t saved = p.checkpoint_column.load())
            return std::string(line) + ", checkpoint at column " +
                   human(static_cast<double>(saved));
        return std::string(line);
    };
}

bool progress_wanted(bool progress_flag, bool quiet_flag) {
    if (quiet_flag) return false;
    return progress_flag || ::isatty(STDERR_FILENO);
}

namespace {

// value in the largest unit (base^i) that keeps it at least 1, with that unit's suffix.
std::string scaled(double value, double base, const char* const* suffix, int units) {
    int i = 0;
    while (value >= base && i + 1 < units) {
        value /= base;
        ++i;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, i ? "%.2f%s" : "%.0f%s", value, suffix[i]);
    return buf;
}

}  // namespace

std::string human(double value) {
    static const char* const suffix[] = {"", " k", " M", " G", " T", " P"};
    return scaled(value, 1000.0, suffix, 6);
}

std::string human_bytes(double bytes) {
    static const char* const suffix[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
    return scaled(bytes, 1024.0, suffix, 7);
}

std::string human_seconds(double s) {
    char text[32];
    if (s < 120)
        std::snprintf(text, sizeof text, "%.0f s", s);
    else if (s < 7200)
        std::snprintf(text, sizeof text, "%.0f min", s / 60);
    else
        std::snprintf(text, sizeof text, "%.1f h", s / 3600);
    return text;
}

}  // namespace grundy::app
