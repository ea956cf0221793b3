// The pyramid's base level from the cells, and the levels above by 2 x 2 means.
//
// A rectangle whose edges lie on block edges (the tiles of grundy compute, the bands of grundy
// view) holds whole blocks: their statistics are made there and then, from sums kept only for
// the rectangle's row of blocks, and written into the base level. Only rectangles that share
// blocks with others (tiles of a side that is not a multiple of 16) add into sums over the
// whole table, made when the first such rectangle comes and turned into statistics at the end.
// So a run with the default tiles holds the base level alone (16 bytes a block) where it held
// its sums as well (20 bytes a block more), and its end has no pass over the blocks to make.
// Streamed, each rectangle's cells are counted off its rows of blocks, and a row
// whose cells have all come goes to the file at once (pyramid_stream.cpp).
#include <algorithm>
#include <cstddef>

#include "base/simd_clones.hpp"
#include "base/transpose.hpp"
#include "grundy/play.hpp"
#include "play/cold_positions.hpp"
#include "view/pyramid.hpp"
#include "view/pyramid_stream.hpp"

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
// each added to its block's sums. Called once per row of a tile, so that a block's sums are
// touched once per segment, not once per cell (cell by cell this was 7% of a 8192^2 run's
// instructions). GCC 12 keeps the segment sums scalar; explicit 8-lane sums measured slower.
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

// Cells [x, end) of a row that starts at column x0, within a block or across a few; block bx
// of the row's sums is at index bx - bx0.
void add_piece(const uint32_t* row, uint64_t x0, uint64_t x, uint64_t end, uint64_t y, double inv,
               uint64_t bx0, uint64_t* sum_g, double* sum_scaled) {
    while (x < end) {
        const uint64_t stop = std::min(end, (x | (kBase - 1)) + 1);
        uint64_t s = 0;
        for (uint64_t i = x; i < stop; ++i) s += row[i - x0];
        const uint64_t b = (x >> kPyramidBase) - bx0;
        sum_g[b] += s;
        sum_scaled[b] += scaled_sum(s, x, stop - x, y, inv);
        x = stop;
    }
}

// The sums of each of the `w` columns over n rows of `rows` (w values apart), vectorised.
GRUNDY_SIMD_CLONES void column_sums(const uint32_t* rows, uint64_t w, uint64_t n, uint64_t* out) {
    for (uint64_t i = 0; i < w; ++i) out[i] = rows[i];
    for (uint64_t j = 1; j < n; ++j)
        for (uint64_t i = 0; i < w; ++i) out[i] += rows[j * w + i];
}

// scaled_sum of the row segments whose sums are `sums`: rows y0.., n cells each from column x.
GRUNDY_SIMD_CLONES void row_shares(const uint64_t* sums, uint64_t count, uint64_t x, uint64_t n,
                                   uint64_t y0, const double* inv, double* out) {
    for (uint64_t i = 0; i < count; ++i) out[i] = scaled_sum(sums[i], x, n, y0 + i, inv[i]);
}

PyramidLevel level_above(const PyramidLevel& below, uint64_t rows, uint64_t cols) {
    PyramidLevel up = PyramidLevel::of(below.level + 1, rows, cols);
    up.blocks.resize(up.width * up.height);
    return up;
}

}  // namespace

void reduce_rows(const PyramidLevel& below, const BlockStats* below_blocks, uint64_t below_first,
                 PyramidLevel& up, uint64_t up_first, uint64_t from, uint64_t to, uint64_t rows,
                 uint64_t cols) {
    for (uint64_t by = from; by < to; ++by)
        for (uint64_t bx = 0; bx < up.width; ++bx) {
            double scaled = 0, diff = 0, p = 0, cells = 0;
            for (uint64_t j = 2 * by; j < std::min(2 * by + 2, below.height); ++j)
                for (uint64_t i = 2 * bx; i < std::min(2 * bx + 2, below.width); ++i) {
                    const BlockStats& s = below_blocks[(j - below_first) * below.width + i];
                    const double n = static_cast<double>(block_cells(cols, below.level, i) *
                                                         block_cells(rows, below.level, j));
                    scaled += s.scaled * n;
                    diff += s.diff * n;
                    p += s.p_share * n;
                    cells += n;
                }
            BlockStats& out = up.blocks[(by - up_first) * up.width + bx];
            out.sample = below_blocks[(2 * by - below_first) * below.width + 2 * bx].sample;
            out.scaled = static_cast<float>(scaled / cells);
            out.diff = static_cast<float>(diff / cells);
            out.p_share = static_cast<float>(p / cells);
        }
}

