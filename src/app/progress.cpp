#include "app/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace grundy::app {

ProgressReporter::ProgressReporter(bool enabled, uint64_t total, std::string unit)
    : enabled_(enabled),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()) {
    line_ = [this](double seconds) { return counter_line(seconds); };
    if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressReporter::ProgressReporter(bool enabled, LineFn line)
    : enabled_(enabled), line_(std::move(line)), start_(std::chrono::steady_clock::now()) {
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
    if (enabled_ && last_width_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(last_width_), "");
}

void ProgressReporter::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; }))
        print();
}

// Redraws the line, blanking what is left of a longer one before it.
void ProgressReporter::print() {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = line_(seconds);
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

ProgressReporter::LineFn periods_line(const PeriodsProgress& p) {
    // The speed is measured from the first line (a resumed run starts at its checkpoint's column).
    struct Start {
        double time = -1;
        uint64_t column = 0;
    };
    return [&p, start = Start{}](double t) mutable {
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
        if (start.time < 0) start = {t, col};
        const double rate =
            t > start.time ? static_cast<double>(col - start.column) / (t - start.time) : 0.0;
        const uint64_t expected = p.expected_x0.load(), settled = p.settled_rows.load();
        std::string eta = "unknown";
        if (expected > col && rate > 0)
            eta = human_seconds(static_cast<double>(expected - col) / rate);
        std::snprintf(line, sizeof line,
                      "phase 1/2: column %s (%s col/s), rows 0..%llu settled, certificate "
                      "expected near column %s, ETA %s",
                      human(static_cast<double>(col)).c_str(), human(rate).c_str(),
                      static_cast<unsigned long long>(settled ? settled - 1 : 0),
                      expected ? human(static_cast<double>(expected)).c_str() : "?", eta.c_str());
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
