#include "view/viewer_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "grundy/error.hpp"
#include "view/connection_stream.hpp"
#include "view/connection_threads.hpp"

namespace grundy::view {

ViewerServer::ViewerServer(const ConnectionLimits& limits) : limits_(limits) {
    const size_t max_threads = limits_.max_threads;
    new_task_queue = [max_threads] { return new ConnectionThreads(max_threads); };
    // cpp-httplib's default adds SO_REUSEPORT, with which a second server binds the same port
    // and the kernel deals the connections out between the two. SO_REUSEADDR alone still lets
    // a restarted viewer bind while the last one's connections are in TIME_WAIT.
    set_socket_options([this](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        listening_ = sock;  // the last one tried is the one bound, when binding succeeds
    });
}

int ViewerServer::bind(const std::string& host, int port) {
    errno = 0;
    const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
    if (bound >= 0) {
        // cpp-httplib listens with a backlog of 5: connections beyond it while the accepting
        // thread waits for a core have their SYN dropped and retried a second later. Listening
        // again on the bound socket only raises the backlog.
        ::listen(listening_, SOMAXCONN);
        return bound;
    }
    if (errno == EADDRINUSE)
        throw Error("port " + std::to_string(port) +
                    " is in use by another program (--port 0 picks a free one)");
    throw Error("cannot listen on " + host + ":" + std::to_string(port) +
                " (an address of this machine? --port 0 picks a free port)");
}

void ViewerServer::stop_all() {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    stop();
    for (const int fd : open_) ::shutdown(fd, SHUT_RDWR);
}

bool ViewerServer::open(int fd) {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    open_.insert(fd);
    return true;
}

void ViewerServer::close(int fd) {
    {
        std::lock_guard lock(mutex_);
        open_.erase(fd);
    }
    // Out of open_ first: once closed, the number may be another connection's.
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
}

// Replaces cpp-httplib's loop of keep-alive requests, whose reads wait read_timeout for each
// byte, by one request read within the limits as a whole.
bool ViewerServer::process_and_close_socket(socket_t sock) {
    const auto accepted = ConnectionStream::Clock::now();
    bool served = false;
    if (open(sock)) {
        try {
            ConnectionStream stream(sock, limits_, accepted);
            bool closed_by_client = false;
            served = process_request(stream, true, closed_by_client, nullptr);
        } catch (...) {
            // Nothing here may end the server: the connection is dropped.
        }
    }
    close(sock);
    return served;
}

}  // namespace grundy::view