namespace {

PyramidLevel reduce(const PyramidLevel& below, uint64_t rows, uint64_t cols, int threads) {
    PyramidLevel up = level_above(below, rows, cols);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint64_t by = 0; by < up.height; ++by)
        reduce_rows(below, below.blocks.data(), 0, up, 0, by, by + 1, rows, cols);
    return up;
}

// The cold positions from the first with a_n = floor(n phi) >= v.
ColdPositions first_pair_at(uint64_t v) {
    ColdPositions p(v > 0 ? wythoff_a(v) - v : 0);  // floor(v / phi): one below or at the answer
    while (p.a() < v) p.next();
    return p;
}

}  // namespace

PyramidBuilder::PyramidBuilder(uint64_t rows, uint64_t cols, const std::string& stream_path,
                               uint64_t tile)
    : rows_(rows),
      cols_(cols),
      width_(pyramid_blocks(cols, kPyramidBase)),
      height_(pyramid_blocks(rows, kPyramidBase)),
      base_(PyramidLevel::of(kPyramidBase, rows, cols)) {
    if (stream_path.empty()) {
        base_.blocks.resize(width_ * height_);
        return;
    }
    pages_ = std::make_unique<BasePages>(width_, height_, tile % kBase == 0 ? tile / kBase : 0);
    stream_ = std::make_unique<PyramidStream>(stream_path, rows_, cols_, top(), base_, *pages_);
}

// Streamed, a run of blocks ends at its page's end (a tile's edge): a tile's row of blocks is
// one run, so its page is found once per row rather than once per block (two divisions each).
template <typename Made>
void PyramidBuilder::put_blocks(uint64_t bx0, uint64_t by, uint64_t n, const Made& made) {
    for (uint64_t i = 0; i < n;) {
        const BasePages::Span s =
            pages_ ? pages_->span(bx0 + i, by)
                   : BasePages::Span{&base_.blocks[by * width_ + bx0 + i], width_ - bx0 - i};
        const uint64_t k = std::min(s.room, n - i);
        for (uint64_t t = 0; t < k; ++t) s.blocks[t] = made(i + t);
        i += k;
    }
}

PyramidBuilder::~PyramidBuilder() = default;

uint64_t PyramidBuilder::rows_written() const {
    return stream_ ? stream_->rows_written() : 0;
}

int PyramidBuilder::top() const {
    return std::max(top_level(rows_, cols_), kPyramidBase);
}

void PyramidBuilder::rows_added(uint64_t y0, uint64_t width, uint64_t height) {
    if (stream_) stream_->add_cells(y0, width, height);
}

// The statistics of block (bx, by) from its sums, its sample and its P-positions.
BlockStats PyramidBuilder::stats(uint64_t bx, uint64_t by, uint64_t sum_g, double sum_scaled,
                                 uint32_t sample, uint32_t p_count) const {
    const uint64_t w = block_cells(cols_, kPyramidBase, bx),
                   h = block_cells(rows_, kPyramidBase, by);
    const double cells = static_cast<double>(w * h);
    // The mean of x + y over the block, less the mean of g.
    const double mean_xy = static_cast<double>(bx * kBase) + static_cast<double>(w - 1) / 2 +
                           static_cast<double>(by * kBase) + static_cast<double>(h - 1) / 2;
    BlockStats s;
    s.sample = sample;
    s.scaled = static_cast<float>(sum_scaled / cells);
    s.diff = static_cast<float>(mean_xy - static_cast<double>(sum_g) / cells);
    s.p_share = static_cast<float>(p_count / cells);
    return s;
}

