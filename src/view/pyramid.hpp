// The multiscale pyramid of `grundy view`: for every level L >= kPyramidBase, the BlockStats of
// each block of 2^L x 2^L cells, so that a zoomed-out tile reads 256 x 256 blocks instead of
// decoding millions of cells. Levels below kPyramidBase are computed from the cells as tiles
// are asked for (view/tile_source.hpp).
//
// Built either as `grundy compute` hands its tiles to the file (PyramidSink, a TileSink that
// passes every tile on), or by `grundy view` from a stored table that has none. Either way it
// is stored in a file of its own beside the table, TABLE.pyramid (io/pyramid_file.hpp: the
// levels as stored, and the file's reading and writing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "grundy/tile_sink.hpp"
#include "io/pyramid_file.hpp"
#include "io/pyramid_reader.hpp"
#include "view/base_pages.hpp"
#include "view/colouring.hpp"

namespace grundy {
class Hdf5TableReader;
}

namespace grundy::view {

using io::kPyramidBase;  // the finest stored level: blocks of 16 x 16 cells
using io::Pyramid;
using io::pyramid_blocks;
using io::PyramidLevel;
inline constexpr int kTileSize = 256;  // pixels per side of a served tile

// The level at which the whole table fits in one tile (0 when it already does at one cell
// per pixel).
int top_level(uint64_t rows, uint64_t cols);

// The memory a pyramid of a rows x cols table takes while it is built and once loaded (the
// levels alone), in bytes. Built from rectangles of whole blocks (`whole_blocks`: tiles whose
// side is a multiple of 16, and grundy view's bands), it takes no more than its levels; written
// while it is built (`streamed`, grundy compute), no more than its base level, as the levels
// above are dropped as they are written: a bound, as runs hold only the base's rows still to
// be written (view/base_pages.hpp: a third to a half of it for a square table).
uint64_t pyramid_build_bytes(uint64_t rows, uint64_t cols, bool whole_blocks,
                             bool streamed = false);
uint64_t pyramid_loaded_bytes(uint64_t rows, uint64_t cols);

class PyramidStream;

// The base level, filled rectangle by rectangle (any order, any threads), then the levels above
// (pyramid_builder.cpp).
class PyramidBuilder {
  public:
    // With a `stream_path`, the pyramid is written there while it is built
    // (view/pyramid_stream.hpp): each row of blocks once its cells have all been added, the rest
    // by finish(). Throws grundy::Error when PATH.tmp cannot be made.
    // Streamed, rectangles that are tiles of a grid of `tile` cells (and their mirrors) keep
    // only the blocks of rows still to be written (view/base_pages.hpp); 0: any rectangles.
    PyramidBuilder(uint64_t rows, uint64_t cols, const std::string& stream_path = {},
                   uint64_t tile = 0);
    ~PyramidBuilder();
    // Adds the cells of a rectangle, row-major with `stride` values per row. Rectangles whose
    // edges lie on block edges (or the table's) may be added concurrently without a lock, and
    // their blocks' statistics are made at once; others share blocks and are serialised.
    void add(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, const uint32_t* values,
             uint64_t stride);
    // Adds the transpose of `source` (w wide and h high, row-major) as the rectangle of h
    // columns and w rows at (x0, y0), the same way, reading `source` as it lies.
    void add_transpose(uint64_t x0, uint64_t y0, const uint32_t* source, uint64_t w, uint64_t h);
    // add(x0, y0, w, h, values, w) and add_transpose(y0, x0, values, w, h) together, the same
    // statistics from one pass over `values` (a square table's tile and its mirror).
    void add_with_transpose(uint64_t x0, uint64_t y0, const uint32_t* values, uint64_t w,
                            uint64_t h);
    // The base level (the P-positions' shares from Wythoff's formula: the values say the same
    // for a right table) and the levels above, on `threads` OpenMP threads. Streamed, the file
    // is completed instead, and the levels, dropped as they were written, are in it only: the
    // Pyramid returned holds none. Once only.
    Pyramid finish(int threads = 1);
    uint64_t rows_written() const;  // base rows streamed so far (tests)
    uint64_t pages_held() const { return pages_ ? pages_->pages_held() : 0; }  // tests

