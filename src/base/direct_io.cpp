#include "base/direct_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace grundy::base {

size_t write_direct(int fd, const void* data, size_t bytes, uint64_t offset) {
    const auto* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < bytes) {
        const ssize_t k = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
        if (k < 0 && errno == EINTR) continue;  // a stop signal may arrive while we write
        if (k < 0) return done;
        done += static_cast<size_t>(k);
        // Nothing written, or a short write off the alignment: the next direct write would be
        // refused, so the rest goes through the cache.
        if (k == 0 || done % kDirectAlign != 0) {
            errno = EINVAL;
            return done;
        }
    }
    return done;
}

}  // namespace grundy::base
