// One connection's socket as cpp-httplib reads the request and writes the response, with the
// limits of ConnectionLimits: the whole request within its deadline and size, and each write
// within its timeout. A request over the size or line limit is answered 431 here, and nothing
// more is read or written.
#pragma once

#include <httplib.h>

#include <chrono>

#include "view/connection_limits.hpp"

namespace grundy::view {

class ConnectionStream final : public httplib::Stream {
  public:
    using Clock = std::chrono::steady_clock;
    // `accepted`: when the connection was accepted (the request's deadline runs from there).
    ConnectionStream(int fd, const ConnectionLimits& limits, Clock::time_point accepted);

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char* ptr, size_t size) override;
    ssize_t write(const char* ptr, size_t size) override;
    void get_remote_ip_and_port(std::string& ip, int& port) const override;
    void get_local_ip_and_port(std::string& ip, int& port) const override;
    socket_t socket() const override { return fd_; }

    // Whether the request broke a limit (and was answered 431).
    bool refused() const { return refused_; }

  private:
    bool wait_for(short events, int timeout_ms) const;
    int ms_to_deadline() const;
    void refuse();

    int fd_;
    ConnectionLimits limits_;
    Clock::time_point deadline_;
    char buffer_[4096];
    size_t begin_ = 0, end_ = 0;  // buffer_[begin_, end_): received, not yet read
    size_t received_ = 0, lines_ = 0;
    bool refused_ = false;
};

}  // namespace grundy::view
