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
#include <vector>

#include "grundy/tile_sink.hpp"
#include "io/pyramid_file.hpp"
#include "io/pyramid_reader.hpp"
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

// The memory a pyramid of a rows x cols table takes while it is built (the builder's sums and
// the finished levels together) and once loaded (the levels alone), in bytes.
uint64_t pyramid_build_bytes(uint64_t rows, uint64_t cols);
uint64_t pyramid_loaded_bytes(uint64_t rows, uint64_t cols);

// The base level's sums, filled rectangle by rectangle (any order, any threads), then turned
// into a Pyramid.
class PyramidBuilder {
  public:
    PyramidBuilder(uint64_t rows, uint64_t cols);
    // Adds the cells of a rectangle, row-major with `stride` values per row. Rectangles whose
    // edges lie on block edges (or the table's) may be added concurrently without a lock.
    void add(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, const uint32_t* values,
             uint64_t stride);
    // The means, the P-positions' shares (from Wythoff's formula: the values say the same for
    // a right table), and the levels above, on `threads` OpenMP threads.
    Pyramid finish(int threads = 1) const;

  private:
    void add_rows(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, const uint32_t* values,
                  uint64_t stride);
    void add_piece(const uint32_t* row, uint64_t x0, uint64_t x, uint64_t end, uint64_t y,
                   double inv, size_t brow);
    uint64_t rows_, cols_, width_, height_;
    std::vector<uint64_t> sum_g_;
    std::vector<double> sum_scaled_;
    std::vector<uint32_t> sample_;
    std::mutex unaligned_;
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
    explicit PyramidSink(TileSink& next) : next_(next) {}
    void begin(const TableShape& shape) override;
    void consume(const TileView& tile) override;
    bool stop_requested() const override { return next_.stop_requested(); }
    Pyramid finish(int threads = 1) const { return builder_->finish(threads); }

  private:
    TileSink& next_;
    std::unique_ptr<PyramidBuilder> builder_;
};

}  // namespace grundy::view
