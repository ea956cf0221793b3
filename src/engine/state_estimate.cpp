// estimate_state_bytes: the set windows a table's wavefront holds open at its widest. It follows
// the schedule (wavefront.cpp, tile_grid.hpp: which tiles are done when, and how ragged the front
// may get), the windows' lifetimes (opened by their first tile, closed after their last) and how
// each window sizes its block (bit_window.hpp, window_memory.cpp), with the low-water marks runs
// show. Checked against the peaks runs measure (tests/unit/test_memory.cpp).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/bit_window.hpp"
#include "engine/config.hpp"
#include "engine/tile_grid.hpp"
#include "engine/window_memory.hpp"
#include "grundy/engine.hpp"

namespace grundy {
namespace {

using engine::kScanPadWords;

// Low-water marks, measured in runs (2048^2 to 16384^2): after x cells, row y holds every value
// below about x - y (x - 2y is the bound), and a column likewise; diagonal x - y = +-k after t
// cells about 0.72 t - 0.6 k, its low values coming last.
constexpr double kRowLowSlope = 1.0;
constexpr double kDiagonalLowPerStep = 0.72;
constexpr double kDiagonalLowPerOffset = 0.6;
// The windows are caught at random points between two growths: a growing one holds its need
// and, by this measure, 1.5 slacks (BitWindow::make_room grows it to its need and two slacks
// when its need outgrows it; the size classes add to that).
constexpr double kGrowingSlacks = 1.5;
// What the model leaves out (the windows' phases, the low-water marks' spread): with it, its
// peaks were 1.01 to 1.23 times the measured ones over 30 shapes (squares of 2048 to 32768,
// 2048 x 8192 to 100 x 50000 and their transposes, tiles of 64 to 512, 1 and 2 threads); in band
// order (TileGrid::band) 1.24-1.29 from 8192^2 to 131072^2 (1.22 GiB against 0.96 measured at
// 65536^2, 4.49 against 3.62 at 131072^2), its staircase front a bound, not a likeness.
constexpr double kMargin = 1.03;
// Work bounds, so that an estimate of any table takes milliseconds: bands and sets sampled per
// front (each sample standing for those up to the next), and fronts looked at per round of the
// search for the widest.
constexpr int64_t kBandsSampled = 32;
constexpr int64_t kSetsPerBand = 4;
constexpr int64_t kDiagonalsSampled = 256;
constexpr int64_t kFrontsScanned = 16;
constexpr int64_t kKeysPerFront = 4;
// The program itself: code, libraries, HDF5's and OpenMP's own memory, the window allocator's
// partly used slabs. Peak RSS less the windows and tile buffers was 17-32 MiB from 2048^2 to
// 16384^2 (2 threads, --no-output).
constexpr uint64_t kProgramBytes = uint64_t{48} << 20;
// Hdf5Writer's queue of compressed chunks at its fullest (hdf5_writer_impl.hpp).
constexpr uint64_t kWriterQueueBytes = uint64_t{256} << 20;

int64_t above(int64_t a, int64_t b) {
    return a > b ? a - b : 0;
}

// The words BitWindow::allocate makes of a block for `words` words (the block's size class
// less its summary), and the block of a window of `capacity` words: the window's own rules.
double block_capacity(double words) {
    const auto want = static_cast<uint64_t>(std::ceil(words));
    return static_cast<double>(
        engine::BitWindow::capacity_of_block(engine::BitWindow::block_for(want)));
}
double block_bytes(double capacity) {
    return static_cast<double>(
        engine::BitWindow::block_for(static_cast<uint64_t>(std::ceil(capacity))));
}

// The capacity in words of a window opened at `floor` with `initial` words, now holding [low,
// top] (BitWindow::make_room). It grew only if its values ever reached beyond its first block.
// One whose low-water mark moves (sliding) grew only if its need and a slack outgrew that block,
// and then keeps the room of its last growth, the need and two slacks; one that still grows is
// on average part of the way between two growths. A window starts at a line and holds whole
// lines, so its first word is that of its floor's or its mark's line.
double window_words(int64_t low, int64_t top, int64_t floor, double initial) {
    const auto line_start = [](int64_t v) {  // of value v >= 0
        return static_cast<double>(engine::BitWindow::line_start(static_cast<uint64_t>(v) / 64));
    };
    const double last = static_cast<double>(top / 64) + kScanPadWords;
    const double need = last - line_start(low) + 1;
    const double first =
        block_capacity(std::max(initial, static_cast<double>(engine::kMinWindowWords)));
    if (last - line_start(floor) + 1 <= first) return first;
    const double slack = std::max(need / 4, static_cast<double>(engine::kMinWindowWords));
    if (low <= floor) return std::max(first, need + kGrowingSlacks * slack);
    return need + slack <= first ? first : need + 2 * slack;
}
double window_bytes(int64_t low, int64_t top, int64_t floor, double initial) {
    return block_bytes(window_words(low, top, floor, initial));
}

// Where the tiles stand at one moment: c(j) is row band j's last tile done or in flight (-1:
// none yet; tiles_x: all of them), non-increasing in j with c(j) - j falling. The sets of a tile
// in flight are open; a done tile has closed those it ends.
class Front {
  public:
    // One thread: the tiles of anti-diagonal S are swept left to right (TileGrid::tasks), and
    // tile (k, S - k) is in flight.
    static Front aligned(int64_t S, int64_t k, int64_t tiles_x, int64_t tiles_y) {
        return Front(Kind::Aligned, S, k, tiles_x, tiles_y);
    }
    // More threads: the most ragged front the lead tokens allow (TileGrid::row_lead_token), the
    // top band at tile `at` and each band below as far ahead as it may be, along the rows or
    // (the same with rows and columns swapped) the columns; every front tile in flight.
    static Front ragged(bool along_rows, int64_t at, int64_t tiles_x, int64_t tiles_y) {
        return Front(along_rows ? Kind::RaggedRows : Kind::RaggedColumns, at, 0, tiles_x, tiles_y);
    }
    // Band order (TileGrid::band): the row bands below `first` done, those of its band of
    // `band` at tile `at` (its bottom one) and one tile less each above, and the next band's
    // as far along the same staircase as its band token lets them start; every front tile in
    // flight.
    static Front banded(int64_t first, int64_t band, int64_t at, int64_t tiles_x, int64_t tiles_y) {
        Front f(Kind::Banded, at, first, tiles_x, tiles_y);
        f.band_ = band;
        return f;
    }

