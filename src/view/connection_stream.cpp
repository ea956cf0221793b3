#include "view/connection_stream.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace grundy::view {
namespace {

constexpr char kTooLarge[] =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
    "Content-Type: text/plain\r\nContent-Length: 34\r\n\r\nrequest headers too long or many\r\n";

void address_text(const sockaddr_storage& a, std::string& ip, int& port) {
    char text[INET6_ADDRSTRLEN] = "";
    if (a.ss_family == AF_INET) {
        const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
        ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
        port = ntohs(v4.sin_port);
    } else if (a.ss_family == AF_INET6) {
        const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
        ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
        port = ntohs(v6.sin6_port);
    }
    ip = text;
}

}  // namespace

ConnectionStream::ConnectionStream(int fd, const ConnectionLimits& limits,
                                   Clock::time_point accepted)
    : fd_(fd), limits_(limits), deadline_(accepted + limits.request_deadline) {}

int ConnectionStream::ms_to_deadline() const {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, left));
}

// Waits for `events` on the socket; false on timeout, on an error, or once it is shut down
// for reading when reading is asked (poll reports that as readable: recv then returns 0).
bool ConnectionStream::wait_for(short events, int timeout_ms) const {
    const auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        pollfd p{fd_, events, 0};
        const int n = ::poll(&p, 1, timeout_ms);
        if (n > 0) return (p.revents & (events | POLLHUP)) != 0 && !(p.revents & POLLNVAL);
        if (n == 0 || errno != EINTR) return false;
        // A signal (the stop handler may run on this thread): wait for what is left.
        timeout_ms = static_cast<int>(std::max<long long>(
            0,
            std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count()));
    }
}

bool ConnectionStream::is_readable() const {
    return !refused_ && (begin_ < end_ || wait_for(POLLIN, ms_to_deadline()));
}

bool ConnectionStream::is_writable() const {
    return !refused_ && wait_for(POLLOUT, static_cast<int>(limits_.write_timeout.count()));
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
    if (refused_) return -1;
    if (begin_ == end_) {
        if (!wait_for(POLLIN, ms_to_deadline())) return -1;
        ssize_t n;
        do n = ::recv(fd_, buffer_, sizeof buffer_, 0);
        while (n < 0 && errno == EINTR);
        if (n <= 0) return n;
        begin_ = 0;
        end_ = static_cast<size_t>(n);
        received_ += end_;
        lines_ += static_cast<size_t>(std::count(buffer_, buffer_ + end_, '\n'));
        if (received_ > limits_.max_request_bytes || lines_ > limits_.max_request_lines) {
            refuse();
            return -1;
        }
    }
    const size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
    if (refused_ || !is_writable()) return -1;
    ssize_t n;
    do n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
}

void ConnectionStream::refuse() {
    (void)is_writable();
    const ssize_t ignored = ::send(fd_, kTooLarge, sizeof kTooLarge - 1, MSG_NOSIGNAL);
    (void)ignored;
    refused_ = true;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &n) == 0) address_text(a, ip, port);
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n) == 0) address_text(a, ip, port);
}

}  // namespace grundy::view
