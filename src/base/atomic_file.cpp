#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/big_memory.hpp"
#include "base/direct_io.hpp"
#include "base/file_sync.hpp"
#include "grundy/error.hpp"

namespace grundy::base {

namespace {
// Direct writes go in blocks of this many bytes (a multiple of every logical block size),
// at offsets that are multiples of it, from two 2 MiB pages where the system gives huge pages:
// few segments a request, where 4 KiB pages were one each (io/direct_writes.cpp).
constexpr size_t kStageBytes = size_t{4} << 20;
// A direct file is flushed on a thread of its own every this many bytes (BackgroundSync), so
// that commit()'s fsync does not wait for gigabytes at once.
constexpr uint64_t kSyncStep = uint64_t{256} << 20;
}  // namespace

AtomicFile::AtomicFile(std::string path, std::string what, bool direct)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), what_(std::move(what)) {
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("write", errno);
    if (!direct) return;
    staged_ = static_cast<char*>(try_huge_alloc(kStageBytes));
    if (!staged_) return;  // buffered writes, as where the file system refuses direct I/O
    direct_fd_ = ::open(tmp_.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (direct_fd_ >= 0) syncer_ = std::make_unique<BackgroundSync>(tmp_, kSyncStep);
}

AtomicFile::~AtomicFile() {
    if (direct_fd_ >= 0) ::close(direct_fd_);
    std::free(staged_);
    if (committed_) return;
    if (fd_ >= 0) ::close(fd_);
    std::remove(tmp_.c_str());
}

void AtomicFile::fail(const std::string& verb, int err) {
    throw Error("cannot " + verb + " " + (what_.empty() ? path_ : what_ + " " + tmp_) + ": " +
                std::strerror(err));
}

void AtomicFile::put(const char* p, size_t bytes) {
    size_t done = 0;
    while (done < bytes) {
        const ssize_t k = ::pwrite(fd_, p + done, std::min<size_t>(bytes - done, size_t{1} << 30),
                                   static_cast<off_t>(offset_));
        if (k < 0 && errno == EINTR) continue;  // a stop signal may arrive while we write
        if (k <= 0) fail("write", k < 0 ? errno : ENOSPC);
        done += static_cast<size_t>(k);
        offset_ += static_cast<uint64_t>(k);
    }
}

void AtomicFile::flush_staged() {
    size_t done = 0;
    if (direct_fd_ >= 0) {
        done = write_direct(direct_fd_, staged_, staged_bytes_, offset_);
        offset_ += done;
        direct_bytes_ += done;
        syncer_->wrote(done);
        if (done < staged_bytes_) {
            if (errno != EINVAL) fail("write", errno);
            ::close(direct_fd_);  // refused, or a short write off the alignment: the cache
            direct_fd_ = -1;
        }
    }
    put(staged_ + done, staged_bytes_ - done);
    staged_bytes_ = 0;
}

void AtomicFile::write(const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (direct_fd_ >= 0 && bytes > 0) {
        const size_t n = std::min(bytes, kStageBytes - staged_bytes_);
        std::memcpy(staged_ + staged_bytes_, p, n);
        staged_bytes_ += n;
        p += n;
        bytes -= n;
        if (staged_bytes_ == kStageBytes) flush_staged();
    }
    put(p, bytes);  // without direct writes, or none asked for
}

void AtomicFile::flush() {
    if (direct_fd_ >= 0) ::close(direct_fd_);
    direct_fd_ = -1;
    put(staged_, staged_bytes_);  // the last partial block, through the cache
    staged_bytes_ = 0;
}

void AtomicFile::commit() {
    flush();
    const int fd = fd_;
    fd_ = -1;
    const int flush_error = syncer_ ? syncer_->finish() : 0;
    if (flush_error != 0) {
        ::close(fd);
        fail("flush", flush_error);
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        fail("flush", err);
    }
    if (::close(fd) != 0) fail("flush", errno);
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        throw Error("cannot rename " + tmp_ + " to " + path_ + ": " + std::strerror(errno));
    committed_ = true;
    sync_folder_of(path_);  // the rename itself must reach the disk too
}

}  // namespace grundy::base