  private:
    class RowBlocks;     // a rectangle of whole blocks, a band of rows at a time
    class ColumnBlocks;  // the same for a transpose, from its source
    // Where add_rows adds: block (bx, by) at (by - by0) * stride + bx - bx0.
    struct SumsView {
        uint64_t* g;
        double* scaled;
        uint32_t* sample;
        uint64_t bx0, by0, stride;
    };
    // Sums over the whole table, for the rectangles that share blocks.
    struct SharedSums {
        std::vector<uint64_t> g;
        std::vector<double> scaled;
        std::vector<uint32_t> sample;
        std::vector<bool> touched;
    };
    // Whether a rectangle's edges lie on block edges or the table's (see add).
    bool whole_blocks(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height) const;
    void add_shared(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                    const uint32_t* values, uint64_t stride);
    void add_rows(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, const uint32_t* values,
                  uint64_t stride, const SumsView& into) const;
    void count_p_positions(uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1, uint32_t* count,
                           uint64_t stride) const;
    BlockStats stats(uint64_t bx, uint64_t by, uint64_t sum_g, double sum_scaled, uint32_t sample,
                     uint32_t p_count) const;
    // Rows y0..y0 + height - 1 have `width` more cells with their blocks' statistics made: told
    // to the stream, if any.
    void rows_added(uint64_t y0, uint64_t width, uint64_t height);
    int top() const;  // the highest level
    // Blocks (bx0 + i, by) of the base level for i < n, each `made(i)`, a page's run at a time
    // (pyramid_builder.cpp).
    template <typename Made>
    void put_blocks(uint64_t bx0, uint64_t by, uint64_t n, const Made& made);
    uint64_t rows_, cols_, width_, height_;
    // The base level: in base_.blocks, or streamed in pages_ (base_ then only its shape).
    PyramidLevel base_;
    std::unique_ptr<BasePages> pages_;
    std::unique_ptr<PyramidStream> stream_;
    std::unique_ptr<SharedSums> shared_;
    std::mutex shared_mutex_;
};

// Opens TABLE.pyramid (io::pyramid_path) if it is there and belongs to `table` (its shape, and
// sampled cells equal to the table's), reading only those samples of its blocks; null otherwise.
std::unique_ptr<io::PyramidReader> open_pyramid(const Hdf5TableReader& table);
// The same, read whole; nullopt where open_pyramid gives null, or the file is cut short since.
std::optional<Pyramid> load_pyramid(const Hdf5TableReader& table);
// Builds the pyramid of a stored table, reading it once in bands of rows (io::save_pyramid
// keeps it).
Pyramid build_pyramid(const Hdf5TableReader& table);
// The same, asking `stop` before each band and before the levels are made from the sums: when
// it says true (a signal), the build ends there and gives nullopt, in a band's time at most.
std::optional<Pyramid> build_pyramid(const Hdf5TableReader& table,
                                     const std::function<bool()>& stop);

// A TileSink that builds the pyramid of the tiles it passes on to `next` (grundy compute).
class PyramidSink final : public TileSink {
  public:
    // With a `path`, the pyramid is written there as it is built (PyramidBuilder's stream_path).
    explicit PyramidSink(TileSink& next, std::string path = {})
        : next_(next), path_(std::move(path)) {}
    void begin(const TableShape& shape) override;
    void consume(const TileView& tile) override;
    void consume_transpose(const TileView& source) override;
    void consume_with_transpose(const TileView& tile) override;
    bool stop_requested() const override { return next_.stop_requested(); }
    Pyramid finish(int threads = 1) { return builder_->finish(threads); }
    uint64_t rows_written() const { return builder_ ? builder_->rows_written() : 0; }  // tests
    uint64_t pages_held() const { return builder_ ? builder_->pages_held() : 0; }      // tests

  private:
    TileSink& next_;
    std::string path_;
    std::unique_ptr<PyramidBuilder> builder_;
};

}  // namespace grundy::view
