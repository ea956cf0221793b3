#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "grundy/error.hpp"

namespace grundy::base {

AtomicFile::AtomicFile(std::string path, std::string what)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), what_(std::move(what)) {
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("write", errno);
}

AtomicFile::~AtomicFile() {
    if (committed_) return;
    if (fd_ >= 0) ::close(fd_);
    std::remove(tmp_.c_str());
}

void AtomicFile::fail(const std::string& verb, int err) {
    throw Error("cannot " + verb + " " + (what_.empty() ? path_ : what_ + " " + tmp_) + ": " +
                std::strerror(err));
}

void AtomicFile::write(const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < bytes) {
        const ssize_t k = ::write(fd_, p + done, std::min<size_t>(bytes - done, size_t{1} << 30));
        if (k < 0 && errno == EINTR) continue;  // a stop signal may arrive while we write
        if (k <= 0) fail("write", k < 0 ? errno : ENOSPC);
        done += static_cast<size_t>(k);
    }
}

void AtomicFile::commit() {
    const int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        fail("flush", err);
    }
    if (::close(fd) != 0) fail("flush", errno);
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        throw Error("cannot rename " + tmp_ + " to " + path_ + ": " + std::strerror(errno));
    committed_ = true;
    // The rename itself must reach the disk too.
    namespace fs = std::filesystem;
    const fs::path parent = fs::path(path_).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace grundy::base
