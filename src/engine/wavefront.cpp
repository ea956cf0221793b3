// The schedule: square tiles swept in a tiled anti-diagonal wavefront. A tile needs only tiles
// (I', J') with I' <= I and J' <= J, and two tiles of one tile anti-diagonal I + J = S share no
// row, column or diagonal set, so tiles run in parallel without locks as soon as the tiles to
// their left and below are done (OpenMP task dependencies: no barrier per anti-diagonal).
// Where the table covers both (x, y) and (y, x), only the tiles on and below the main
// diagonal are swept; the others are mirrored.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/schedule_stats.hpp"
#include "base/transpose.hpp"
#include "engine/config.hpp"
#include "engine/sweep.hpp"
#include "engine/table_state.hpp"
#include "engine/tile_fill.hpp"
#include "engine/tile_grid.hpp"
#include "engine/window_memory.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"

namespace grundy {

using engine::TileGrid;
using engine::TileRegion;

uint32_t default_tile(uint64_t rows, uint64_t cols, int threads) {
    // As large as the table allows while each side still has kTilesPerThread tiles per thread
    // for the task graph to keep every worker busy (kTilesPerThreadMany on many threads, down
    // to kSmallestManyThreadsTile).
    const uint64_t side = std::min(rows, cols);
    const uint64_t workers =
        static_cast<uint64_t>(threads > 0 ? threads : std::max(1, omp_get_max_threads()));
    uint64_t tile = engine::kDefaultTile;
    while (tile > engine::kSmallestDefaultTile && side < engine::kTilesPerThread * workers * tile)
        tile /= 2;
    while (workers > engine::kSmallTileTeam && tile > engine::kSmallestManyThreadsTile &&
           side < engine::kTilesPerThreadMany * workers * tile)
        tile /= 2;
    return static_cast<uint32_t>(tile);
}

namespace {

void check_sizes(const EngineOptions& o) {
    // Values reach X + Y - 2 and are stored as 32-bit integers.
    constexpr uint64_t kMaxSide = uint64_t{1} << 31;
    if (o.rows == 0 || o.rows > kMaxSide)
        throw ArgumentError("{rows} must be between 1 and 2^31, got " + std::to_string(o.rows));
    if (o.cols == 0 || o.cols > kMaxSide)
        throw ArgumentError("{cols} must be between 1 and 2^31, got " + std::to_string(o.cols));
    if (o.tile != 0 && (o.tile < engine::kMinTile || o.tile > engine::kMaxTile))
        throw ArgumentError("{tile} must be between " + std::to_string(engine::kMinTile) + " and " +
                            std::to_string(engine::kMaxTile) + ", got " + std::to_string(o.tile));
    if (o.threads < 0)
        throw ArgumentError("{threads} must be 0 (all cores) or more, got " +
                            std::to_string(o.threads));
    // The stored tiles are chunks of the stored run's grid; no other grid can be matched.
    if (o.resume && o.tile == 0) throw Error("resuming needs the tile side of the stored run");
}

// The figures of a run, counted by every worker as it finishes tiles.
struct RunCounters {
    std::atomic<int64_t> state_bytes{0};
    std::atomic<uint64_t> peak_bytes{0};
    std::atomic<uint64_t> cells{0}, cells_resumed{0}, tiles_done{0};
    std::atomic<uint64_t>* cells_done = nullptr;  // EngineOptions::cells_done, for progress

    void note_bytes(int64_t delta) {
        const int64_t now = state_bytes.fetch_add(delta) + delta;
        uint64_t peak = peak_bytes.load();
        while (now > 0 && static_cast<uint64_t>(now) > peak &&
               !peak_bytes.compare_exchange_weak(peak, static_cast<uint64_t>(now))) {
        }
    }
    void note_tile(uint64_t n, bool replayed) {
        (replayed ? cells_resumed : cells).fetch_add(n, std::memory_order_relaxed);
        tiles_done.fetch_add(1, std::memory_order_relaxed);
        if (cells_done) cells_done->fetch_add(n, std::memory_order_relaxed);
    }
};

// The sink's begin(), on a thread of its own beside the engine's set-up and first tiles (the
// wavefront starts with one tile ready: the other workers are idle then anyway). A tile waits for
// it only where it hands its values to the sink; whatever begin() threw, every such wait throws.
class SinkStart {
  public:
    SinkStart(TileSink& sink, const TableShape& shape)
        : begun_(std::async(std::launch::async, [&sink, shape] { sink.begin(shape); }).share()) {}
    // Whether begin() has returned without an error (the sink may be asked to stop only then).
    bool done() const { return done_.load(std::memory_order_acquire); }
    // Waits for begin(); throws what it threw.
    void wait() {
        if (done()) return;
        const std::lock_guard<std::mutex> lock(mutex_);  // one shared_future, many threads
        begun_.get();
        done_.store(true, std::memory_order_release);
    }

