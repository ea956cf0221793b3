// cpp-httplib's server with the connection handling `grundy view` needs on a shared node: each
// connection gets its own thread (ConnectionThreads), one request, read within the limits of
// ConnectionLimits (ConnectionStream); the port is never shared (no SO_REUSEPORT); and a stop
// also ends the connections in progress, so that a SIGTERM is not held by idle clients.
#pragma once

#include <httplib.h>

#include <mutex>
#include <set>
#include <string>

#include "view/connection_limits.hpp"

namespace grundy::view {

class ViewerServer final : public httplib::Server {
  public:
    explicit ViewerServer(const ConnectionLimits& limits = {});

    // Binds `host`:`port` (0: any free port) and returns the port; throws grundy::Error with
    // one line (the port in use, or the address not this machine's) when it cannot.
    int bind(const std::string& host, int port);

    // Stops listening and shuts down every connection open now or accepted later.
    void stop_all();

  private:
    bool process_and_close_socket(socket_t sock) override;
    bool open(int fd);
    void close(int fd);

    ConnectionLimits limits_;
    int listening_ = -1;  // the listening socket, seen through the socket options' hook
    std::mutex mutex_;
    std::set<int> open_;  // sockets being served; closed only after leaving this set
    bool stopping_ = false;
};

}  // namespace grundy::view
