#include "view/connection_threads.hpp"

#include <system_error>

namespace grundy::view {

ConnectionThreads::ConnectionThreads(size_t max_threads)
    : max_threads_(max_threads < 1 ? 1 : max_threads) {
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this] { work(); });
}

ConnectionThreads::~ConnectionThreads() {
    shutdown();
}

void ConnectionThreads::enqueue(std::function<void()> job) {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    // Waiting threads not yet woken by earlier jobs count as taken.
    if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
        try {
            threads_.emplace_back([this] { work(); });
        } catch (const std::system_error&) {
            // No more threads from the system: the job waits for one of those running.
        }
    }
    ready_.notify_one();
}

void ConnectionThreads::shutdown() {
    std::vector<std::thread> joining;
    {
        std::lock_guard lock(mutex_);
        shutting_down_ = true;
        joining.swap(threads_);
    }
    ready_.notify_all();
    for (std::thread& t : joining) t.join();
}

size_t ConnectionThreads::threads() const {
    std::lock_guard lock(mutex_);
    return threads_.size();
}

void ConnectionThreads::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        ready_.wait(lock, [this] { return !jobs_.empty() || shutting_down_; });
        --idle_;
        if (jobs_.empty()) return;  // shutting down, nothing left
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        lock.lock();
    }
}

}  // namespace grundy::view