// Adds the cells of rows y0..y0+height-1 (within one row of blocks, or across several for the
// table-wide sums) to the sums of `into`, whose block (bx, by) is at (by - by0) * stride + bx -
// bx0, and the samples of the blocks whose first cell they hold.
void PyramidBuilder::add_rows(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                              const uint32_t* values, uint64_t stride, const SumsView& into) const {
    const uint64_t x1 = x0 + width;
    // Whole blocks in the middle of each row, cut pieces at the ends (an unaligned tile's
    // edge, the table's last block).
    const uint64_t whole_from = std::min(x1, (x0 + kBase - 1) & ~(kBase - 1));
    const uint64_t whole_to = std::max(whole_from, x1 & ~(kBase - 1));
    for (uint64_t j = 0; j < height; ++j) {
        const uint64_t y = y0 + j;
        const uint32_t* row = values + j * stride;  // row[x - x0] is g(x, y)
        const size_t brow = ((y >> kPyramidBase) - into.by0) * into.stride;
        uint64_t* g = into.g + brow;
        double* scaled = into.scaled + brow;
        const double inv = y ? 1.0 / (3.0 * static_cast<double>(y)) : 0.0;
        add_piece(row, x0, x0, whole_from, y, inv, into.bx0, g, scaled);
        const uint64_t first = (whole_from >> kPyramidBase) - into.bx0;
        add_whole_segments(row + (whole_from - x0), (whole_to - whole_from) / kBase, whole_from, y,
                           inv, g + first, scaled + first);
        add_piece(row, x0, whole_to, x1, y, inv, into.bx0, g, scaled);
        if (y % kBase == 0)
            for (uint64_t x = (x0 + kBase - 1) & ~(kBase - 1); x < x1; x += kBase)
                into.sample[brow + (x >> kPyramidBase) - into.bx0] = row[x - x0];
    }
}

// P-positions (a_n, a_n + n) and (a_n + n, a_n) in columns [x0, x1) and rows [y0, y1), counted
// per block into `count` (block (bx, by) at (by - by0) * stride + bx - bx0).
void PyramidBuilder::count_p_positions(uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                                       uint32_t* count, uint64_t stride) const {
    const uint64_t bx0 = x0 >> kPyramidBase, by0 = y0 >> kPyramidBase;
    auto at = [&](uint64_t x, uint64_t y) -> uint32_t& {
        return count[((y >> kPyramidBase) - by0) * stride + (x >> kPyramidBase) - bx0];
    };
    for (ColdPositions p = first_pair_at(x0);; p.next()) {  // a_n in the columns
        const uint64_t a = p.a(), b = p.b();
        if (a >= x1) break;
        if (b >= y0 && b < y1) ++at(a, b);
    }
    for (ColdPositions p = first_pair_at(y0);; p.next()) {  // a_n in the rows; (0, 0) above
        const uint64_t a = p.a(), b = p.b(), n = p.n();
        if (a >= y1) break;
        if (n > 0 && b >= x0 && b < x1) ++at(b, a);
    }
}

bool PyramidBuilder::whole_blocks(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height) const {
    return x0 % kBase == 0 && y0 % kBase == 0 && (width % kBase == 0 || x0 + width == cols_) &&
           (height % kBase == 0 || y0 + height == rows_);
}

// The statistics of a rectangle of whole blocks (add), made a band of kBase rows at a time
// from sums kept only for the band's row of blocks.
class PyramidBuilder::RowBlocks {
  public:
    RowBlocks(PyramidBuilder& builder, uint64_t x0, uint64_t y0, uint64_t width, uint64_t height)
        : b_(builder),
          x0_(x0),
          y0_(y0),
          width_(width),
          height_(height),
          bx0_(x0 >> kPyramidBase),
          across_(pyramid_blocks(width, kPyramidBase)),
          g_(across_),
          scaled_(across_),
          sample_(across_),
          p_count_(across_ * pyramid_blocks(height, kPyramidBase)) {
        // The rectangle's P-positions at once: a_n costs an integer square root.
        b_.count_p_positions(x0, x0 + width, y0, y0 + height, p_count_.data(), across_);
    }
    // The band from row y (a block edge), whose first row is at `values`.
    void add_band(uint64_t y, const uint32_t* values, uint64_t stride) {
        const uint64_t by = y >> kPyramidBase, h = std::min(kBase, y0_ + height_ - y);
        const uint32_t* p = p_count_.data() + (y - y0_) / kBase * across_;
        std::fill(g_.begin(), g_.end(), 0);
        std::fill(scaled_.begin(), scaled_.end(), 0.0);
        b_.add_rows(x0_, y, width_, h, values, stride,
                    {g_.data(), scaled_.data(), sample_.data(), bx0_, by, across_});
        b_.put_blocks(bx0_, by, across_, [&](uint64_t i) {
            return b_.stats(bx0_ + i, by, g_[i], scaled_[i], sample_[i], p[i]);
        });
    }

