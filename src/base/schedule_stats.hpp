// ScheduleStats: what the workers of a wavefront schedule did, for checking the scaling model
// (scripts/scaling_model.py, docs/benchmarks.md "Scaling beyond 2 cores") on a real run. With
// GRUNDY_SCHEDULE_STATS set in the environment, the table's and the strip's schedules time each
// task and each parallel region, and at exit one line per schedule goes to stderr: the tasks,
// their mean time, and the share of the regions' thread-seconds spent in tasks (the rest is
// waiting for a ready task, handing tasks over, and a block's start and end), and the tasks' own
// CPU time, and of that the sweep's own (the table's: the cells, without handing the tile to its
// sink), which tells what writing a tile costs its worker from what it costs the sweeps beside
// it. Off, a task costs one test of a flag read once at start.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace grundy {

class ScheduleStats {
  public:
    explicit ScheduleStats(const char* name) : name_(name) {}
    ~ScheduleStats();  // prints the line, when on and anything was timed
    ScheduleStats(const ScheduleStats&) = delete;
    ScheduleStats& operator=(const ScheduleStats&) = delete;

    static bool on() { return on_; }
    // A moment: the wall clock and this thread's CPU time (which a busy machine's other
    // processes do not inflate).
    struct Stamp {
        std::chrono::steady_clock::time_point wall;
        int64_t cpu_ns = 0;
    };
    static Stamp now();
    // Stamps only when on: a zero stamp otherwise.
    static Stamp now_if_on() { return on_ ? now() : Stamp{}; }
    void task(const Stamp& start);
    void sweep(const Stamp& start);  // a part of a task: the cells' sweep
    void region(const Stamp& start, int team);

  private:
    static const bool on_;
    const char* name_;
    std::atomic<uint64_t> tasks_{0}, task_ns_{0}, task_cpu_ns_{0}, sweep_ns_{0}, sweep_cpu_ns_{0},
        regions_{0}, region_thread_ns_{0};
};

// One for each schedule, alive for the whole process.
ScheduleStats& table_schedule_stats();
ScheduleStats& strip_schedule_stats();

}  // namespace grundy
