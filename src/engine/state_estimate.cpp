// estimate_state_bytes: the set windows a table's wavefront holds open at its widest, following
// the schedule (wavefront.cpp, tile_grid.hpp) and the windows' floors and low-water marks
// (table_state.hpp, bit_window.hpp), not every set of the table at once.
#include <algorithm>
#include <cstdint>

#include <omp.h>

#include "engine/config.hpp"
#include "grundy/engine.hpp"

namespace grundy {
namespace {

using engine::kScanPadWords;

// Tile anti-diagonals the dataflow schedule may run ahead of, or lag behind, the anti-diagonal
// being counted: a tile starts as soon as the tiles to its left and below are done, so the
// front is ragged by a few tiles.
constexpr uint64_t kRaggedTiles = 1;
// At most this many anti-diagonals, and sets of each kind per anti-diagonal, are counted (the
// others by sampling in between), so that an estimate of a huge table takes milliseconds.
constexpr uint64_t kMostAntiDiagonals = 512;
constexpr uint64_t kMostSetsCounted = uint64_t{1} << 15;
// A window keeps a quarter to spare after it slides and grows to one and a half times what it
// needs (BitWindow::make_room), and its block is rounded up to a size class (at most a quarter
// more). Calibrated on measured peaks (2 threads, squares 2048 to 16384 and 4096 x 16384, where
// the estimate is 1.1 to 1.4 times the peak; 32768^2: 1.06).
constexpr double kWindowGrowth = 1.35;
// Without symmetric mode (a table taller than wide, or whose edge tiles are not mirrors) the
// front is more ragged, and more so on a loaded machine: 16384 x 4096 peaked at 0.98 of the
// estimate without this, 8192 x 2048 at 1.15 with 1.1 while other tests ran beside it.
constexpr double kAsymmetricFront = 1.5;
// The program itself: code, libraries, HDF5's and OpenMP's own memory, the window allocator's
// partly used slabs. Peak RSS less the windows and tile buffers was 17-32 MiB from 2048^2 to
// 16384^2 (2 threads, --no-output).
constexpr uint64_t kProgramBytes = uint64_t{48} << 20;
// Hdf5Writer's queue of compressed chunks at its fullest (hdf5_writer_impl.hpp).
constexpr uint64_t kWriterQueueBytes = uint64_t{256} << 20;

// Bytes of a window holding values [low, top]: its words, the scan's padding, the summary.
double window_bytes(uint64_t low, uint64_t top) {
    const double words = static_cast<double>(top > low ? top - low : 0) / 64.0 + kScanPadWords + 1;
    const double needed = std::max(words, static_cast<double>(engine::kMinWindowWords));
    return kWindowGrowth * (needed * 65.0 / 64.0 + 3.0) * 8.0;
}

uint64_t above(uint64_t a, uint64_t b) {
    return a > b ? a - b : 0;
}

// The sum of f(k) for k in [first, last], counting at most kMostSetsCounted of them.
template <class F>
double sampled_sum(uint64_t first, uint64_t last, F f) {
    if (first > last) return 0;
    const uint64_t n = last - first + 1;
    const uint64_t stride = (n + kMostSetsCounted - 1) / kMostSetsCounted;
    double sum = 0;
    for (uint64_t k = first; k <= last; k += stride)
        sum += f(k) * static_cast<double>(std::min(stride, last - k + 1));
    return sum;
}

class FrontModel {
  public:
    FrontModel(uint64_t rows, uint64_t cols, uint64_t tile)
        : R(rows),
          C(cols),
          B(tile),
          tx((cols + tile - 1) / tile),
          ty((rows + tile - 1) / tile),
          // TileGrid's symmetric mode: every tile above the diagonal is its mirror's transpose.
          sym(rows <= cols && (ty == 1 || rows == cols || rows % tile == 0)),
          m(std::min(rows, cols)) {}

