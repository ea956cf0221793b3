// The schedule: square tiles swept in a tiled anti-diagonal wavefront. A tile needs only tiles
// (I', J') with I' <= I and J' <= J, and two tiles of one tile anti-diagonal I + J = S share no
// row, column or diagonal set, so tiles run in parallel without locks as soon as the tiles to
// their left and below are done (OpenMP task dependencies: no barrier per anti-diagonal).
// Where the table covers both (x, y) and (y, x), only the tiles on and below the main
// diagonal are swept; the others are mirrored.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/config.hpp"
#include "engine/sweep.hpp"
#include "engine/table_state.hpp"
#include "engine/tile_fill.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"

namespace grundy {

uint32_t default_tile(uint64_t rows, uint64_t cols, int threads) {
    // As large as the table allows while each side still has kTilesPerThread tiles per thread
    // for the task graph to keep every worker busy.
    const uint64_t side = std::min(rows, cols);
    const uint64_t workers = threads > 0 ? static_cast<uint64_t>(threads) : 1;
    uint64_t tile = engine::kDefaultTile;
    while (tile > engine::kSmallestDefaultTile && side < engine::kTilesPerThread * workers * tile)
        tile /= 2;
    return static_cast<uint32_t>(tile);
}

uint64_t estimate_state_bytes(uint64_t rows, uint64_t cols, uint32_t tile) {
    // Row y spans at most 3 min(y, X) + 1 values, kept in up to twice that; a column or
    // diagonal at most 3 min(X, Y). All rows and columns can be open at once in a square;
    // diagonals likewise.
    const double y = static_cast<double>(rows), x = static_cast<double>(cols);
    const double m = std::min(x, y);
    const double row_span = 1.5 * m * m + 3.0 * m * (y - m);  // sum over rows of 3 min(y, X)
    const double bits = 2.0 * row_span                        // rows
                        + x * 2.0 * 3.0 * m                   // columns
                        + (x + y) * 2.0 * 3.0 * m             // diagonals
                        + 64.0 * 64.0 * (x + y);              // per-window overheads
    (void)tile;
    return static_cast<uint64_t>(bits / 8.0);
}

namespace {

void check_sizes(const EngineOptions& o) {
    if (o.rows == 0 || o.cols == 0) throw Error("rows and cols must be at least 1");
    // Values reach X + Y - 2 and are stored as 32-bit integers.
    constexpr uint64_t kMaxSide = uint64_t{1} << 31;
    if (o.rows > kMaxSide || o.cols > kMaxSide)
        throw Error("rows and cols must be at most 2^31 (values are 32-bit)");
    if (o.tile != 0 && (o.tile < engine::kMinTile || o.tile > engine::kMaxTile))
        throw Error("tile must be between " + std::to_string(engine::kMinTile) + " and " +
                    std::to_string(engine::kMaxTile));
    if (o.threads < 0) throw Error("threads must be at least 1");
    // The stored tiles are chunks of the stored run's grid; no other grid can be matched.
    if (o.resume && o.tile == 0) throw Error("resuming needs the tile side of the stored run");
}

}  // namespace

EngineStats compute_table(const EngineOptions& options, TileSink& sink) {
    check_sizes(options);
    const engine::SweepFn sweep = engine::select_sweep(options.kernel);

    EngineStats stats;
    stats.kernel = options.kernel == MexKernel::Auto ? best_mex_kernel() : options.kernel;
    stats.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    stats.tile =
        options.tile ? options.tile : default_tile(options.rows, options.cols, stats.threads);

    const uint64_t X = options.cols, Y = options.rows, B = stats.tile;
    const uint64_t tiles_x = (X + B - 1) / B, tiles_y = (Y + B - 1) / B;
    engine::TableState state(Y, X);

    TableShape shape{Y, X, stats.tile};
    sink.begin(shape);

    std::atomic<int64_t> state_bytes{0};
    std::atomic<uint64_t> peak_bytes{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    std::atomic<uint64_t> cells{0}, cells_resumed{0}, tiles_done{0};

    // Tile (i, j) covers columns [i B, min(X, (i+1) B)) and rows [j B, min(Y, (j+1) B)). Above
    // the main diagonal, a tile whose transpose is exactly its mirror tile is not swept: the
    // worker that sweeps the mirror fills it (tile_fill.hpp). Both lie on one tile
    // anti-diagonal, whose tiles share no set, so the fill needs no more synchronisation.
    auto region = [&](uint64_t i, uint64_t j) {
        return std::array<uint64_t, 4>{i * B, std::min(X, i * B + B), j * B,
                                       std::min(Y, j * B + B)};
    };
    auto mirrored = [&](uint64_t i, uint64_t j) {  // is (i, j) the transpose of (j, i)?
        if (i == j || i >= tiles_y || j >= tiles_x) return false;
        const auto r = region(i, j), m = region(j, i);
        return r[0] == m[2] && r[1] == m[3] && r[2] == m[0] && r[3] == m[1];
    };
    auto note_bytes = [&](int64_t delta) {
        const int64_t now = state_bytes.fetch_add(delta) + delta;
        uint64_t peak = peak_bytes.load();
        while (now > 0 && static_cast<uint64_t>(now) > peak &&
               !peak_bytes.compare_exchange_weak(peak, static_cast<uint64_t>(now))) {
        }
    };
    // A replayed tile is already stored: it only closes its sets and counts.
    auto finish_tile = [&](const std::array<uint64_t, 4>& r, const uint32_t* values,
                           bool replayed) {
        const auto [x0, x1, y0, y1] = r;
        if (!replayed)
            sink.consume(TileView{x0, y0, static_cast<uint32_t>(x1 - x0),
                                  static_cast<uint32_t>(y1 - y0), values});
        note_bytes(-engine::close_finished_sets(state, x0, x1, y0, y1));
        const uint64_t n = (x1 - x0) * (y1 - y0);
        (replayed ? cells_resumed : cells).fetch_add(n, std::memory_order_relaxed);
        tiles_done.fetch_add(1, std::memory_order_relaxed);
        if (options.cells_done) options.cells_done->fetch_add(n, std::memory_order_relaxed);
    };

    // Symmetric mode (tile_fill.hpp): when every tile above the diagonal is mirrored, those
    // tiles touch no set at all and the tiles on the diagonal sweep only their lower half.
    bool symmetric = true;
    for (uint64_t j = 1; j < tiles_y && symmetric; ++j)
        for (uint64_t i = 0; i < j && symmetric; ++i) symmetric = mirrored(i, j);
    symmetric = symmetric && Y <= X;

    // One tile (or tile and mirror) of work, run by whichever worker the task lands on. A
    // replayed tile (EngineOptions::resume) is read instead of swept and leaves exactly the
    // state its sweep left: the same windows opened and closed, the same values inserted.
    auto run_tile = [&](uint64_t i, uint64_t j, uint32_t* buffer, uint32_t* mirror, bool replay) {
        if (failed.load(std::memory_order_relaxed)) return;
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return;
        if (sink.stop_requested()) return;
        try {
            const auto r = region(i, j);
            const auto [x0, x1, y0, y1] = r;
            const bool on_diagonal = symmetric && i == j;
            if (replay) {
                options.resume->read_tile(x0, y0, static_cast<uint32_t>(x1 - x0),
                                          static_cast<uint32_t>(y1 - y0), buffer);
                note_bytes(engine::replay_tile(state, x0, x1, y0, y1, buffer, on_diagonal));
            } else {
                note_bytes(sweep(state, x0, x1, y0, y1, buffer, on_diagonal));
            }
            // Done with its tile on the diagonal, a column is only read above it (mirrored).
            if (on_diagonal) note_bytes(-engine::close_columns(state, x0, x1));
            finish_tile(r, buffer, replay);
            if (mirrored(j, i)) {
                const auto m = region(j, i);
                // In symmetric mode a replayed mirror needs no values: it touches no set.
                if (!replay || !symmetric) engine::transpose_tile(buffer, x1 - x0, y1 - y0, mirror);
                // fill_tile's inserts, checked: the mirror of a stored tile is as suspect.
                if (!symmetric)
                    note_bytes(
                        replay ? engine::replay_tile(state, m[0], m[1], m[2], m[3], mirror, false)
                               : engine::fill_tile(state, m[0], m[1], m[2], m[3], mirror));
                finish_tile(m, mirror, replay);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            failed.store(true);
        }
    };

    // The schedule is a dataflow wavefront: each tile is a task that waits only for the tiles
    // to its left and below (the one below-left is implied), not for a whole anti-diagonal, so
    // workers never idle at a barrier while work is ready. A mirrored tile is done with its
    // mirror, so dependencies on it point at its mirror's task.
    // A tile on the table's left or bottom edge has no tile there to wait for: it waits on a
    // token of its own that no task writes. One token shared by all of them would collect an
    // `in` dependence per edge tile, and libgomp walks that list for every new one: task
    // creation quadratic in the edge's length, minutes for a table one row high.
    std::vector<char> done(tiles_x * tiles_y), nothing(tiles_x * tiles_y);  // dependency tokens
    auto task_of = [&](uint64_t i, uint64_t j) {  // index of the task that finishes tile (i, j)
        if (i < j && mirrored(i, j)) std::swap(i, j);
        return j * tiles_x + i;
    };
    auto token = [&](uint64_t i, uint64_t j) -> char* { return &done[task_of(i, j)]; };

    // Resuming: a task is replayed when its tiles (with its mirror) are stored and so are the
    // tasks it depends on. That is the largest set of stored tasks a run could have finished
    // (a hard kill may leave stored tiles whose dependencies are missing: those are computed
    // again), and the state after any such set is the same whatever order it ran in.
    std::vector<char> replayed(tiles_x * tiles_y, 0);
    if (options.resume)
        for (uint64_t s = 0; s + 1 < tiles_x + tiles_y; ++s)  // dependencies first
            for (uint64_t i = s >= tiles_y ? s - (tiles_y - 1) : 0; i <= std::min(s, tiles_x - 1);
                 ++i) {
                const uint64_t j = s - i;
                if (i < j && mirrored(i, j)) continue;
                const auto r = region(i, j);
                bool ok = options.resume->has_tile(r[0], r[2]);
                if (ok && mirrored(j, i)) ok = options.resume->has_tile(r[2], r[0]);
                if (ok && i > 0) ok = replayed[task_of(i - 1, j)];
                if (ok && j > 0) ok = replayed[task_of(i, j - 1)];
                replayed[j * tiles_x + i] = ok;
            }
    const int workers = stats.threads;
    std::vector<std::vector<uint32_t>> buffers(2 * static_cast<size_t>(workers),
                                               std::vector<uint32_t>(B * B));
    const auto start = std::chrono::steady_clock::now();
    auto replay_end = start;
    // Two passes over the same task graph: the replayed tasks first, all of them done before
    // any tile is computed, so that nothing is written to the sink while stored tiles are
    // still being read (a damaged one then fails the run before it changes anything). A task
    // of the second pass has no dependency on a task of the first: the taskwait covers them.
#pragma omp parallel num_threads(workers)
#pragma omp single
    for (const bool replay_pass : {true, false}) {
        if (!replay_pass) {
#pragma omp taskwait
            replay_end = std::chrono::steady_clock::now();
        }
        for (uint64_t s = 0; s + 1 < tiles_x + tiles_y; ++s) {
            const uint64_t i_first = s >= tiles_y ? s - (tiles_y - 1) : 0;
            const uint64_t i_last = std::min(s, tiles_x - 1);
            for (uint64_t i = i_first; i <= i_last; ++i) {
                const uint64_t j = s - i;
                if (i < j && mirrored(i, j)) continue;  // done by the task of (j, i)
                if (static_cast<bool>(replayed[j * tiles_x + i]) != replay_pass) continue;
                char* left = i ? token(i - 1, j) : &nothing[j * tiles_x + i];
                char* below = j ? token(i, j - 1) : &nothing[j * tiles_x + i];
                char* self = token(i, j);
                (void)left, (void)below, (void)self;  // GCC does not count uses in depend
#pragma omp task firstprivate(i, j, replay_pass) depend(in                              \
                                                        : left[0], below[0]) depend(out \
                                                                                    : self[0])
                {
                    const size_t me = static_cast<size_t>(omp_get_thread_num());
                    run_tile(i, j, buffers[2 * me].data(), buffers[2 * me + 1].data(), replay_pass);
                }
            }
        }
    }
    const auto end = std::chrono::steady_clock::now();
    stats.seconds = std::chrono::duration<double>(end - start).count();
    stats.replay_seconds = std::chrono::duration<double>(replay_end - start).count();
    if (failure) std::rethrow_exception(failure);
    stats.cells = cells.load();
    stats.cells_resumed = cells_resumed.load();
    stats.tiles = tiles_x * tiles_y;
    stats.tiles_done = tiles_done.load();
    stats.peak_state_bytes = peak_bytes.load();
    stats.cancelled = stats.tiles_done != stats.tiles;
    return stats;
}

}  // namespace grundy