  private:
    std::shared_future<void> begun_;
    std::atomic<bool> done_{false};
    std::mutex mutex_;
};

// One task's work: a tile, or a tile and its mirror, swept or (EngineOptions::resume) replayed
// from the stored run, then handed to the sink and its finished sets closed. Run by whichever
// worker the task lands on; the first exception is kept and stops the tasks not yet begun.
class TileWork {
  public:
    TileWork(const EngineOptions& options, engine::SweepFn sweep, TileSink& sink, SinkStart& start,
             TileGrid& grid, engine::TableState& state)
        : options_(options),
          sweep_(sweep),
          sink_(sink),
          start_(start),
          grid_(grid),
          state_(state) {}

    void run(uint64_t i, uint64_t j, uint32_t* buffer, uint32_t* mirror, bool replay) {
        if (failed_.load(std::memory_order_relaxed)) return;
        if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) return;
        if (start_.done() && sink_.stop_requested()) return;
        try {
            do_tile(i, j, buffer, mirror, replay);
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex_);
            if (!failure_) failure_ = std::current_exception();
            failed_.store(true);
        }
    }

    void rethrow_failure() const {
        if (failure_) std::rethrow_exception(failure_);
    }
    RunCounters counters;

  private:
    // A replayed tile leaves exactly the state its sweep left: the same windows opened and
    // closed, the same values inserted.
    void do_tile(uint64_t i, uint64_t j, uint32_t* buffer, uint32_t* mirror, bool replay) {
        const TileRegion r = grid_.region(i, j);
        const bool symmetric = grid_.symmetric, on_diagonal = symmetric && i == j;
        if (replay) {
            options_.resume->read_tile(r.x0, r.y0, width(r), height(r), buffer);
            counters.note_bytes(
                engine::replay_tile(state_, r.x0, r.x1, r.y0, r.y1, buffer, on_diagonal));
        } else {
            const ScheduleStats::Stamp sweep_start = ScheduleStats::now_if_on();
            counters.note_bytes(sweep_(state_, r.x0, r.x1, r.y0, r.y1, buffer, on_diagonal));
            if (ScheduleStats::on()) table_schedule_stats().sweep(sweep_start);
        }
        // Done with its tile on the diagonal, a column is only read above it (mirrored).
        if (on_diagonal) counters.note_bytes(-engine::close_columns(state_, r.x0, r.x1));
        const bool mirrored = grid_.mirrored(j, i);
        if (symmetric && mirrored) {
            // The mirror's values are only the sink's, which reads them from the tile, with the
            // tile itself: a replayed mirror touches no set and is not stored again.
            if (!replay) {
                start_.wait();
                sink_.consume_with_transpose(TileView{r.x0, r.y0, width(r), height(r), buffer});
            }
            account(r, replay);
            return account(grid_.region(j, i), replay);
        }
        finish(r, buffer, replay);
        if (!mirrored) return;
        const TileRegion m = grid_.region(j, i);
        base::transpose_tile(buffer, width(r), height(r), mirror);
        // fill_tile's inserts, checked: the mirror of a stored tile is as suspect.
        counters.note_bytes(replay
                                ? engine::replay_tile(state_, m.x0, m.x1, m.y0, m.y1, mirror, false)
                                : engine::fill_tile(state_, m.x0, m.x1, m.y0, m.y1, mirror));
        finish(m, mirror, replay);
    }

    // A replayed tile is already stored: it only closes its sets and counts.
    void finish(const TileRegion& r, const uint32_t* values, bool replayed) {
        if (!replayed) {
            start_.wait();
            sink_.consume(TileView{r.x0, r.y0, width(r), height(r), values});
        }
        account(r, replayed);
    }

    // The sets a finished tile closes, and the counts.
    void account(const TileRegion& r, bool replayed) {
        counters.note_bytes(-engine::close_finished_sets(state_, r.x0, r.x1, r.y0, r.y1));
        counters.note_tile(uint64_t{width(r)} * height(r), replayed);
    }

    static uint32_t width(const TileRegion& r) { return static_cast<uint32_t>(r.x1 - r.x0); }
    static uint32_t height(const TileRegion& r) { return static_cast<uint32_t>(r.y1 - r.y0); }

    const EngineOptions& options_;
    const engine::SweepFn sweep_;
    TileSink& sink_;
    SinkStart& start_;
    TileGrid& grid_;
    engine::TableState& state_;
    std::atomic<bool> failed_{false};
    std::exception_ptr failure_;
    std::mutex failure_mutex_;
};

// The run's figures into `stats` (whose kernel, threads and tile are set).
EngineStats finish_stats(EngineStats stats, const RunCounters& counters, const TileGrid& grid,
                         std::chrono::steady_clock::duration run,
                         std::chrono::steady_clock::duration replay) {
    stats.seconds = std::chrono::duration<double>(run).count();
    stats.replay_seconds = std::chrono::duration<double>(replay).count();
    stats.cells = counters.cells.load();
    stats.cells_resumed = counters.cells_resumed.load();
    stats.tiles = grid.tiles_x * grid.tiles_y;
    stats.tiles_done = counters.tiles_done.load();
    stats.peak_state_bytes = counters.peak_bytes.load();
    stats.cancelled = stats.tiles_done != stats.tiles;
    return stats;
}

}  // namespace