    int64_t operator()(int64_t j) const {
        if (kind_ == Kind::Banded) {
            if (j < key_) return tx_;
            // The next band starts once this one's top has done tile tx - 1 - band.
            const bool next = at_ - (band_ - 1) >= tx_ - 1 - band_;
            if (j >= key_ + (next ? 2 : 1) * band_) return -1;
            return std::clamp(at_ - (j - key_), int64_t{-1}, tx_);
        }
        if (kind_ == Kind::Aligned)
            return std::clamp(j >= at_ - key_ ? at_ - j : at_ - 1 - j, int64_t{-1}, tx_);
        if (kind_ == Kind::RaggedRows) return std::min(tx_, lead(ty_ - 1 - j));
        // Column band i reaches row band min(ty, lead(tx - 1 - i)), falling in i: row band j
        // reaches the last column band that reaches it.
        if (at_ > j) return tx_;
        int64_t lo = -1, hi = tx_ - 1;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (lead(tx_ - 1 - mid) >= j)
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    }

    // Whether tile (i, j) is in flight (else, if i <= c(j), done).
    bool in_flight(int64_t i, int64_t j) const {
        return kind_ == Kind::Aligned ? i == key_ && j == at_ - key_ : i == (*this)(j);
    }

  private:
    enum class Kind { Aligned, RaggedRows, RaggedColumns, Banded };
    Front(Kind kind, int64_t at, int64_t key, int64_t tiles_x, int64_t tiles_y)
        : kind_(kind), at_(at), key_(key), tx_(tiles_x), ty_(tiles_y) {}

    // A band m bands behind the one at `at` (m <= kLeadSpan) starts a tile once that band is
    // done with the tile kFrontSlack anti-diagonals back; further, the leads add up span by span.
    int64_t lead(int64_t m) const {
        const auto span = static_cast<int64_t>(engine::kLeadSpan);
        const auto slack = static_cast<int64_t>(engine::kFrontSlack) - 1;
        return at_ + m + slack * ((m + span - 1) / span);
    }

