// The routes of `grundy view` (routes.hpp): the token asked for first, then paths matched by
// fixed patterns, numbers parsed as whole integers in range, everything else answered 4xx.
#include "view/routes.hpp"

#include <charconv>
#include <sstream>
#include <vector>

#include "view/assets.hpp"
#include "view/png_encode.hpp"

namespace grundy::view {
namespace {

using httplib::Request;
using httplib::Response;

const char* content_type(const std::string& name) {
    if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
    if (name.ends_with(".css")) return "text/css; charset=utf-8";
    if (name.ends_with(".png")) return "image/png";
    if (name.ends_with(".html")) return "text/html; charset=utf-8";
    return "application/octet-stream";
}

// A whole decimal integer in [lo, hi]; false for anything else (signs other than a leading
// minus, spaces, overflow).
bool parse_int(const std::string& text, int64_t lo, int64_t hi, int64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && p == end && out >= lo && out <= hi;
}

std::string json_escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out;
}

using httplib::Request;
using httplib::Response;

// Whether the request carries the token: in the query (then a cookie is set, so that the
// page's own requests carry it too) or in that cookie. Answers 403 otherwise, with nothing
// about the table. The cookie's name holds the port: a browser sends a host's cookies to all
// of its ports, so that two viewers on one machine keep their tokens apart.
bool admit(const AccessToken& token, const std::string& cookie, const Request& req, Response& res) {
    if (!token.required()) return true;
    if (req.has_param("token") && token.matches(req.get_param_value("token"))) {
        res.set_header("Set-Cookie",
                       cookie + "=" + token.text() + "; HttpOnly; SameSite=Strict; Path=/");
        return true;
    }
    for (size_t i = 0; i < req.get_header_value_count("Cookie"); ++i)
        if (token.matches(cookie_value(req.get_header_value("Cookie", i), cookie))) return true;
    res.set_header("Cache-Control", "no-store");
    reply_error(res, 403, "forbidden: open the URL that grundy view printed, with its token");
    return false;
}

void add_page_routes(httplib::Server& server, const LeafletFiles& leaflet) {
    for (const Asset& a : assets()) {
        const std::string route = a.name == "index.html" ? "/" : "/" + a.name;
        const Asset* asset = &a;
        server.Get(route, [asset](const Request&, Response& res) {
            res.set_content(asset->bytes, content_type(asset->name));
        });
    }
    for (const auto& [name, bytes] : leaflet) {
        const std::string* body = &bytes;
        const std::string type = content_type(name);
        server.Get("/leaflet/" + name, [body, type](const Request&, Response& res) {
            res.set_header("Cache-Control", "max-age=86400");
            res.set_content(*body, type.c_str());
        });
    }
}

void tile(TileSource& source, const Request& req, Response& res) {
    TileRequest q;
    const std::optional<Colouring> c = parse_colouring(req.matches[1]);
    int64_t z = 0, x = 0, y = 0, k = 5, up = 0;
    if (!c) return reply_error(res, 404, "no such colouring");
    if (!parse_int(req.matches[2], -64, 64, z) ||
        !parse_int(req.matches[3], 0, int64_t{1} << 40, x) ||
        !parse_int(req.matches[4], 0, int64_t{1} << 40, y))
        return reply_error(res, 404, "no such tile");
    if (req.has_param("k") && !parse_int(req.get_param_value("k"), 2, 64, k))
        return reply_error(res, 400, "k must be an integer from 2 to 64");
    if (req.has_param("up") && !parse_int(req.get_param_value("up"), 0, 1, up))
        return reply_error(res, 400, "up must be 0 or 1");
    q.colouring = *c;
    q.k = static_cast<uint32_t>(k);
    q.zoom = static_cast<int>(z);
    q.tx = x;
    q.ty = y;
    q.up = up == 1;
    std::optional<std::string> png = source.tile_png(q);
    if (!png) return reply_error(res, 404, "no such tile");
    res.set_header("Cache-Control", "max-age=3600");
    res.set_content(std::move(*png), "image/png");
}

void legend(const Request& req, Response& res) {
    const std::optional<Colouring> c = parse_colouring(req.matches[1]);
    int64_t k = 5;
    if (!c) return reply_error(res, 404, "no such colouring");
    if (req.has_param("k") && !parse_int(req.get_param_value("k"), 2, 64, k))
        return reply_error(res, 400, "k must be an integer from 2 to 64");
    // The scale from left to right, one pixel per step.
    std::vector<uint8_t> rgb(256 * 3);
    for (int i = 0; i < 256; ++i) {
        const double t = i / 255.0;
        Rgb p;
        switch (*c) {
            case Colouring::Mod:
                p = hue_of(static_cast<uint32_t>(i * k / 256), static_cast<uint32_t>(k));
                break;
            case Colouring::Scaled:
                p = ramp_scaled(t);
                break;
            case Colouring::Diff:
                p = ramp_diff(t);
                break;
            case Colouring::PPos:
                p = Palette{*c, 5, 1}.cell(1, 1, i < 128 ? 1 : 0);
                break;
        }
        rgb[i * 3] = p.r, rgb[i * 3 + 1] = p.g, rgb[i * 3 + 2] = p.b;
    }
    res.set_content(encode_png(rgb.data(), 256, 1), "image/png");
}

void info(const TileSource& source, const std::string& title, Response& res) {
    std::ostringstream j;
    j << "{\"rows\":" << source.rows() << ",\"cols\":" << source.cols()
      << ",\"minZoom\":" << source.min_zoom() << ",\"maxZoom\":" << kMaxZoom
      << ",\"pyramidBase\":" << kPyramidBase << ",\"tileSize\":" << kTileSize
      << ",\"diffMax\":" << source.diff_max()
      << ",\"periods\":" << (source.has_periods() ? "true" : "false") << ",\"title\":\""
      << json_escape(title) << "\"}";
    res.set_content(j.str(), "application/json");
}

void value(TileSource& source, const Request& req, Response& res) {
    int64_t x = 0, y = 0;
    if (!req.has_param("x") || !req.has_param("y") ||
        !parse_int(req.get_param_value("x"), 0, static_cast<int64_t>(source.cols()) - 1, x) ||
        !parse_int(req.get_param_value("y"), 0, static_cast<int64_t>(source.rows()) - 1, y))
        return reply_error(res, 404, "no such cell");
    std::ostringstream j;
    j << "{\"x\":" << x << ",\"y\":" << y
      << ",\"g\":" << source.value(static_cast<uint64_t>(x), static_cast<uint64_t>(y));
    for (const RowPeriod& r : source.row_periods())
        if (r.row == static_cast<uint64_t>(y) && r.periodicity)
            j << ",\"preperiod\":" << r.periodicity->preperiod
              << ",\"period\":" << r.periodicity->period;
    j << "}";
    res.set_content(j.str(), "application/json");
}

void periods(TileSource& source, Response& res) {
    std::ostringstream j;
    j << "[";
    bool first = true;
    for (const RowPeriod& r : source.row_periods()) {
        if (!r.periodicity) continue;
        j << (first ? "" : ",") << "[" << r.row << "," << r.periodicity->preperiod << ","
          << r.periodicity->period << "]";
        first = false;
    }
    j << "]";
    res.set_content(j.str(), "application/json");
}

void add_table_routes(httplib::Server& server, TileSource& source, const std::string& title) {
    server.Get("/info",
               [&source, title](const Request&, Response& res) { info(source, title, res); });
    server.Get(R"(/tile/([a-z]{1,8})/(-?[0-9]{1,4})/([0-9]{1,12})/([0-9]{1,12})\.png)",
               [&source](const Request& req, Response& res) { tile(source, req, res); });
    server.Get(R"(/legend/([a-z]{1,8})\.png)", legend);
    server.Get("/value", [&source](const Request& req, Response& res) { value(source, req, res); });
    server.Get("/periods", [&source](const Request&, Response& res) { periods(source, res); });
}

}  // namespace

void reply_error(httplib::Response& res, int status, const std::string& why) {
    res.status = status;
    res.set_content(why + "\n", "text/plain; charset=utf-8");
}

void add_routes(httplib::Server& server, TileSource& source, const LeafletFiles& leaflet,
                const ServerOptions& options, const std::string& cookie) {
    server.set_pre_routing_handler([&options, &cookie](const Request& req, Response& res) {
        return admit(options.token, cookie, req, res) ? httplib::Server::HandlerResponse::Unhandled
                                                      : httplib::Server::HandlerResponse::Handled;
    });
    add_page_routes(server, leaflet);
    add_table_routes(server, source, options.title);
}

}  // namespace grundy::view
