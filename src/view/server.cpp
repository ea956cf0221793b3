#include "view/server.hpp"

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "grundy/error.hpp"
#include "view/routes.hpp"
#include "view/viewer_server.hpp"

namespace grundy::view {
namespace {

namespace fs = std::filesystem;

// The files of Leaflet the page uses; fixed names, never taken from a request.
constexpr const char* kLeafletNames[] = {"leaflet.js",
                                         "leaflet.css",
                                         "images/layers.png",
                                         "images/layers-2x.png",
                                         "images/marker-icon.png",
                                         "images/marker-icon-2x.png",
                                         "images/marker-shadow.png"};

bool read_whole(const fs::path& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return static_cast<bool>(in) || in.eof();
}

fs::path program_folder() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

}  // namespace

LeafletFiles load_leaflet(const std::string& folder) {
    std::vector<fs::path> places;
    if (!folder.empty()) {
        places.push_back(folder);
    } else {
        const fs::path here = program_folder();
        if (!here.empty()) places.push_back(here.parent_path() / "share" / "grundy" / "leaflet");
        places.push_back(GRUNDY_LEAFLET_DIR);
    }
    for (const fs::path& place : places) {
        LeafletFiles files;
        if (!read_whole(place / "leaflet.js", files["leaflet.js"]) ||
            !read_whole(place / "leaflet.css", files["leaflet.css"]))
            continue;
        for (const char* name : kLeafletNames) {
            std::string bytes;
            if (read_whole(place / name, bytes)) files[name] = std::move(bytes);
        }
        return files;
    }
    throw Error("Leaflet not found in " + places.back().string() +
                " (Debian: apt-get install libjs-leaflet)");
}

namespace {

using httplib::Request;
using httplib::Response;

void answer_exceptions_500(httplib::Server& server) {
    server.set_exception_handler([](const Request&, Response& res, std::exception_ptr ep) {
        std::string why = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception& e) {
            why = e.what();
        } catch (...) {
        }
        reply_error(res, 500, why);
    });
}

}  // namespace

void serve(TileSource& source, const LeafletFiles& leaflet, const ServerOptions& options,
           const std::atomic<bool>& stop, const std::function<void(int port)>& listening) {
    ViewerServer server;
    server.set_payload_max_length(4096);
    // The token may be in the page's URL: no other site learns it from a Referer header.
    server.set_default_headers({{"Referrer-Policy", "no-referrer"}});
    std::string cookie;  // named after the port, known once bound
    add_routes(server, source, leaflet, options, cookie);
    answer_exceptions_500(server);

    const int port = server.bind(options.bind, options.port);
    cookie = "grundy-view-" + std::to_string(port);
    listening(port);
    std::atomic<bool> ended{false};
    std::thread watcher([&] {
        while (!stop.load() && !ended.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        // cpp-httplib's stop() does nothing until listen_after_bind has marked the server
        // running: a signal just after the bind was lost, and the viewer served on for ever.
        while (!ended.load() && !server.is_running())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server.stop_all();
    });
    server.listen_after_bind();
    ended.store(true);
    watcher.join();
}

}  // namespace grundy::view
