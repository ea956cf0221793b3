// The routes of `grundy view` (routes.hpp): paths matched by fixed patterns, numbers parsed as
// whole integers in range, everything else answered 4xx.
#include "view/routes.hpp"

#include <charconv>
#include <sstream>

#include "view/assets.hpp"
#include "view/png_encode.hpp"

namespace grundy::view {
namespace {

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

}  // namespace

void reply_error(httplib::Response& res, int status, const std::string& why) {
    res.status = status;
    res.set_content(why + "\n", "text/plain; charset=utf-8");
}

void add_routes(httplib::Server& server, TableSource& source, const LeafletFiles& leaflet,
                const ServerOptions& options) {
    for (const Asset& a : assets()) {
        const std::string route = a.name == "index.html" ? "/" : "/" + a.name;
        const Asset* asset = &a;
        server.Get(route, [asset](const httplib::Request&, httplib::Response& res) {
            res.set_content(asset->bytes, content_type(asset->name));
        });
    }
    for (const auto& [name, bytes] : leaflet) {
        const std::string* body = &bytes;
        const std::string type = content_type(name);
        server.Get("/leaflet/" + name,
                   [body, type](const httplib::Request&, httplib::Response& res) {
                       res.set_header("Cache-Control", "max-age=86400");
                       res.set_content(*body, type.c_str());
                   });
    }

    server.Get("/info", [&source, &options](const httplib::Request&, httplib::Response& res) {
        std::ostringstream j;
        j << "{\"rows\":" << source.rows() << ",\"cols\":" << source.cols()
          << ",\"minZoom\":" << source.min_zoom() << ",\"maxZoom\":" << kMaxZoom
          << ",\"pyramidBase\":" << kPyramidBase << ",\"tileSize\":" << kTileSize
          << ",\"diffMax\":" << source.diff_max()
          << ",\"periods\":" << (source.has_periods() ? "true" : "false") << ",\"title\":\""
          << json_escape(options.title) << "\"}";
        res.set_content(j.str(), "application/json");
    });

    server.Get(R"(/tile/([a-z]{1,8})/(-?[0-9]{1,4})/([0-9]{1,12})/([0-9]{1,12})\.png)",
               [&source](const httplib::Request& req, httplib::Response& res) {
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
               });

    server.Get(
        R"(/legend/([a-z]{1,8})\.png)", [](const httplib::Request& req, httplib::Response& res) {
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
        });

    server.Get("/value", [&source](const httplib::Request& req, httplib::Response& res) {
        int64_t x = 0, y = 0;
        if (!req.has_param("x") || !req.has_param("y") ||
            !parse_int(req.get_param_value("x"), 0, static_cast<int64_t>(source.cols()) - 1, x) ||
            !parse_int(req.get_param_value("y"), 0, static_cast<int64_t>(source.rows()) - 1, y))
            return reply_error(res, 404, "no such cell");
        std::ostringstream j;
        j << "{\"x\":" << x << ",\"y\":" << y
          << ",\"g\":" << source.value(static_cast<uint64_t>(x), static_cast<uint64_t>(y));
        for (const RowInfo& r : source.row_periods())
            if (r.row == static_cast<uint64_t>(y) && r.period)
                j << ",\"preperiod\":" << r.preperiod << ",\"period\":" << r.period;
        j << "}";
        res.set_content(j.str(), "application/json");
    });

    server.Get("/periods", [&source](const httplib::Request&, httplib::Response& res) {
        std::ostringstream j;
        j << "[";
        bool first = true;
        for (const RowInfo& r : source.row_periods()) {
            if (!r.period) continue;
            j << (first ? "" : ",") << "[" << r.row << "," << r.preperiod << "," << r.period << "]";
            first = false;
        }
        j << "]";
        res.set_content(j.str(), "application/json");
    });
}

}  // namespace grundy::view
