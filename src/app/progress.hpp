// ProgressReporter: the one progress printer of the CLI. A background thread builds a status
// line four times a second while a long computation runs: "[ 42.0%] ... cells/s, ETA" from a
// counter the workers bump, or any line built from a computation's own progress record
// (periods_line: `grundy periods`' phases, settled rows and ETA). At a terminal the line is
// redrawn in place on stderr; anywhere else (a batch job's log, a file, a pipe) it is written as
// a line of its own with the time, every few seconds and once at the end (ProgressStyle).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/human_units.hpp"
#include "grundy/periods.hpp"

namespace grundy::app {

// How the line is shown. Redrawn in place, a log of days would hold a third of a million copies
// of it and no time at all; so where nobody watches, one line every `every` seconds, each
// beginning with the time (UTC, ISO 8601), which is what a job's log is read for afterwards:
// when the run got where, and how good its ETA was (scripts/eta_check.py).
struct ProgressStyle {
    bool redraw = true;  // in place, four times a second
    double every = 0;    // else: seconds between lines (the first at once, a last at the end)
};
// Redraw at a terminal (stderr), else a line every `log_every` seconds.
ProgressStyle progress_style(double log_every);

class ProgressReporter {
  public:
    // The status line after `seconds` since the start.
    using LineFn = std::function<std::string(double seconds)>;
    // Shows nothing unless `enabled`. `total` is the number of units (cells) expected.
    ProgressReporter(bool enabled, ProgressStyle style, uint64_t total, std::string unit = "cells");
    // Shows line(seconds) (nothing unless `enabled`); counter() is then unused.
    ProgressReporter(bool enabled, ProgressStyle style, LineFn line);
    ~ProgressReporter();  // stops and clears the line
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;

    std::atomic<uint64_t>& counter() { return done_; }
    void stop();

  private:
    void loop();
    void print(bool last);
    std::string counter_line(double seconds) const;

    bool enabled_;
    ProgressStyle style_;
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
    double next_log_ = 0;  // seconds since the start when the next log line is due
};

// The line of a certification (grundy periods): phase 1's columns, speed, settled rows and the
// certificate's expected column with an ETA; phase 2's share of its columns. `rows`: the strip's.
ProgressReporter::LineFn periods_line(const PeriodsProgress& progress, uint64_t rows);

// Whether progress is shown: --progress forces it, --quiet hides it, else only on a terminal.
bool progress_wanted(bool progress_flag, bool quiet_flag);

// Numbers for humans ("1.23 G", "1.50 GiB", "12 min"), the library's.
using base::human;
using base::human_bytes;
using base::human_seconds;

}  // namespace grundy::app