  private:
    PyramidBuilder& b_;
    uint64_t x0_, y0_, width_, height_, bx0_, across_;
    std::vector<uint64_t> g_;
    std::vector<double> scaled_;
    std::vector<uint32_t> sample_, p_count_;
};

// The statistics of the transpose of a source w wide and h high (add_transpose), a rectangle of
// whole blocks at (x0, y0), from the source as it lies. The transpose's row y = y0 + i within
// a block is column i of the source within a band of kBase rows: each band's column sums are
// the sums of the transpose's row segments, so no transpose is made.
class PyramidBuilder::ColumnBlocks {
  public:
    ColumnBlocks(PyramidBuilder& builder, uint64_t x0, uint64_t y0, const uint32_t* source,
                 uint64_t w, uint64_t h)
        : b_(builder),
          x0_(x0),
          y0_(y0),
          source_(source),
          w_(w),
          h_(h),
          across_(pyramid_blocks(h, kPyramidBase)),
          down_(pyramid_blocks(w, kPyramidBase)),
          g_(across_ * down_),
          column_(w),
          scaled_(across_ * down_),
          inv_(w),
          share_(w),
          p_count_(across_ * down_) {
        b_.count_p_positions(x0, x0 + h, y0, y0 + w, p_count_.data(), across_);
        for (uint64_t i = 0; i < w; ++i) {
            const uint64_t y = y0 + i;
            inv_[i] = y ? 1.0 / (3.0 * static_cast<double>(y)) : 0.0;
        }
    }
    // Source rows a kBase ..: the transpose's block column a.
    void add_band(uint64_t a) {
        const uint64_t j0 = a * kBase, n = std::min(kBase, h_ - j0);
        column_sums(source_ + j0 * w_, w_, n, column_.data());
        row_shares(column_.data(), w_, x0_ + j0, n, y0_, inv_.data(), share_.data());
        // Each block's rows in order, as add() adds them: the same sums, bit for bit. The
        // blocks down the column interleaved, so that no block's additions wait on each other.
        for (uint64_t r = 0; r < kBase; ++r)
            for (uint64_t d = 0; d < down_ && d * kBase + r < w_; ++d) {
                g_[d * across_ + a] += column_[d * kBase + r];
                scaled_[d * across_ + a] += share_[d * kBase + r];
            }
    }
    // Once every band is in: the blocks' statistics.
    void finish() {
        const uint64_t bx0 = x0_ >> kPyramidBase, by0 = y0_ >> kPyramidBase;
        for (uint64_t d = 0; d < down_; ++d)
            b_.put_blocks(bx0, by0 + d, across_, [&](uint64_t a) {
                // The block's first cell, (x0 + a kBase, y0 + d kBase): source row a kBase,
                // column d kBase.
                const uint32_t sample = source_[a * kBase * w_ + d * kBase];
                const uint64_t b = d * across_ + a;
                return b_.stats(bx0 + a, by0 + d, g_[b], scaled_[b], sample, p_count_[b]);
            });
    }

  private:
    PyramidBuilder& b_;
    uint64_t x0_, y0_;
    const uint32_t* source_;
    uint64_t w_, h_, across_, down_;
    std::vector<uint64_t> g_, column_;
    std::vector<double> scaled_, inv_, share_;
    std::vector<uint32_t> p_count_;
};

