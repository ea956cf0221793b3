// ProgressReporter: the one progress printer of the CLI. A background thread redraws a status
// line on stderr four times a second while a long computation runs: "[ 42.0%] ... cells/s, ETA"
// from a counter the workers bump, or any line built from a computation's own progress record
// (periods_line: `grundy periods`' phases, settled rows and ETA).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "grundy/periods.hpp"

namespace grundy::app {

class ProgressReporter {
  public:
    // The status line after `seconds` since the start.
    using LineFn = std::function<std::string(double seconds)>;
    // Shows nothing unless `enabled`. `total` is the number of units (cells) expected.
    ProgressReporter(bool enabled, uint64_t total, std::string unit = "cells");
    // Shows line(seconds) (nothing unless `enabled`); counter() is then unused.
    ProgressReporter(bool enabled, LineFn line);
    ~ProgressReporter();  // stops and clears the line
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;

    std::atomic<uint64_t>& counter() { return done_; }
    void stop();

  private:
    void loop();
    void print();
    std::string counter_line(double seconds) const;

    bool enabled_;
    uint64_t total_ = 0;
    std::string unit_;
    LineFn line_;
    std::atomic<uint64_t> done_{0};
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    size_t last_width_ = 0;
};

// The line of a certification (grundy periods): phase 1's columns, speed, settled rows and the
// certificate's expected column with an ETA; phase 2's share of its columns.
ProgressReporter::LineFn periods_line(const PeriodsProgress& progress);

// Whether progress is shown: --progress forces it, --quiet hides it, else only on a terminal.
bool progress_wanted(bool progress_flag, bool quiet_flag);

// "1.23 G", "456.0 M": numbers for humans.
std::string human(double value);
std::string human_bytes(double bytes);
// "45 s", "12 min", "3.4 h".
std::string human_seconds(double seconds);

}  // namespace grundy::app
