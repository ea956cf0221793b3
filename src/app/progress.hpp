// ProgressReporter: one background thread that prints "\r[ 42.0%] ... cells/s, ETA" on stderr
// at most four times a second while a long computation runs; the workers only bump a counter.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace grundy::app {

class ProgressReporter {
  public:
    // Shows nothing unless `enabled`. `total` is the number of units (cells) expected.
    ProgressReporter(bool enabled, uint64_t total, std::string unit = "cells");
    ~ProgressReporter();  // stops and clears the line
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;

    std::atomic<uint64_t>& counter() { return done_; }
    void stop();

  private:
    void loop();
    void print(bool final);

    bool enabled_;
    uint64_t total_;
    std::string unit_;
    std::atomic<uint64_t> done_{0};
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    size_t last_width_ = 0;
};

// Whether progress is shown: --progress forces it, --quiet hides it, else only on a terminal.
bool progress_wanted(bool progress_flag, bool quiet_flag);

// "1.23 G", "456.0 M": numbers for humans.
std::string human(double value);
std::string human_bytes(double bytes);

}  // namespace grundy::app
