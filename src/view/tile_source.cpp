#include "view/tile_source.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "grundy/error.hpp"
#include "io/pyramid_file.hpp"
#include "io/row_periods_format.hpp"
#include "view/png_encode.hpp"

namespace grundy::view {
namespace {

constexpr Rgb kOutside{232, 232, 232};  // beyond the table's edge
constexpr int kTile = kTileSize;

// Digits 0-9 in 3 x 5 pixels, one row per 3 bits (high bit left), for the values written in
// the cells at the deepest zooms.
constexpr uint8_t kDigits[10][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};

void fill(std::vector<uint8_t>& rgb, int x, int y, int w, int h, Rgb c) {
    for (int j = y; j < y + h; ++j)
        for (int i = x; i < x + w; ++i) {
            uint8_t* p = &rgb[(static_cast<size_t>(j) * kTile + i) * 3];
            p[0] = c.r, p[1] = c.g, p[2] = c.b;
        }
}

// Writes `value` centred in the cell of side s at (x, y), in black or white, whichever stands
// out from the cell's colour; nothing when the digits would not fit.
void write_value(std::vector<uint8_t>& rgb, int x, int y, int s, uint32_t value, Rgb back) {
    const std::string text = std::to_string(value);
    const int n = static_cast<int>(text.size());
    int scale = 1;
    while ((n * 4 - 1) * (scale + 1) <= s - 4 && 5 * (scale + 1) <= s / 3) ++scale;
    const int tw = (n * 4 - 1) * scale, th = 5 * scale;
    if (tw > s - 2 || th > s - 2) return;
    const int luma = 299 * back.r + 587 * back.g + 114 * back.b;
    const Rgb ink = luma > 128000 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
    const int ox = x + (s - tw) / 2, oy = y + (s - th) / 2;
    for (int d = 0; d < n; ++d)
        for (int row = 0; row < 5; ++row)
            for (int col = 0; col < 3; ++col)
                if (kDigits[text[d] - '0'][row] >> (2 - col) & 1)
                    fill(rgb, ox + (d * 4 + col) * scale, oy + row * scale, scale, scale, ink);
}

// The picture's row for the tile's row j (of n rows of `side` pixels each), y growing upwards
// in the picture when `up`.
int picture_row(bool up, uint64_t j, uint64_t n, int side) {
    return static_cast<int>(up ? (n - 1 - j) : j) * side;
}

// The means of a block of cells (columns xa..xb-1, rows ya..yb-1 of `cells`, the area's w
// values per row) into st: (g - x + 2y) / 3y, x + y - g and the share of P-positions.
void block_means(const std::vector<uint32_t>& cells, const TileArea& a, uint64_t xa, uint64_t xb,
                 uint64_t ya, uint64_t yb, BlockStats& st) {
    const uint64_t x0 = a.x0, y0 = a.y0, w = a.w;
    double scaled = 0, g_sum = 0, xy_sum = 0;
    uint64_t zeros = 0;
    for (uint64_t y = ya; y < yb; ++y) {
        const uint64_t yy = y0 + y;
        const uint32_t* row = &cells[y * w];
        uint64_t s = 0;
        for (uint64_t x = xa; x < xb; ++x) {
            s += row[x];
            zeros += row[x] == 0;
        }
        const uint64_t n = xb - xa;
        const double xs = static_cast<double>(2 * x0 + xa + xb - 1) * static_cast<double>(n) / 2;
        if (yy)
            scaled += (static_cast<double>(s) - xs + 2.0 * static_cast<double>(yy * n)) /
                      (3.0 * static_cast<double>(yy));
        g_sum += static_cast<double>(s);
        xy_sum += xs + static_cast<double>(yy * n);
    }
    const double cells_in = static_cast<double>((xb - xa) * (yb - ya));
    st.scaled = static_cast<float>(scaled / cells_in);
    st.diff = static_cast<float>((xy_sum - g_sum) / cells_in);
    st.p_share = static_cast<float>(static_cast<double>(zeros) / cells_in);
}

// The bands build_pyramid reads (pyramid.cpp): whole chunks and blocks of every column, about
// 64 MiB or one chunk high, decoded, with their stored chunks (at most as large) beside them.
uint64_t build_band_bytes(uint64_t chunk_rows, uint64_t cols) {
    const uint64_t band = std::lcm(std::max<uint64_t>(chunk_rows, 1), uint64_t{1} << kPyramidBase);
    return 2 * std::max(uint64_t{64} << 20, band * cols * 4);
}

}  // namespace

TileSource::TileSource(const std::string& path, const TileSourceOptions& options,
                       void (*say)(const std::string&))
    : table_(path, options.allow_incomplete), options_(options), cache_(options.cache_bytes) {
    chunk_cols_ = table_.chunk_cols();
    chunk_rows_ = table_.chunk_rows();
    if (std::optional<std::vector<RowPeriod>> stored = io::read_row_periods(table_.path())) {
        periods_ = std::move(*stored);
        has_periods_ = true;
    }
    const bool zoomed = top_level(rows(), cols()) >= kPyramidBase;
    std::unique_ptr<io::PyramidReader> stored =
        zoomed && table_.complete() ? open_pyramid(table_) : nullptr;
    // A stored pyramid's pages are read as tiles ask for them; one built here is held whole
    // (from bands of whole blocks) while a band of chunks is read. The chunk cache fills up to its
    // size as the page is explored.
    const uint64_t pyramid =
        stored   ? options.pyramid_cache_bytes
        : zoomed ? pyramid_build_bytes(rows(), cols(), true) + build_band_bytes(chunk_rows_, cols())
                 : 0;
    require_memory(options.cache_bytes + pyramid + (uint64_t{64} << 20), options.budget,
                   "viewing a " + std::to_string(rows()) + " x " + std::to_string(cols()) +
                       " table with a cache of " +
                       format_bytes(static_cast<double>(options.cache_bytes)),
                   "; a smaller {cache} leaves more room");
    if (!zoomed) return;  // every zoom from the cells
    if (stored) {
        pyramid_.read_from(std::move(stored), options.pyramid_cache_bytes);
        pyramid_origin_ = io::pyramid_path(path);
        return;
    }
    if (say) say("building the zoomed-out views of " + path + " (once)...");
    std::optional<Pyramid> built = build_pyramid(
        table_, options.stop_build ? options.stop_build : [] { return false; });
    if (!built) {
        stopped_ = true;  // nothing built, nothing saved
        return;
    }
    pyramid_origin_ = "built in memory";
    if (options_.save_pyramid && table_.complete()) {
        try {
            io::save_pyramid(*built, io::pyramid_path(path));
            pyramid_origin_ = io::pyramid_path(path) + " (built now)";
        } catch (const Error& e) {
            if (say) say(std::string("not kept: ") + e.what());
        }
    }
    pyramid_.hold(std::move(*built));
}

TileSource::~TileSource() = default;

double TileSource::diff_max() const {
    return std::max<double>(1.0, 3.0 * static_cast<double>(std::min(rows(), cols()) - 1));
}

TileSource::Chunk TileSource::chunk(uint64_t cx, uint64_t cy) {
    const uint64_t key = cy * ((cols() + chunk_cols_ - 1) / chunk_cols_) + cx;
    {
        const std::lock_guard<std::mutex> lock(cache_mutex_);
        if (Chunk kept = cache_.find(key)) return kept;
    }
    const uint64_t x0 = cx * chunk_cols_, y0 = cy * chunk_rows_;
    const uint64_t w = std::min(chunk_cols_, cols() - x0), h = std::min(chunk_rows_, rows() - y0);
    auto values = std::make_shared<std::vector<uint32_t>>(w * h);
    {
        const std::lock_guard<std::mutex> lock(hdf5_mutex_);
        table_.read(x0, y0, w, h, values->data());
    }
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    ++decoded_;
    return cache_.put(key, std::move(values), w * h * sizeof(uint32_t));
}

uint64_t TileSource::chunks_decoded() const {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    return decoded_;
}
uint64_t TileSource::cache_bytes() const {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    return cache_.bytes();
}

void TileSource::read_rect(uint64_t x0, uint64_t y0, uint64_t w, uint64_t h, uint32_t* out) {
    for (uint64_t cy = y0 / chunk_rows_; cy * chunk_rows_ < y0 + h; ++cy)
        for (uint64_t cx = x0 / chunk_cols_; cx * chunk_cols_ < x0 + w; ++cx) {
            const Chunk c = chunk(cx, cy);
            const uint64_t cx0 = cx * chunk_cols_, cy0 = cy * chunk_rows_;
            const uint64_t cw = std::min(chunk_cols_, cols() - cx0);
            const uint64_t xa = std::max(x0, cx0), xb = std::min(x0 + w, cx0 + cw);
            const uint64_t ya = std::max(y0, cy0), yb = std::min(y0 + h, cy0 + chunk_rows_);
            for (uint64_t y = ya; y < yb; ++y)
                std::copy_n(c->data() + (y - cy0) * cw + (xa - cx0), xb - xa,
                            out + (y - y0) * w + (xa - x0));
        }
}

uint32_t TileSource::value(uint64_t x, uint64_t y) {
    if (x >= cols() || y >= rows()) throw Error("outside the table");
    const Chunk c = chunk(x / chunk_cols_, y / chunk_rows_);
    const uint64_t cw = std::min(chunk_cols_, cols() - x / chunk_cols_ * chunk_cols_);
    return (*c)[(y % chunk_rows_) * cw + x % chunk_cols_];
}

bool TileSource::render(const TileRequest& q, std::vector<uint8_t>& rgb) {
    if (q.zoom < min_zoom() || q.zoom > kMaxZoom || q.tx < 0 || q.ty < 0) return false;
    // Cells per tile side, and per pixel side (zoomed out) or pixels per cell (zoomed in).
    TileArea a;
    a.shift = q.zoom >= 0 ? 0 : -q.zoom;
    a.span = q.zoom >= 0 ? uint64_t{kTile} >> q.zoom : uint64_t{kTile} << a.shift;
    if (static_cast<uint64_t>(q.tx) >= (cols() + a.span - 1) / a.span ||
        static_cast<uint64_t>(q.ty) >= (rows() + a.span - 1) / a.span)
        return false;
    a.x0 = static_cast<uint64_t>(q.tx) * a.span, a.y0 = static_cast<uint64_t>(q.ty) * a.span;
    a.w = std::min(a.span, cols() - a.x0), a.h = std::min(a.span, rows() - a.y0);
    const Palette palette{q.colouring, q.k, diff_max()};
    rgb.assign(size_t{kTile} * kTile * 3, 0);
    fill(rgb, 0, 0, kTile, kTile, kOutside);
    if (q.zoom >= 0)
        render_cells(q, a, palette, rgb);
    else
        render_blocks(q, a, palette, rgb);
    return true;
}

// Zoomed in: a square of 2^zoom pixels per cell, with its value written in it from 16 up.
void TileSource::render_cells(const TileRequest& q, const TileArea& a, const Palette& palette,
                              std::vector<uint8_t>& rgb) {
    const int s = 1 << q.zoom;
    std::vector<uint32_t> cells(a.w * a.h);
    read_rect(a.x0, a.y0, a.w, a.h, cells.data());
    for (uint64_t j = 0; j < a.h; ++j)
        for (uint64_t i = 0; i < a.w; ++i) {
            const uint32_t g = cells[j * a.w + i];
            const Rgb c = palette.cell(a.x0 + i, a.y0 + j, g);
            const int px = static_cast<int>(i) * s, py = picture_row(q.up, j, a.span, s);
            fill(rgb, px, py, s, s, c);
            if (s >= 16) write_value(rgb, px, py, s, g, c);
        }
}

// Zoomed out: a pixel per block of 2^-zoom cells, from the pyramid's level or, below its base,
// from the cells.
void TileSource::render_blocks(const TileRequest& q, const TileArea& a, const Palette& palette,
                               std::vector<uint8_t>& rgb) {
    const uint64_t side = uint64_t{1} << a.shift;
    const uint64_t bw = (a.w + side - 1) / side, bh = (a.h + side - 1) / side;
    if (pyramid_.has(a.shift)) {
        const PyramidCache::Blocks blocks =
            pyramid_.tile(a.shift, static_cast<uint64_t>(q.tx), static_cast<uint64_t>(q.ty));
        for (uint64_t j = 0; j < bh; ++j)
            for (uint64_t i = 0; i < bw; ++i)
                fill(rgb, static_cast<int>(i), picture_row(q.up, j, kTile, 1), 1, 1,
                     palette.block(blocks.at(i, j), side));
        return;
    }
    // Below the pyramid's base: the blocks' statistics from the cells (BlockStats). A
    // rectangle of many chunks is read in one call, which decodes its chunks on all cores,
    // and bypasses the cache, which it would only flush.
    std::vector<uint32_t> cells(a.w * a.h);
    if (a.w * a.h >= 4 * chunk_cols_ * chunk_rows_) {
        const std::lock_guard<std::mutex> lock(hdf5_mutex_);
        table_.read(a.x0, a.y0, a.w, a.h, cells.data());
    } else {
        read_rect(a.x0, a.y0, a.w, a.h, cells.data());
    }
    for (uint64_t j = 0; j < bh; ++j) {
        const uint64_t ya = j * side, yb = std::min(a.h, ya + side);
        for (uint64_t i = 0; i < bw; ++i) {
            const uint64_t xa = i * side, xb = std::min(a.w, xa + side);
            BlockStats st;
            st.sample = cells[ya * a.w + xa];
            if (q.colouring != Colouring::Mod) block_means(cells, a, xa, xb, ya, yb, st);
            fill(rgb, static_cast<int>(i), picture_row(q.up, j, kTile, 1), 1, 1,
                 palette.block(st, side));
        }
    }
}

std::optional<std::string> TileSource::tile_png(const TileRequest& request) {
    std::vector<uint8_t> rgb;
    if (!render(request, rgb)) return std::nullopt;
    return encode_png(rgb.data(), kTile, kTile);
}

}  // namespace grundy::view
