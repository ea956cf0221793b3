// The routes of `grundy view` (the list is in server.hpp), apart from the socket: what a request
// is answered, given the table. The server registers them and listens; the fuzz harness
// (tests/fuzz/fuzz_http.cpp) hands them requests as bytes, without a socket.
#pragma once

#include <httplib.h>

#include <string>

#include "view/server.hpp"
#include "view/tile_source.hpp"

namespace grundy::view {

// Answers `status` with `why` as one line of text.
void reply_error(httplib::Response& res, int status, const std::string& why);

// Registers every route on `server`, behind the token check of `options` (its cookie named
// `cookie`, which the caller may set once the port is bound). `source`, `leaflet`, `options`
// and `cookie` must outlive the server.
void add_routes(httplib::Server& server, TileSource& source, const LeafletFiles& leaflet,
                const ServerOptions& options, const std::string& cookie);

}  // namespace grundy::view
