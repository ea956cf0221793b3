#include "base/background_sync.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace grundy::base {

BackgroundSync::BackgroundSync(const std::string& path, uint64_t step_bytes, Flush flush)
    : step_(step_bytes == 0 ? 1 : step_bytes), flush_(flush ? flush : ::fdatasync) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

BackgroundSync::~BackgroundSync() {
    finish();
}

void BackgroundSync::wrote(uint64_t bytes) {
    if (fd_ < 0) return;
    since_ += bytes;
    if (since_ < step_) return;
    since_ = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        asked_ = true;
        // Started on the first request: a short run, or a file written in one step, never
        // pays for a thread.
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    wake_.notify_one();
}

void BackgroundSync::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return asked_ || stopping_; });
        if (!asked_) return;
        asked_ = false;
        lock.unlock();
        int rc;
        do rc = flush_(fd_);
        while (rc != 0 && errno == EINTR);
        // EINVAL: the file cannot be synced at all, which the final fsync reports itself.
        const int err = rc == 0 || errno == EINVAL ? 0 : errno;
        lock.lock();
        ++flushes_;
        if (err != 0 && error_ == 0) error_ = err;
    }
}

int BackgroundSync::finish() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        asked_ = false;  // what is left is the caller's final fsync
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

uint64_t BackgroundSync::flushes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return flushes_;
}

}  // namespace grundy::base
