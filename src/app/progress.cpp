#include "app/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace grundy::app {

ProgressReporter::ProgressReporter(bool enabled, uint64_t total, std::string unit)
    : enabled_(enabled),
      total_(total),
      unit_(std::move(unit)),
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
    if (enabled_ && last_width_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(last_width_), "");
}

void ProgressReporter::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; }))
        print(false);
}

void ProgressReporter::print(bool /*final*/) {
    const uint64_t done = done_.load(std::memory_order_relaxed);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
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
    const int n = std::snprintf(line, sizeof line, "\r[%5.1f%%] %s %s, %s %s/s, ETA %s", percent,
                                human(static_cast<double>(done)).c_str(), unit_.c_str(),
                                human(rate).c_str(), unit_.c_str(), eta);
    std::fputs(line, stderr);
    std::fflush(stderr);
    last_width_ = n > 0 ? static_cast<size_t>(n) : 0;
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

}  // namespace grundy::app
