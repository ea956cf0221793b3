// grundy view: a browser explorer of one stored table (src/view does the work).
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "app/command.hpp"
#include "app/options.hpp"
#include "app/signals.hpp"
#include "grundy/error.hpp"
#include "view/server.hpp"
#include "view/tile_source.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>& positional) {
    o.add_options()("file", po::value<std::string>()->required(),
                    "the table (HDF5, from grundy compute)")(
        "port", po::value<std::string>()->default_value("8080"),
        "the port to serve on (0: any free port)")(
        "bind", po::value<std::string>()->default_value("127.0.0.1"),
        "the address to serve on (127.0.0.1: this machine only)")(
        "cache", po::value<std::string>(),
        "the decoded chunks kept in memory, at most this many bytes (default 256MiB; 8e9, 8G, "
        "8GiB, 2^33)")("cache-mib", po::value<std::string>(),
                       "the same in MiB (the older spelling of --cache)")(
        "allow-incomplete", po::bool_switch(), "show a file whose 'complete' is not 1")(
        "token", po::value<std::string>(),
        "the token the page asks for (by default a random one, printed in the URL)")(
        "no-token", po::bool_switch(),
        "ask for no token: anyone who can connect to the port can read the table")(
        "test-pause-after-bands", po::value<std::string>(),
        "testing aid: once this many bands of rows of a pyramid being built are read, the "
        "process stops itself (SIGSTOP) until it is continued or signalled");
    add_max_memory_option(o);
    positional = {"file"};
}

void say(const std::string& line) {
    std::cerr << "grundy view: " << line << std::endl;
}

view::AccessToken access_token(const po::variables_map& v) {
    if (v["no-token"].as<bool>()) {
        if (v.count("token")) throw Error("--token and --no-token exclude each other");
        return view::AccessToken::none();
    }
    if (v.count("token")) return view::AccessToken::chosen(v["token"].as<std::string>());
    return view::AccessToken::random();
}

std::string page_url(const std::string& bind, int port, const view::AccessToken& token) {
    const std::string host = bind == "0.0.0.0" ? "localhost" : bind;
    return "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port) + "/" + (token.required() ? "?token=" + token.text() : "");
}

int run(const po::variables_map& v, const Context&) {
    const std::string path = v["file"].as<std::string>();
    const int port = static_cast<int>(count_option(v, "port", 0, 65535));
    view::TileSourceOptions options;
    options.allow_incomplete = v["allow-incomplete"].as<bool>();
    if (v.count("cache") && v.count("cache-mib"))
        throw Error("give --cache or --cache-mib, not both");
    if (v.count("cache")) options.cache_bytes = size_option(v, "cache", 1 << 20, uint64_t{1} << 40);
    if (v.count("cache-mib"))
        options.cache_bytes = count_option(v, "cache-mib", 1, uint64_t{1} << 20) << 20;
    options.budget = budget_option(v);
    view::ServerOptions server;
    server.token = access_token(v);
    const std::atomic<bool>& stop = install_stop_handlers();
    // A signal while the pyramid is built stops the build between two bands of rows. The
    // testing aid stops the whole process at a known band, where a test signals it.
    const uint64_t pause = v.count("test-pause-after-bands")
                               ? count_option(v, "test-pause-after-bands", 1, ~uint64_t{0})
                               : 0;
    options.stop_build = [&stop, pause, bands = uint64_t{0}]() mutable {
        if (pause && bands++ == pause) ::kill(::getpid(), SIGSTOP);
        return stop.load();
    };
    const view::LeafletFiles leaflet = view::load_leaflet();
    view::TileSource source(path, options, say);
    if (source.stopped()) {
        say("stopped by signal " + std::to_string(stop_signal()) +
            " while building the zoomed-out views; nothing saved");
        return 0;
    }
    if (stop.load()) return 0;
    server.bind = v["bind"].as<std::string>();
    server.port = port;
    server.title = std::filesystem::path(path).filename().string();
    view::serve(source, leaflet, server, stop, [&](int bound) {
        std::cout << page_url(server.bind, bound, server.token) << std::endl;
        if (!server.token.required())
            say("--no-token: anyone who can connect to port " + std::to_string(bound) +
                " can read this table");
        std::cerr << "grundy view: " << source.rows() << " x " << source.cols()
                  << " table; zoomed-out views from "
                  << (source.pyramid_origin().empty() ? "the cells" : source.pyramid_origin())
                  << "; Ctrl-C to stop" << std::endl;
    });
    return 0;
}

const CommandRegistrar registrar(
    {"view", "explore a stored table in a web browser (a local web server)",
     "F.h5 [--port N] [--bind ADDR] [--cache SIZE] [--max-memory SIZE] [--allow-incomplete] "
     "[--token T | --no-token]",
     "Serves a web page that shows the table of F.h5 as a map, from the whole table down to\n"
     "single cells with their values written in them, coloured by g - x + 2y over 3y (at\n"
     "first), by g mod k, by x + y - g, or with the P-positions marked; hovering shows x, y\n"
     "and g (and the row's period where the file holds /analysis/row_periods). Prints the\n"
     "page's URL and serves until Ctrl-C or SIGTERM (exit status 0). Read-only; the page and\n"
     "Leaflet (Debian's libjs-leaflet) come from the program itself, never from the network.\n"
     "By default only this machine can connect (127.0.0.1): from elsewhere use an SSH tunnel\n"
     "(docs/viewer.md). Every user of the machine can connect to 127.0.0.1, so the page asks\n"
     "for a token: a random one (192 bits) in the printed URL, or --token T (16 characters at\n"
     "least); after the first page a cookie carries it. Without it, the answer is 403.\n\n"
     "Memory: the decoded chunks cached, at most --cache (256 MiB by default), plus the\n"
     "zoomed-out views, read from F.h5.pyramid (written by grundy compute) a tile's blocks at\n"
     "a time as tiles are asked for, 64 MiB of them kept. A table without one gets it built on\n"
     "first open (one read of the table), held in memory whole (16 bytes per block of 16 x 16\n"
     "cells and a third more for the coarser levels: about 1/48 of the table as uint32, 85 MiB\n"
     "for 32768 x 32768) and saved beside it when the folder is writable. A cache and pyramid\n"
     "that do not fit in the memory budget (--max-memory, else the least of physical memory,\n"
     "the cgroup limit and RLIMIT_AS) are refused up front (exit status 2).\n"
     "Exit status: 0 stopped by a signal (while building the pyramid too: nothing is saved),\n"
     "2 a missing file, not a table, an incomplete one without --allow-incomplete, a damaged\n"
     "chunk met while building the pyramid, a port in use (by any program), or a bad --token.",
     45, describe, run});

}  // namespace
}  // namespace grundy::app
