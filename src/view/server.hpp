// The HTTP side of `grundy view` (cpp-httplib): a fixed set of routes, so that no part of a
// request ever reaches the file system as a path:
//   /  /view.js  /view.css            the page (compiled in: view/assets.hpp)
//   /leaflet/...                      Leaflet's files, read once at start (LeafletFiles)
//   /info                             the table's shape, zooms and what the file holds (JSON)
//   /tile/C/Z/X/Y.png?k=K&up=U         a tile: colouring C, zoom Z, tile X, Y (integers)
//   /value?x=X&y=Y                    one cell, and its row's period (JSON)
//   /periods                          every row's preperiod and period (JSON)
// Anything else, or numbers out of range, is answered 4xx. Every route asks for the token
// (view/access_token.hpp) unless the options say none; without it the answer is 403.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "view/access_token.hpp"
#include "view/tile_source.hpp"

namespace grundy::view {

// Leaflet's files by the name the page asks for ("leaflet.js", "images/layers.png", ...).
using LeafletFiles = std::map<std::string, std::string>;

// Reads Leaflet from `folder` (Debian's libjs-leaflet: /usr/share/javascript/leaflet) or, when
// the folder is empty, from the places the program looks: share/grundy/leaflet beside the
// program's folder, then Debian's. Throws grundy::Error naming the package when it is missing.
LeafletFiles load_leaflet(const std::string& folder = "");

struct ServerOptions {
    std::string bind = "127.0.0.1";
    int port = 8080;  // 0: any free port
    std::string title;
    AccessToken token = AccessToken::none();
};

// Serves until `stop` becomes true (polled every 50 ms). `listening` is called with the port
// once the socket is bound. Throws grundy::Error when the address cannot be bound (a port in
// use by any program included: the port is never shared).
void serve(TileSource& source, const LeafletFiles& leaflet, const ServerOptions& options,
           const std::atomic<bool>& stop, const std::function<void(int port)>& listening);

}  // namespace grundy::view