    // The windows open while tiles of anti-diagonal S are swept.
    double bytes_at(uint64_t S) const {
        const uint64_t ahead = S + kRaggedTiles, behind = above(S, kRaggedTiles);
        // Cells with x + y below `back` are done; no set has reached beyond `front`.
        const uint64_t back = behind * B, front = (ahead + 2) * B;
        // Rows of band j: open from their first tile (the diagonal one in symmetric mode) until
        // their last (tile tx - 1) is done.
        const uint64_t j_last = std::min(ty - 1, sym ? ahead / 2 : ahead);
        const uint64_t j_first = above(behind + 1, tx);
        double bytes = sampled_sum(j_first * B, std::min(R, (j_last + 1) * B) - 1, [&](uint64_t y) {
            const uint64_t floor = above(y, 2 * (C - 1));
            const uint64_t low = std::max(floor, above(above(back, y), 2 * y));
            return window_bytes(low, std::min(front, C - 1 + y));
        });
        // Columns of band i: open from tile (i, 0) until the diagonal tile (symmetric mode) or
        // the top tile is done.
        const uint64_t i_last = std::min(tx - 1, ahead);
        const uint64_t i_first = sym ? (behind + 1) / 2 : above(behind + 1, ty);
        bytes += sampled_sum(i_first * B, std::min(C, (i_last + 1) * B) - 1, [&](uint64_t x) {
            const uint64_t floor = above(x, 2 * (R - 1));
            const uint64_t low = std::max(floor, above(above(back, x), 2 * x));
            return window_bytes(low, std::min(front, x + R - 1));
        });
        // Diagonals d = x - y (index d + R - 1): open from their first cell's tile to their
        // last's; in symmetric mode only those with x >= y.
        auto diagonal = [&](uint64_t index) {
            const bool below = index >= R - 1;  // x >= y
            const uint64_t k = below ? index - (R - 1) : R - 1 - index;
            const uint64_t x0 = below ? k : 0, y0 = below ? 0 : k;
            const uint64_t steps = std::min(R - 1 - y0, C - 1 - x0);
            const uint64_t first_tile = x0 / B + y0 / B;
            const uint64_t last_tile = (x0 + steps) / B + (y0 + steps) / B;
            if (first_tile > ahead || last_tile < behind) return 0.0;
            const uint64_t floor = above(k, m - 1);
            return window_bytes(floor, std::min(front, x0 + y0 + 2 * steps));
        };
        // Only the diagonals that start before the front can be open.
        const uint64_t last_index = std::min(R + C - 2, R - 1 + std::min(C - 1, front));
        const uint64_t first_index = sym ? R - 1 : above(R - 1, front);
        bytes += sampled_sum(first_index, last_index, diagonal);
        return sym ? bytes : kAsymmetricFront * bytes;
    }

    uint64_t anti_diagonals() const { return tx + ty - 1; }

  private:
    const uint64_t R, C, B, tx, ty;
    const bool sym;
    const uint64_t m;
};

}  // namespace

uint64_t estimate_state_bytes(uint64_t rows, uint64_t cols, uint32_t tile, int threads) {
    if (rows == 0 || cols == 0) return 0;
    const FrontModel model(rows, cols, tile ? tile : default_tile(rows, cols, threads));
    const uint64_t n = model.anti_diagonals();
    const uint64_t step = (n + kMostAntiDiagonals - 1) / kMostAntiDiagonals;
    double widest = 0;
    for (uint64_t S = 0; S < n; S += step) widest = std::max(widest, model.bytes_at(S));
    return static_cast<uint64_t>(widest);
}

uint64_t estimate_compute_bytes(uint64_t rows, uint64_t cols, uint32_t tile, int threads,
                                bool output) {
    if (rows == 0 || cols == 0) return 0;
    const uint64_t workers = static_cast<uint64_t>(threads > 0 ? threads : omp_get_max_threads());
    const uint64_t side = tile ? tile : default_tile(rows, cols, threads);
    const uint64_t tile_bytes = side * side * sizeof(uint32_t);
    // Two tile buffers per worker (a tile and its mirror); with output, each worker's chunk
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
    uint64_t lo = 0, hi = uint64_t{1} << 31;
    if (fits(hi)) return hi;
    while (lo + 1 < hi) {  // fits(lo) (or lo = 0), !fits(hi)
        const uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

}  // namespace grundy
