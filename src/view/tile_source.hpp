// TileSource: one stored table as `grundy view` serves it: its cells through a cache of
// decoded chunks of bounded size, its pyramid for the zoomed-out levels (read from its file as
// tiles ask, view/pyramid_cache.hpp), its row periods (where the file holds
// /analysis/row_periods), and the tiles drawn from them. Any thread may call it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "grundy/hdf5_reader.hpp"
#include "grundy/memory.hpp"
#include "grundy/row_period.hpp"
#include "view/colouring.hpp"
#include "view/lru_cache.hpp"
#include "view/pyramid.hpp"
#include "view/pyramid_cache.hpp"

namespace grundy::view {

// The deepest zoom: 2^6 = 64 pixels per cell, room for six digits.
inline constexpr int kMaxZoom = 6;

struct TileRequest {
    Colouring colouring = Colouring::Scaled;
    uint32_t k = 5;
    int zoom = 0;     // 2^zoom pixels per cell; below 0, 2^-zoom cells per pixel
    int64_t tx = 0;   // the tile's column, counted from x = 0
    int64_t ty = 0;   // the tile's row, counted from y = 0
    bool up = false;  // y grows upwards in the picture (row y = 0 at its bottom)
};

// The cells a tile covers: columns x0..x0+w-1 and rows y0..y0+h-1 of a tile of `span` cells a
// side; zoomed out, 2^shift cells a pixel.
struct TileArea {
    uint64_t x0 = 0, y0 = 0, w = 0, h = 0, span = 0;
    int shift = 0;
};

struct TileSourceOptions {
    bool allow_incomplete = false;
    uint64_t cache_bytes = uint64_t{256} << 20;
    // The pages of the pyramid's blocks kept when they are read from its file (1 MiB a tile);
    // a pyramid built here is held whole instead.
    uint64_t pyramid_cache_bytes = uint64_t{64} << 20;
    // Where a table has no pyramid file: build it, and save it beside the table when the
    // folder is writable (never for an incomplete table).
    bool save_pyramid = true;
    // The memory budget (grundy/memory.hpp): the caches and the pyramid must fit in it, or the
    // source is refused with MemoryError before any is allocated.
    MemoryBudget budget;
    // Asked between bands of rows while a pyramid is built (a signal's flag): true stops the
    // build, and the source is then stopped() with no pyramid, none saved. Null: never.
    std::function<bool()> stop_build = nullptr;
};

class TileSource {
  public:
    // Throws grundy::Error (one line) for a missing file, not a table, or an incomplete one
    // without allow_incomplete. `say` receives progress lines (building the pyramid).
    TileSource(const std::string& path, const TileSourceOptions& options,
               void (*say)(const std::string&) = nullptr);
    ~TileSource();

    uint64_t rows() const { return table_.rows(); }
    uint64_t cols() const { return table_.cols(); }
    int min_zoom() const { return -top_level(rows(), cols()); }
    const std::string& pyramid_origin() const { return pyramid_origin_; }
    // The pyramid's build was stopped (TileSourceOptions::stop_build): the source has no pyramid
    // and must not serve.
    bool stopped() const { return stopped_; }
    // The pyramid's blocks in memory now, and those read from its file so far.
    uint64_t pyramid_bytes() const { return pyramid_.bytes(); }
    uint64_t pyramid_bytes_read() const { return pyramid_.bytes_read(); }
    double diff_max() const;
    // The rows of /analysis/row_periods (io::read_row_periods), where the file has them.
    const std::vector<RowPeriod>& row_periods() const { return periods_; }
    bool has_periods() const { return has_periods_; }

    // The tile's PNG, or nullopt when the zoom or the tile lies outside the table.
    std::optional<std::string> tile_png(const TileRequest& request);
    // The tile's pixels (256 x 256 x 3, RGB), for the tests; false outside the table.
    bool render(const TileRequest& request, std::vector<uint8_t>& rgb);
    uint32_t value(uint64_t x, uint64_t y);
    // Cells read from the file into the cache so far, and the cache's bytes now.
    uint64_t chunks_decoded() const;
    uint64_t cache_bytes() const;

  private:
    void render_cells(const TileRequest& q, const TileArea& a, const Palette& palette,
                      std::vector<uint8_t>& rgb);
    void render_blocks(const TileRequest& q, const TileArea& a, const Palette& palette,
                       std::vector<uint8_t>& rgb);
    using Chunk = ByteBoundedLru<uint64_t, std::vector<uint32_t>>::Shared;
    Chunk chunk(uint64_t cx, uint64_t cy);
    void read_rect(uint64_t x0, uint64_t y0, uint64_t w, uint64_t h, uint32_t* out);

    Hdf5TableReader table_;
    TileSourceOptions options_;
    PyramidCache pyramid_;
    std::string pyramid_origin_;
    bool stopped_ = false;
    std::vector<RowPeriod> periods_;
    bool has_periods_ = false;
    uint64_t chunk_cols_, chunk_rows_;

    // The cache: least recently used chunks dropped beyond options_.cache_bytes.
    mutable std::mutex cache_mutex_;
    ByteBoundedLru<uint64_t, std::vector<uint32_t>> cache_;
    uint64_t decoded_ = 0;
    std::mutex hdf5_mutex_;  // HDF5 calls: one at a time
};

}  // namespace grundy::view
