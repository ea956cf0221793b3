// Flushing a file to disk while it is still being written, on a thread of its own.
//
// What a final fsync waits for grows with what was written since the last one: the page
// cache's dirty pages and, for direct writes too, the disk's (or the host's) write cache, which
// only a flush makes durable. On a virtual machine that flush was 0.3-0.5 s after the 306 MiB of
// a 16384^2 table, paid at the end of the run with both cores idle. A BackgroundSync runs
// fdatasync now and then while the run goes on, so the final fsync finds little left.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace grundy::base {

class BackgroundSync {
  public:
    // How a flush is made: ::fdatasync, or a test's stand-in (0, else -1 with errno set).
    using Flush = int (*)(int fd);

    // Opens PATH (which exists) for the flushes. Where it cannot be opened, does nothing: the
    // final fsync is the guarantee, this only shortens it.
    BackgroundSync(const std::string& path, uint64_t step_bytes, Flush flush = nullptr);
    ~BackgroundSync();
    BackgroundSync(const BackgroundSync&) = delete;
    BackgroundSync& operator=(const BackgroundSync&) = delete;

    // Counts bytes written; every step_bytes, asks the thread for a flush. Never waits: a flush
    // asked for while one runs is done after it, once.
    void wrote(uint64_t bytes);

    // Waits for the flush in progress, stops the thread and returns the first error a flush
    // met (an errno; 0 for none). The caller's final fsync must not be trusted alone when this
    // is not 0: Linux reports a write-back error once per open file, and a flush here may be
    // the one that saw it.
    int finish();

    uint64_t flushes() const;  // flushes done (tests)

  private:
    void loop();
    int fd_ = -1;
    uint64_t step_;
    Flush flush_;
    uint64_t since_ = 0;  // bytes counted since the last request
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool asked_ = false, stopping_ = false;
    int error_ = 0;
    uint64_t flushes_ = 0;
    std::thread thread_;
};

}  // namespace grundy::base
