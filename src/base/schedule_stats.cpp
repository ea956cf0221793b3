#include "base/schedule_stats.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace grundy {

const bool ScheduleStats::on_ = std::getenv("GRUNDY_SCHEDULE_STATS") != nullptr;

ScheduleStats::Stamp ScheduleStats::now() {
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    return {std::chrono::steady_clock::now(), int64_t{cpu.tv_sec} * 1000000000 + cpu.tv_nsec};
}

namespace {
uint64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
}

// Adds the wall and CPU time since `start` to two totals.
void add_since(const ScheduleStats::Stamp& start, std::atomic<uint64_t>& wall_ns,
               std::atomic<uint64_t>& cpu_ns) {
    const int64_t cpu = ScheduleStats::now().cpu_ns - start.cpu_ns;
    wall_ns.fetch_add(nanoseconds_since(start.wall), std::memory_order_relaxed);
    cpu_ns.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, cpu)), std::memory_order_relaxed);
}
}  // namespace

void ScheduleStats::task(const Stamp& start) {
    tasks_.fetch_add(1, std::memory_order_relaxed);
    add_since(start, task_ns_, task_cpu_ns_);
}

void ScheduleStats::sweep(const Stamp& start) {
    add_since(start, sweep_ns_, sweep_cpu_ns_);
}

void ScheduleStats::region(const Stamp& start, int team) {
    regions_.fetch_add(1, std::memory_order_relaxed);
    region_thread_ns_.fetch_add(nanoseconds_since(start.wall) * static_cast<uint64_t>(team),
                                std::memory_order_relaxed);
}

ScheduleStats::~ScheduleStats() {
    const uint64_t tasks = tasks_.load(), region = region_thread_ns_.load();
    if (!on_ || tasks == 0) return;
    const double busy = static_cast<double>(task_ns_.load()) * 1e-9;
    const double held = static_cast<double>(region) * 1e-9;
    const double cpu = static_cast<double>(task_cpu_ns_.load()) * 1e-9;
    std::fprintf(stderr,
                 "schedule %s: %llu tasks of %.1f us on average (%.1f us of CPU); busy %.3f s "
                 "of %.3f thread-seconds in %llu parallel regions (%.1f%%)\n",
                 name_, static_cast<unsigned long long>(tasks),
                 busy * 1e6 / static_cast<double>(tasks), cpu * 1e6 / static_cast<double>(tasks),
                 busy, held, static_cast<unsigned long long>(regions_.load()),
                 held > 0 ? 100 * busy / held : 0.0);
    if (sweep_ns_.load() == 0) return;
    std::fprintf(stderr, "schedule %s sweep: %.1f us of a task on average (%.1f us of CPU)\n",
                 name_, static_cast<double>(sweep_ns_.load()) * 1e-3 / static_cast<double>(tasks),
                 static_cast<double>(sweep_cpu_ns_.load()) * 1e-3 / static_cast<double>(tasks));
}

// Function-local statics: constructed at first use, destroyed (and printed) at exit.
ScheduleStats& table_schedule_stats() {
    static ScheduleStats s("table");
    return s;
}
ScheduleStats& strip_schedule_stats() {
    static ScheduleStats s("strip");
    return s;
}

}  // namespace grundy
