// The pyramid's sizes, its building from a stored table, its opening, and the sink that builds
// it from grundy compute's tiles. The levels themselves are made in pyramid_builder.cpp; its
// file is io/pyramid_file.cpp's.
#include "view/pyramid.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"

namespace grundy::view {
namespace {

constexpr uint64_t kBase = uint64_t{1} << kPyramidBase;

}  // namespace

int top_level(uint64_t rows, uint64_t cols) {
    int l = 0;
    while ((uint64_t{kTileSize} << l) < std::max(rows, cols)) ++l;
    return l;
}

uint64_t pyramid_loaded_bytes(uint64_t rows, uint64_t cols) {
    // The base level's blocks and, for the levels above, a third more (each a quarter of the
    // one below), one block each at least.
    const double base = static_cast<double>(pyramid_blocks(rows, kPyramidBase)) *
                        static_cast<double>(pyramid_blocks(cols, kPyramidBase));
    return static_cast<uint64_t>(base * sizeof(BlockStats) * 4.0 / 3.0) + 64 * sizeof(BlockStats);
}

uint64_t pyramid_build_bytes(uint64_t rows, uint64_t cols, bool whole_blocks, bool streamed) {
    // Rectangles that share blocks add into sums over the whole table, kept to the end
    // (pyramid_builder.cpp): 8 + 8 + 4 bytes and a bit a block, and the P-positions' counts.
    const uint64_t base = pyramid_blocks(rows, kPyramidBase) * pyramid_blocks(cols, kPyramidBase);
    const uint64_t shared =
        whole_blocks ? 0 : base * (sizeof(uint64_t) + sizeof(double) + 2 * sizeof(uint32_t) + 1);
    // Streamed: the base level, and a few rows of each level above (pyramid_stream.hpp).
    const uint64_t levels = streamed
                                ? base * sizeof(BlockStats) + 64 * sizeof(BlockStats) +
                                      4 * pyramid_blocks(cols, kPyramidBase) * sizeof(BlockStats)
                                : pyramid_loaded_bytes(rows, cols);
    return shared + levels;
}

Pyramid build_pyramid(const Hdf5TableReader& table) {
    return *build_pyramid(table, [] { return false; });
}

std::optional<Pyramid> build_pyramid(const Hdf5TableReader& table,
                                     const std::function<bool()>& stop) {
    const uint64_t rows = table.rows(), cols = table.cols();
    PyramidBuilder builder(rows, cols);
    // Bands of whole chunks and whole blocks, about 64 MiB each (a fraction of a second to
    // read: how long a stop may wait).
    uint64_t band = std::lcm(table.chunk_rows(), kBase);
    while (band * 2 * cols * 4 <= (uint64_t{64} << 20)) band *= 2;
    std::vector<uint32_t> values(std::min(band, rows) * cols);
    for (uint64_t y = 0; y < rows; y += band) {
        if (stop()) return std::nullopt;
        const uint64_t h = std::min(band, rows - y);
        table.read(0, y, cols, h, values.data());
        builder.add(0, y, cols, h, values.data(), cols);
    }
    if (stop()) return std::nullopt;
    return builder.finish();
}

std::unique_ptr<io::PyramidReader> open_pyramid(const Hdf5TableReader& table) {
    const int top = std::max(top_level(table.rows(), table.cols()), kPyramidBase);
    std::unique_ptr<io::PyramidReader> p =
        io::PyramidReader::open(io::pyramid_path(table.path()), table.rows(), table.cols(), top);
    if (!p) return nullptr;
    // A pyramid of another table of this shape (from a stopped or another run) would show
    // wrong pictures: a few samples must equal the table's cells.
    const uint64_t width = p->width(kPyramidBase), blocks = width * p->height(kPyramidBase);
    for (const uint64_t i : {uint64_t{0}, blocks / 3, blocks - 1}) {
        const uint64_t bx = i % width, by = i / width;
        BlockStats s;
        try {
            p->read(kPyramidBase, bx, by, 1, 1, &s);
        } catch (const Error&) {
            return nullptr;  // cut short since it was opened
        }
        if (table.at(bx * kBase, by * kBase) != s.sample) return nullptr;
    }
    return p;
}

std::optional<Pyramid> load_pyramid(const Hdf5TableReader& table) {
    const std::unique_ptr<io::PyramidReader> p = open_pyramid(table);
    if (!p) return std::nullopt;
    try {
        return p->read_all();
    } catch (const Error&) {
        return std::nullopt;
    }
}

void PyramidSink::begin(const TableShape& shape) {
    builder_ = std::make_unique<PyramidBuilder>(shape.rows, shape.cols, path_, shape.tile);
    next_.begin(shape);
}

void PyramidSink::consume(const TileView& tile) {
    builder_->add(tile.x0, tile.y0, tile.width, tile.height, tile.values, tile.width);
    next_.consume(tile);
}

void PyramidSink::consume_transpose(const TileView& source) {
    builder_->add_transpose(source.y0, source.x0, source.values, source.width, source.height);
    next_.consume_transpose(source);
}

// The pyramid's pass between the next sink's two calls: the HDF5 writer's first chunk is laid
// out from the tile as the sweep left it, and its compression then pushes much of the tile out
// of the cache; the pyramid's pass, which reads the tile row after row (a pattern the hardware
// prefetchers follow), brings it back for the mirror's chunk, laid out a strip of columns at a
// time (2 KiB apart: a pattern they do not). This order took 0.96 times the time of the run
// with the pyramid's pass first (docs/benchmarks.md, "What output and the pyramid cost").
void PyramidSink::consume_with_transpose(const TileView& tile) {
    next_.consume(tile);
    builder_->add_with_transpose(tile.x0, tile.y0, tile.values, tile.width, tile.height);
    next_.consume_transpose(tile);
}

}  // namespace grundy::view
