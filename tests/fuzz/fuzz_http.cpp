// Fuzzes the viewer's routes and their query parsing (src/view/routes.cpp): the input is the
// raw bytes of one HTTP request, handed to the server's request processing through an
// in-memory stream, without a socket. The table is a small one computed at start.
//
// A crash, or an exception reaching the server's handler (which would answer 500), is a
// finding: every bad request must get a 4xx.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "fuzz_support.hpp"
#include "view/routes.hpp"
#include "view/tile_source.hpp"

namespace {

using namespace grundy;

// The request bytes in, the answer out (discarded).
class BytesStream final : public httplib::Stream {
  public:
    BytesStream(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool is_readable() const override { return true; }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, size_t size) override {
        const size_t n = std::min(size, size_ - at_);
        std::memcpy(ptr, data_ + at_, n);
        at_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        ip = "127.0.0.1";
        port = 40000;
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        ip = "127.0.0.1";
        port = 8080;
    }
    socket_t socket() const override { return -1; }

  private:
    const uint8_t* data_;
    size_t size_, at_ = 0;
};

// The server's request processing, which httplib keeps protected, opened to the harness.
class InMemoryServer final : public httplib::Server {
  public:
    void answer(httplib::Stream& stream) {
        bool closed = false;
        process_request(stream, true, closed, nullptr);
    }
};

struct Viewer {
    std::unique_ptr<view::TileSource> source;
    view::LeafletFiles leaflet{{"leaflet.js", "L"}, {"leaflet.css", "C"}};
    view::ServerOptions options;  // no token asked: the routes behind it are what is fuzzed
    std::string cookie = "grundy-view-8080";
    InMemoryServer server;
};

Viewer* viewer = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    viewer = new Viewer;
    view::TileSourceOptions o;
    o.cache_bytes = uint64_t{4} << 20;
    // 300 x 700: several chunks, a pyramid of two levels, zooms -2 to 4.
    viewer->source = std::make_unique<view::TileSource>(fuzz::small_table(300, 700), o);
    viewer->options.title = "fuzz \"table\"";
    view::add_routes(viewer->server, *viewer->source, viewer->leaflet, viewer->options,
                     viewer->cookie);
    viewer->server.set_payload_max_length(4096);
    viewer->server.set_exception_handler(
        [](const httplib::Request& req, httplib::Response&, std::exception_ptr ep) {
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "exception from %s: %s\n", req.path.c_str(), e.what());
            }
            std::abort();
        });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    BytesStream stream(data, size);
    viewer->server.answer(stream);
    return 0;
}