    Kind kind_;
    int64_t at_, key_, tx_, ty_;  // key_: Aligned, the tile in flight; Banded, the band's first
    int64_t band_ = 0;
};

// The first of lo .. hi (lo - 1 < it <= hi + 1) where pred, false before and true after.
template <class P>
int64_t first_where(int64_t lo, int64_t hi, P pred) {
    while (lo <= hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (pred(mid))
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return lo;
}

// The largest of f(0 .. n - 1): kFrontsScanned of them evenly spaced, then the same around the
// largest of those, closer and closer (the bytes change smoothly from one front to the next).
template <class F>
double widest(int64_t n, F f) {
    int64_t lo = 0, hi = n - 1, at = 0;
    double most = 0;
    while (true) {
        const int64_t step = std::max<int64_t>(1, (hi - lo) / kFrontsScanned);
        for (int64_t k = lo; k <= hi; k += step) {
            const double v = f(k);
            if (v > most) most = v, at = k;
        }
        if (step == 1) return most;
        lo = std::max<int64_t>(0, at - step);
        hi = std::min(n - 1, at + step);
    }
}

class TableModel {
  public:
    TableModel(uint64_t rows, uint64_t cols, uint64_t tile)
        : R(static_cast<int64_t>(rows)),
          C(static_cast<int64_t>(cols)),
          B(static_cast<int64_t>(tile)),
          tx((C + B - 1) / B),
          ty((R + B - 1) / B),
          // TileGrid's symmetric mode: every tile above the diagonal is its mirror's transpose.
          sym(R <= C && (ty == 1 || R == C || R % B == 0)) {}

    // The windows open at the front.
    double bytes(const Front& c) const { return rows(c) + columns(c) + diagonals(c); }

    // Band order: the widest moment of the band from tile row `first`, from its first tile
    // (on the diagonal) until its top row is done.
    double banding(int64_t first, int64_t band) const {
        const int64_t top = std::min(band, ty - first) - 1;
        return widest(tx + top - first, [&](int64_t k) {
            return bytes(Front::banded(first, band, first + k, tx, ty));
        });
    }

    // The widest moment of anti-diagonal S on one thread, its tiles swept left to right: the
    // first and the last looked at (the first of a symmetric table the one on the diagonal),
    // and kKeysPerFront between.
    double sweeping(int64_t S) const {
        const int64_t first = std::max({int64_t{0}, S - ty + 1, sym ? (S + 1) / 2 : 0});
        const int64_t last = std::min(S, tx - 1);
        const int64_t step = std::max<int64_t>(1, (last - first) / kKeysPerFront);
        double most = 0;
        for (int64_t k = first;; k = std::min(last, k + step)) {
            most = std::max(most, bytes(Front::aligned(S, k, tx, ty)));
            if (k == last) return most;
        }
    }

    const int64_t R, C, B, tx, ty;
    const bool sym;

  private:
    // f(k, weight) for k in lo .. hi: both ends (where windows open and close) on their own,
    // at most kBandsSampled between, each standing for those up to the next.
    template <class F>
    static void sample(int64_t lo, int64_t hi, int64_t most, F f) {
        if (lo > hi) return;
        f(lo, 1.0);
        if (hi > lo) f(hi, 1.0);
        const int64_t stride = std::max<int64_t>(1, (hi - lo - 1) / most);
        for (int64_t k = lo + 1; k < hi; k += stride)
            f(k, static_cast<double>(std::min(stride, hi - k)));
    }

    // Row y of band j: from its first tile ((j, j) in symmetric mode, where it starts as a copy
    // of column y; else (0, j)) to tile (tx - 1, j). Open: the bands that have started (a
    // prefix) and are not done (a suffix), the last tile's band only while it is in flight.
    double rows(const Front& c) const {
        auto first = [&](int64_t j) { return sym ? j : 0; };
        const int64_t lo = first_where(0, ty - 1, [&](int64_t j) { return c(j) < tx; });
        const int64_t hi = first_where(0, ty - 1, [&](int64_t j) { return c(j) < first(j); }) - 1;
        double sum = 0;
        sample(lo, hi, kBandsSampled, [&](int64_t j, double weight) {
            if (c(j) == tx - 1 && !c.in_flight(tx - 1, j)) return;
            const int64_t x = std::min(C, (c(j) + 1) * B), y_end = std::min(R, (j + 1) * B);
            sample(j * B, y_end - 1, kSetsPerBand, [&](int64_t y, double w) {
                const int64_t floor = above(y, 2 * (C - 1));
                const auto reach = static_cast<int64_t>(kRowLowSlope * static_cast<double>(y));
                // Opened as a copy of column y in symmetric mode, else with room for about
                // 3 min(y, X) values (prepare_tile).
                const int64_t column_floor = above(y, 2 * (R - 1));
                const double initial =
                    sym ? window_words(column_floor, y + y_end - 1, column_floor, 0)
                        : static_cast<double>(15 * std::min(y, C) / 256 + 2 * kScanPadWords);
                sum += weight * w *
                       window_bytes(std::max(floor, above(x, reach)), x - 1 + y, floor, initial);
            });
        });
        return sum;
    }

    // Column x of band i: from tile (i, 0) to the diagonal tile (symmetric mode, i < ty) or the
    // top one. Open: those band 0 has reached (a prefix) whose last tile is not done (a
    // suffix, its first band only while that tile is in flight).
    double columns(const Front& c) const {
        auto last = [&](int64_t i) { return sym && i < ty ? i : ty - 1; };  // its last band
        const int64_t lo = first_where(0, tx - 1, [&](int64_t i) { return c(last(i)) <= i; });
        const int64_t hi = std::min(tx - 1, c(0));
        double sum = 0;
        sample(lo, hi, kBandsSampled, [&](int64_t i, double weight) {
            if (c(last(i)) == i && !c.in_flight(i, last(i))) return;
            // The row bands done or in flight in column band i.
            int64_t height = first_where(0, ty - 1, [&](int64_t j) { return c(j) < i; });
            if (sym) height = std::min(height, i + 1);
            const int64_t y1 = std::min(R, height * B);
            sample(i * B, std::min(C, (i + 1) * B) - 1, kSetsPerBand, [&](int64_t x, double w) {
                const int64_t floor = above(x, 2 * (R - 1));
                sum +=
                    weight * w * window_bytes(std::max(floor, above(y1, x)), x + y1 - 1, floor, 0);
            });
        });
        return sum;
    }

    // Diagonal x - y = d: from its first cell's tile to its last's. Those open cross the front:
    // d from the band furthest behind (c(j) - j least) to the one furthest ahead.
    double diagonals(const Front& c) const {
        const int64_t ahead = first_where(0, ty - 1, [&](int64_t j) { return c(j) < tx; });
        const int64_t behind =
            std::min(ty - 1, first_where(0, ty - 1, [&](int64_t j) { return c(j) < 0; }));
        if (ahead > behind) return 0;
        const int64_t lo = std::max(sym ? 0 : 1 - R, (c(behind) - behind - 1) * B + 1);
        const int64_t hi = std::min(C - 1, (c(ahead) + 2 - ahead) * B - 1);
        const int64_t m = std::min(R, C);
        const int64_t stride = std::max<int64_t>(1, (hi - lo + 1) / kDiagonalsSampled);
        double sum = 0;
        for (int64_t d = lo; d <= hi; d += stride) {
            const int64_t x0 = std::max<int64_t>(d, 0), y0 = std::max<int64_t>(-d, 0);
            const int64_t steps = std::min(R - y0, C - x0);
            auto done = [&](int64_t t) { return c((y0 + t) / B) >= (x0 + t) / B; };
            if (!done(0)) continue;
            const int64_t t = first_where(1, steps - 1, [&](int64_t u) { return !done(u); }) - 1;
            const int64_t last_col = (x0 + t) / B, last_row = (y0 + t) / B;
            if (t == steps - 1 && !c.in_flight(last_col, last_row)) continue;  // closed
            const int64_t k = std::max(x0, y0), floor = above(k, m - 1);
            const double rise = kDiagonalLowPerStep * static_cast<double>(t) -
                                kDiagonalLowPerOffset * static_cast<double>(k);
            const int64_t low = std::max(floor, rise > 0 ? static_cast<int64_t>(rise) : 0);
            sum += static_cast<double>(std::min(stride, hi - d + 1)) *
                   window_bytes(low, x0 + y0 + 2 * t, floor, 0);
        }
        return sum;
    }
};

}  // namespace

uint64_t estimate_state_bytes(uint64_t rows, uint64_t cols, uint32_t tile, int threads) {
    if (rows == 0 || cols == 0) return 0;
    const int workers = threads > 0 ? threads : omp_get_max_threads();
    const uint32_t side = tile ? tile : default_tile(rows, cols, workers);
    // One run asks for the same estimate up to three times (the memory check, the compute
    // bytes, compute_table's hint to the windows' allocator), and each is a scan of the model
    // over every anti-diagonal (milliseconds at 16384^2): each thread keeps its last answer.
    struct Last {
        uint64_t rows = 0, cols = 0;
        uint32_t side = 0;
        int workers = 0;
        uint64_t bytes = 0;
    };
    thread_local Last last;
    if (last.rows == rows && last.cols == cols && last.side == side && last.workers == workers)
        return last.bytes;
    const TableModel t(rows, cols, side);
    double most = 0;
    if (const auto band = static_cast<int64_t>(
            engine::TileGrid::band_rows(static_cast<uint64_t>(t.ty), t.sym, workers))) {
        // Band after band (TileGrid::tasks), each as wide as its staircase gets; the bands
        // change smoothly from one to the next, so they are searched as the fronts are.
        most =
            widest((t.ty + band - 1) / band, [&](int64_t k) { return t.banding(k * band, band); });
        last = {rows, cols, side, workers, static_cast<uint64_t>(kMargin * most)};
        return last.bytes;
    }
    // One thread sweeps anti-diagonal after anti-diagonal; more may make the front ragged.
    most = widest(t.tx + t.ty - 1, [&](int64_t S) { return t.sweeping(S); });
    if (workers > 1)
        for (const bool along_rows : {true, false})
            most = std::max(most, widest((along_rows ? t.tx : t.ty) + 1, [&](int64_t k) {
                                return t.bytes(Front::ragged(along_rows, k - 1, t.tx, t.ty));
                            }));
    last = {rows, cols, side, workers, static_cast<uint64_t>(kMargin * most)};
    return last.bytes;
}

uint64_t estimate_compute_bytes(uint64_t rows, uint64_t cols, uint32_t tile, int threads,
                                bool output) {
    if (rows == 0 || cols == 0) return 0;
    const uint64_t workers = static_cast<uint64_t>(threads > 0 ? threads : omp_get_max_threads());
    const uint64_t side = tile ? tile : default_tile(rows, cols, threads);
    const uint64_t tile_bytes = side * side * sizeof(uint32_t);
    // Two tile buffers per worker (a tile and its mirror; in a symmetric table only a sink
    // without a consume_transpose of its own makes a mirror, still counted); with output, each
    // worker's chunk
    // being compressed and the writer's queue of compressed chunks (Hdf5Writer: at most 256
    // MiB, never more than the table).
    uint64_t bytes = estimate_state_bytes(rows, cols, static_cast<uint32_t>(side), threads) +
                     2 * workers * tile_bytes + kProgramBytes;
    if (output) {
        const double table = static_cast<double>(rows) * static_cast<double>(cols) * 4.0;
        bytes += 2 * workers * tile_bytes +
                 static_cast<uint64_t>(std::min(table, static_cast<double>(kWriterQueueBytes)));
    }
    return bytes;
}

uint64_t largest_square(uint64_t budget, uint32_t tile, int threads, bool output,
                        uint64_t (*extra)(uint64_t side)) {
    auto fits = [&](uint64_t n) {
        return estimate_compute_bytes(n, n, tile, threads, output) + (extra ? extra(n) : 0) <=
               budget;
    };
    // Doubling up to the first square that does not fit (small estimates are quick), then
    // halving the interval.
    constexpr uint64_t kMostSide = uint64_t{1} << 31;
    uint64_t lo = 0, hi = 1024;
    while (hi < kMostSide && fits(hi)) lo = hi, hi *= 2;
    if (hi == kMostSide && fits(hi)) return hi;
    while (lo + 1 < hi) {  // fits(lo) (or lo = 0), !fits(hi)
        const uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace grundy