void PyramidBuilder::add(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                         const uint32_t* values, uint64_t stride) {
    if (!whole_blocks(x0, y0, width, height))
        return add_shared(x0, y0, width, height, values, stride);
    RowBlocks blocks(*this, x0, y0, width, height);
    for (uint64_t y = y0; y < y0 + height; y += kBase)
        blocks.add_band(y, values + (y - y0) * stride, stride);
    rows_added(y0, width, height);
}

void PyramidBuilder::add_transpose(uint64_t x0, uint64_t y0, const uint32_t* source, uint64_t w,
                                   uint64_t h) {
    const uint64_t width = h, height = w;  // the transpose's
    if (!whole_blocks(x0, y0, width, height))
        return add(x0, y0, width, height, base::transposed(source, w, h), width);
    ColumnBlocks blocks(*this, x0, y0, source, w, h);
    for (uint64_t a = 0; a * kBase < h; ++a) blocks.add_band(a);
    blocks.finish();
    rows_added(y0, width, height);
}

// Both from the same bands: the second reads each band of kBase rows (32 KiB in a tile of 512)
// from the first-level cache, where two passes read the whole tile twice.
void PyramidBuilder::add_with_transpose(uint64_t x0, uint64_t y0, const uint32_t* values,
                                        uint64_t w, uint64_t h) {
    if (!whole_blocks(x0, y0, w, h) || !whole_blocks(y0, x0, h, w)) {
        add(x0, y0, w, h, values, w);
        return add_transpose(y0, x0, values, w, h);
    }
    RowBlocks rows(*this, x0, y0, w, h);
    ColumnBlocks columns(*this, y0, x0, values, w, h);
    for (uint64_t a = 0; a * kBase < h; ++a) {
        rows.add_band(y0 + a * kBase, values + a * kBase * w, w);
        columns.add_band(a);
    }
    columns.finish();
    rows_added(y0, w, h);
    rows_added(x0, h, w);
}

// Table-wide sums for the rectangles that share blocks (tiles of a side that is not a multiple
// of kBase), serialised: their blocks are made into statistics by finish().
void PyramidBuilder::add_shared(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                                const uint32_t* values, uint64_t stride) {
    const std::lock_guard<std::mutex> lock(shared_mutex_);
    if (!shared_) {
        shared_ = std::make_unique<SharedSums>();
        const uint64_t blocks = width_ * height_;
        shared_->g.resize(blocks);
        shared_->scaled.resize(blocks);
        shared_->sample.resize(blocks);
        shared_->touched.resize(blocks);
    }
    SharedSums& s = *shared_;
    add_rows(x0, y0, width, height, values, stride,
             {s.g.data(), s.scaled.data(), s.sample.data(), 0, 0, width_});
    for (uint64_t by = y0 >> kPyramidBase; by <= (y0 + height - 1) >> kPyramidBase; ++by)
        for (uint64_t bx = x0 >> kPyramidBase; bx <= (x0 + width - 1) >> kPyramidBase; ++bx)
            s.touched[by * width_ + bx] = true;
}

Pyramid PyramidBuilder::finish(int threads) {
    if (shared_) {
        // Every block a rectangle that shares blocks touched: all of its cells have been added.
        SharedSums& s = *shared_;
        std::vector<uint32_t> p_count(width_ * height_);
        count_p_positions(0, cols_, 0, rows_, p_count.data(), width_);
        for (uint64_t i = 0; i < width_ * height_; ++i)
            if (s.touched[i])
                put_blocks(i % width_, i / width_, 1, [&](uint64_t) {
                    return stats(i % width_, i / width_, s.g[i], s.scaled[i], s.sample[i],
                                 p_count[i]);
                });
        shared_.reset();
    }
    Pyramid p;
    p.rows = rows_;
    p.cols = cols_;
    if (stream_) {
        // The file completed; the levels went to it and are not kept.
        stream_->finish();
        stream_.reset();
        pages_.reset();
        return p;
    }
    p.levels.push_back(std::move(base_));
    // On the threads the sweep has just left, which would otherwise wait for this one.
    while (p.levels.back().level < top())
        p.levels.push_back(reduce(p.levels.back(), rows_, cols_, threads));
    return p;
}

}  // namespace grundy::view
