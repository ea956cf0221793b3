// The threads that serve `grundy view`'s connections, one connection each (cpp-httplib's task
// queue). cpp-httplib's own pool has a fixed 8 threads, so 8 idle connections stalled every
// other request; this one starts a thread whenever none is free, up to a bound, so that idle
// connections cost a thread each (for at most ConnectionLimits::request_deadline) and never
// a wait. Threads once started stay until shutdown: as many as the most connections ever
// served at once.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace grundy::view {

class ConnectionThreads final : public httplib::TaskQueue {
  public:
    explicit ConnectionThreads(size_t max_threads);
    ~ConnectionThreads() override;

    void enqueue(std::function<void()> job) override;
    // Runs the jobs still queued, then joins every thread.
    void shutdown() override;

    size_t threads() const;

  private:
    void work();

    const size_t max_threads_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> jobs_;
    std::vector<std::thread> threads_;
    size_t idle_ = 0;  // threads waiting for a job
    bool shutting_down_ = false;
};

}  // namespace grundy::view
