// What one connection to `grundy view` may take of the server: the limits that keep idle,
// half-open or oversized connections from starving the others (src/view/viewer_server.*).
#pragma once

#include <chrono>
#include <cstddef>

namespace grundy::view {

struct ConnectionLimits {
    // From when a thread takes the connection up (at once, unless max_threads are busy) to the
    // last byte of its request. A browser sends its request
    // within a round trip of connecting, an SSH tunnel's included; a connection that sends
    // nothing, or half a request, gives its thread back after this.
    std::chrono::milliseconds request_deadline{2000};
    // The request line and headers: browsers send under 2 KiB, cookie included, and no route
    // takes a body. Beyond either limit the answer is 431.
    size_t max_request_bytes = 16 << 10;
    size_t max_request_lines = 64;
    // Each write of the response may wait this long for a client that does not read.
    std::chrono::milliseconds write_timeout{5000};
    // Connections served at once, one thread each. An idle connection holds its thread for at
    // most request_deadline, so even with 64 idle ones a request finds a thread at once; beyond
    // this many, connections wait in a queue for one of the threads.
    size_t max_threads = 256;
};

}  // namespace grundy::view
