#include "base/background_removal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "grundy/error.hpp"

namespace grundy::base {

BackgroundRemoval::BackgroundRemoval(const std::string& path) {
    // Read-only and without following a link: only the descriptor's existence matters.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (::unlink(path.c_str()) != 0) {
        const int error = errno;
        if (fd >= 0) ::close(fd);
        throw Error("cannot remove " + path + ": " + std::strerror(error));
    }
    if (fd < 0) return;  // not opened (a link, no read permission): unlink freed the blocks
    try {
        thread_ = std::thread([fd] { ::close(fd); });
    } catch (const std::system_error&) {
        ::close(fd);  // no thread to spare: freed here, as truncation did
    }
}

BackgroundRemoval::~BackgroundRemoval() {
    if (thread_.joinable()) thread_.join();
}

}  // namespace grundy::base