// The schedule is a dataflow wavefront: each tile is a task that waits only for the tiles to
// its left and below, not for a whole anti-diagonal, so workers never idle at a barrier while
// work is ready. It runs twice over the same task graph: the replayed tasks first, all of them
// done before any tile is computed, so that nothing is written to the sink while stored tiles
// are still being read (a damaged one then fails the run before it changes anything). A task
// of the second pass has no dependency on a task of the first: the taskwait covers them.
EngineStats compute_table(const EngineOptions& options, TileSink& sink) {
    check_sizes(options);
    const engine::SweepFn sweep = engine::select_sweep(options.kernel);
    EngineStats stats;
    stats.kernel = options.kernel == MexKernel::Auto ? best_mex_kernel() : options.kernel;
    stats.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    stats.tile =
        options.tile ? options.tile : default_tile(options.rows, options.cols, stats.threads);
    TileGrid grid(options.rows, options.cols, stats.tile, stats.threads);
    engine::expect_window_bytes(
        estimate_state_bytes(options.rows, options.cols, stats.tile, stats.threads));
    // The sink's set-up beside the engine's: an HDF5 writer's begin() creates its file, writes
    // its attributes and coordinates and starts its threads, a pyramid's creates its own file,
    // while the workers lay out their first tiles; only handing a tile over waits for it
    // (docs/benchmarks.md, "The fixed costs of a run with output"). A resumed run reads its
    // stored tiles from the file its sink reopens: it starts once the sink has.
    SinkStart sink_start(sink, TableShape{options.rows, options.cols, stats.tile});
    if (options.resume) sink_start.wait();
    engine::TableState state(options.rows, options.cols);
    TileWork work(options, sweep, sink, sink_start, grid, state);
    work.counters.cells_done = options.cells_done;
    const std::vector<engine::TileIndex> tasks = grid.tasks();
    const std::vector<char> replayed = grid.replay_plan(tasks, options.resume);
    const size_t tile_cells = uint64_t{stats.tile} * stats.tile;
    // Per worker a tile and, unless the sink reads mirrors from their tiles, a mirror. Left
    // uninitialised: a sweep writes every cell of its tile before anything reads it, and each
    // buffer's pages are first touched by its own worker, in parallel, not zeroed here by one
    // thread (5.5 ms at 16384^2 while the other cores waited).
    std::vector<std::unique_ptr<uint32_t[]>> buffers(2 * static_cast<size_t>(stats.threads));
    for (size_t k = 0; k < buffers.size(); ++k)
        if (k % 2 == 0 || !grid.symmetric)
            buffers[k] = std::make_unique_for_overwrite<uint32_t[]>(tile_cells);

    const auto start = std::chrono::steady_clock::now();
    const ScheduleStats::Stamp region_start = ScheduleStats::now_if_on();
    auto replay_end = start;
#pragma omp parallel num_threads(stats.threads)
#pragma omp single
    for (const bool replay_pass : {true, false}) {
        if (!replay_pass) {
#pragma omp taskwait
            replay_end = std::chrono::steady_clock::now();
        }
        for (const engine::TileIndex t : tasks) {
            if (static_cast<bool>(replayed[grid.task_of(t.i, t.j)]) != replay_pass) continue;
            char* left = grid.left_token(t.i, t.j);
            char* below = grid.below_token(t.i, t.j);
            char* row_lead = grid.row_lead_token(t.i, t.j);
            char* column_lead = grid.column_lead_token(t.i, t.j);
            char* band = grid.band_token(t.i, t.j);
            char* self = grid.token(t.i, t.j);
            // GCC does not count uses in depend
            (void)left, (void)below, (void)row_lead, (void)column_lead, (void)band, (void)self;
            // clang-format off
#pragma omp task firstprivate(t, replay_pass) \
    depend(in : left[0], below[0], row_lead[0], column_lead[0], band[0]) depend(out : self[0])
            // clang-format on
            {
                const size_t me = 2 * static_cast<size_t>(omp_get_thread_num());
                const ScheduleStats::Stamp task_start = ScheduleStats::now_if_on();
                work.run(t.i, t.j, buffers[me].get(), buffers[me + 1].get(), replay_pass);
                if (ScheduleStats::on()) table_schedule_stats().task(task_start);
            }
        }
    }
    if (ScheduleStats::on()) table_schedule_stats().region(region_start, stats.threads);
    const auto end = std::chrono::steady_clock::now();
    sink_start.wait();  // even where no tile reached the sink; its error first
    work.rethrow_failure();
    return finish_stats(stats, work.counters, grid, end - start, replay_end - start);
}

}  // namespace grundy
