// The pyramid's computation: the base level's sums from the cells, the P-positions from
// Wythoff's formula, and the levels above by 2 x 2 means. Its file is io/pyramid_file.cpp's.
#include "view/pyramid.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "base/simd_clones.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/play.hpp"

namespace grundy::view {
namespace {

constexpr uint64_t kBase = uint64_t{1} << kPyramidBase;

// Cells of block b of a side of n cells at `level`.
uint64_t block_cells(uint64_t n, int level, uint64_t b) {
    const uint64_t side = uint64_t{1} << level, first = b * side;
    return std::min(side, n - first);
}

// The sum of g - x + 2y over n cells of row y from column x whose g sum to s, divided by 3y
// (inv = 1 / 3y): the scaled colouring's share of a row segment.
inline double scaled_sum(uint64_t s, uint64_t x, uint64_t n, uint64_t y, double inv) {
    const double xs = static_cast<double>(x + x + n - 1) * static_cast<double>(n) / 2;
    return (static_cast<double>(s) - xs + 2.0 * static_cast<double>(y * n)) * inv;
}

// The whole blocks of one row: `count` segments of kBase cells from column x (a block edge),
// each added to its block's sums. Called once per row of a tile; the segment sums vectorise
// (this loop was 7% of a 8192^2 run's instructions cell by cell).
GRUNDY_SIMD_CLONES void add_whole_segments(const uint32_t* row, uint64_t count, uint64_t x,
                                           uint64_t y, double inv, uint64_t* sum_g,
                                           double* sum_scaled) {
    for (uint64_t k = 0; k < count; ++k) {
        uint64_t s = 0;
        for (uint64_t i = 0; i < kBase; ++i) s += row[k * kBase + i];
        sum_g[k] += s;
        sum_scaled[k] += scaled_sum(s, x + k * kBase, kBase, y, inv);
    }
}

PyramidLevel reduce(const PyramidLevel& below, uint64_t rows, uint64_t cols, int threads) {
    PyramidLevel up;
    up.level = below.level + 1;
    up.width = pyramid_blocks(cols, up.level);
    up.height = pyramid_blocks(rows, up.level);
    up.blocks.resize(up.width * up.height);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t by = 0; by < up.height; ++by)
        for (uint64_t bx = 0; bx < up.width; ++bx) {
            double scaled = 0, diff = 0, p = 0, cells = 0;
            for (uint64_t j = 2 * by; j < std::min(2 * by + 2, below.height); ++j)
                for (uint64_t i = 2 * bx; i < std::min(2 * bx + 2, below.width); ++i) {
                    const BlockStats& s = below.at(i, j);
                    const double n = static_cast<double>(block_cells(cols, below.level, i) *
                                                         block_cells(rows, below.level, j));
                    scaled += s.scaled * n;
                    diff += s.diff * n;
                    p += s.p_share * n;
                    cells += n;
                }
            BlockStats& out = up.blocks[by * up.width + bx];
            out.sample = below.at(2 * bx, 2 * by).sample;
            out.scaled = static_cast<float>(scaled / cells);
            out.diff = static_cast<float>(diff / cells);
            out.p_share = static_cast<float>(p / cells);
        }
    return up;
}

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

uint64_t pyramid_build_bytes(uint64_t rows, uint64_t cols) {
    const uint64_t base = pyramid_blocks(rows, kPyramidBase) * pyramid_blocks(cols, kPyramidBase);
    return base * (sizeof(uint64_t) + sizeof(double) + sizeof(uint32_t)) +
           pyramid_loaded_bytes(rows, cols);
}

PyramidBuilder::PyramidBuilder(uint64_t rows, uint64_t cols)
    : rows_(rows),
      cols_(cols),
      width_(pyramid_blocks(cols, kPyramidBase)),
      height_(pyramid_blocks(rows, kPyramidBase)),
      sum_g_(width_ * height_),
      sum_scaled_(width_ * height_),
      sample_(width_ * height_) {}

void PyramidBuilder::add(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                         const uint32_t* values, uint64_t stride) {
    const bool aligned = x0 % kBase == 0 && y0 % kBase == 0 &&
                         (width % kBase == 0 || x0 + width == cols_) &&
                         (height % kBase == 0 || y0 + height == rows_);
    if (aligned) return add_rows(x0, y0, width, height, values, stride);
    // A tile size that is not a multiple of the block's: blocks shared between tiles.
    const std::lock_guard<std::mutex> lock(unaligned_);
    add_rows(x0, y0, width, height, values, stride);
}

void PyramidBuilder::add_rows(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                              const uint32_t* values, uint64_t stride) {
    const uint64_t x1 = x0 + width;
    // Whole blocks in the middle of each row, cut pieces at the ends (an unaligned tile's
    // edge, the table's last block).
    const uint64_t whole_from = std::min(x1, (x0 + kBase - 1) & ~(kBase - 1));
    const uint64_t whole_to = std::max(whole_from, x1 & ~(kBase - 1));
    for (uint64_t j = 0; j < height; ++j) {
        const uint64_t y = y0 + j;
        const uint32_t* row = values + j * stride;  // row[x - x0] is g(x, y)
        const size_t brow = (y >> kPyramidBase) * width_;
        const double inv = y ? 1.0 / (3.0 * static_cast<double>(y)) : 0.0;
        add_piece(row, x0, x0, whole_from, y, inv, brow);
        add_whole_segments(row + (whole_from - x0), (whole_to - whole_from) / kBase, whole_from, y,
                           inv, &sum_g_[brow + (whole_from >> kPyramidBase)],
                           &sum_scaled_[brow + (whole_from >> kPyramidBase)]);
        add_piece(row, x0, whole_to, x1, y, inv, brow);
        if (y % kBase == 0)
            for (uint64_t x = (x0 + kBase - 1) & ~(kBase - 1); x < x1; x += kBase)
                sample_[brow + (x >> kPyramidBase)] = row[x - x0];
    }
}

// Cells [x, end) of a row that starts at column x0, within a block or across a few.
void PyramidBuilder::add_piece(const uint32_t* row, uint64_t x0, uint64_t x, uint64_t end,
                               uint64_t y, double inv, size_t brow) {
    while (x < end) {
        const uint64_t stop = std::min(end, (x | (kBase - 1)) + 1);
        uint64_t s = 0;
        for (uint64_t i = x; i < stop; ++i) s += row[i - x0];
        const size_t b = brow + (x >> kPyramidBase);
        sum_g_[b] += s;
        sum_scaled_[b] += scaled_sum(s, x, stop - x, y, inv);
        x = stop;
    }
}

Pyramid PyramidBuilder::finish(int threads) const {
    Pyramid p;
    p.rows = rows_;
    p.cols = cols_;
    PyramidLevel base;
    base.level = kPyramidBase;
    base.width = width_;
    base.height = height_;
    base.blocks.resize(width_ * height_);
    // The P-positions counted first in p_share (a block's few are exact in a float), so that
    // no array of counts is made.
    for (uint64_t n = 0;; ++n) {
        const uint64_t a = wythoff_a(n), b = a + n;
        if (a >= rows_ && a >= cols_) break;
        if (a < cols_ && b < rows_)
            base.blocks[(b >> kPyramidBase) * width_ + (a >> kPyramidBase)].p_share += 1;
        if (n > 0 && b < cols_ && a < rows_)
            base.blocks[(a >> kPyramidBase) * width_ + (b >> kPyramidBase)].p_share += 1;
    }
    // On the threads the sweep has just left, which would otherwise wait for this one.
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t by = 0; by < height_; ++by) {
        const uint64_t h = block_cells(rows_, kPyramidBase, by), ylo = by * kBase;
        for (uint64_t bx = 0; bx < width_; ++bx) {
            const uint64_t w = block_cells(cols_, kPyramidBase, bx), xlo = bx * kBase;
            const size_t i = by * width_ + bx;
            const double cells = static_cast<double>(w * h);
            // The mean of x + y over the block, less the mean of g.
            const double mean_xy = static_cast<double>(xlo) + static_cast<double>(w - 1) / 2 +
                                   static_cast<double>(ylo) + static_cast<double>(h - 1) / 2;
            BlockStats& s = base.blocks[i];
            s.sample = sample_[i];
            s.scaled = static_cast<float>(sum_scaled_[i] / cells);
            s.diff = static_cast<float>(mean_xy - static_cast<double>(sum_g_[i]) / cells);
            s.p_share = static_cast<float>(static_cast<double>(s.p_share) / cells);
        }
    }
    p.levels.push_back(std::move(base));
    const int top = std::max(top_level(rows_, cols_), kPyramidBase);
    while (p.levels.back().level < top)
        p.levels.push_back(reduce(p.levels.back(), rows_, cols_, threads));
    return p;
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
    builder_ = std::make_unique<PyramidBuilder>(shape.rows, shape.cols);
    next_.begin(shape);
}

void PyramidSink::consume(const TileView& tile) {
    builder_->add(tile.x0, tile.y0, tile.width, tile.height, tile.values, tile.width);
    next_.consume(tile);
}

}  // namespace grundy::view
