// grundy.table (a table into a numpy array, straight from the engine's tiles) and
// grundy.compute (a table into an HDF5 file, as `grundy compute`).
#include <omp.h>

#include <memory>

#include "grundy/hdf5_writer.hpp"
#include "grundy/memory.hpp"
#include "grundy/memory_table.hpp"
#include "python/common.hpp"

namespace grundy::python {
namespace {

constexpr uint64_t kMaxSide = uint64_t{1} << 31;  // as grundy compute

EngineOptions engine_options(py::handle rows, py::handle cols, py::handle threads, py::handle tile,
                             const std::string& kernel) {
    EngineOptions o;
    o.rows = whole_number(rows, "rows", 1, kMaxSide);
    o.cols = whole_number(cols, "cols", 1, kMaxSide);
    o.threads = threads_arg(threads);
    const uint64_t t = tile.is_none() ? 0 : whole_number(tile, "tile", 0, 4096);
    if (t != 0 && t < 8) throw py::value_error("tile must be between 8 and 4096 (0: default)");
    o.tile = static_cast<uint32_t>(t);
    o.kernel = parse_mex_kernel(kernel);
    return o;
}

// Raises MemoryError up front when the run (and `array_bytes` of result) does not fit in the
// budget: max_memory, else the least of physical memory, the cgroup limit and RLIMIT_AS.
void check_memory(const EngineOptions& o, bool output, uint64_t array_bytes,
                  py::handle max_memory) {
    const uint64_t budget =
        max_memory.is_none() ? 0 : whole_number(max_memory, "max_memory", 1, ~uint64_t{0});
    require_memory(estimate_compute_bytes(o.rows, o.cols, o.tile, o.threads, output) + array_bytes,
                   memory_budget(budget),
                   "a " + std::to_string(o.rows) + " x " + std::to_string(o.cols) + " table");
}

py::dict stats_dict(const EngineStats& s) {
    py::dict d;
    d["cells"] = s.cells;
    d["seconds"] = s.seconds;
    d["threads"] = s.threads;
    d["tile"] = s.tile;
    d["kernel"] = std::string(mex_kernel_name(s.kernel));
    d["peak_state_bytes"] = s.peak_state_bytes;
    d["tiles"] = s.tiles;
    d["cells_resumed"] = s.cells_resumed;
    d["replay_seconds"] = s.replay_seconds;
    return d;
}

// Runs the engine into `sink` with the GIL released, progress shown and Ctrl-C watched;
// `prepare`, when given, first, on the same terms (it stops early once `cancel` is set).
EngineStats run_engine(EngineOptions o, TileSink& sink, py::object progress,
                       std::optional<py::error_already_set>& interrupted,
                       const std::function<void(const std::atomic<bool>&)>& prepare = {}) {
    std::atomic<bool> cancel{false};
    std::atomic<uint64_t> cells{0};
    o.cancel = &cancel;
    o.cells_done = &cells;
    Progress bar(std::move(progress), o.rows * o.cols, "cells", "grundy");
    const EngineStats stats = run_released<EngineStats>(
        [&] {
            if (prepare) prepare(cancel);
            return compute_table(o, sink);
        },
        cancel, [&] { bar.update(cells.load()); }, interrupted);
    if (!interrupted) {
        try {
            bar.update(cells.load());
        } catch (py::error_already_set& e) {
            // Raised by a progress callback after the last tile: the run is whole, so the
            // caller finishes it and raises this afterwards.
            interrupted.emplace(std::move(e));
        }
    }
    bar.close();
    return stats;
}

template <class T>
py::array compute_into(const EngineOptions& o, py::object progress, EngineStats& stats) {
    // Uninitialised: every cell is written by exactly one tile.
    py::array_t<T> table = new_array<T>(o.rows, o.cols);
    T* const values = table.mutable_data();
    const uint64_t bytes = o.rows * o.cols * sizeof(T);
    ArraySink<T> sink(values, o.cols);
    std::optional<py::error_already_set> interrupted;
    // A big array's fresh pages made present first, in one pass on the engine's threads: tile
    // by tile, every 4 KiB page would fault in the middle of a task, while its tile's writes
    // wait (base/big_memory.hpp).
    const auto prefault = [&](const std::atomic<bool>& cancel) {
        if (bytes >= kBigArrayBytes)
            base::prefault(values, bytes, o.threads > 0 ? o.threads : omp_get_max_threads(),
                           &cancel);
    };
    stats = run_engine(o, sink, std::move(progress), interrupted, prefault);
    if (interrupted) throw std::move(*interrupted);
    return table;
}

py::object table(py::handle rows, py::handle cols, py::handle threads, py::handle tile,
                 const std::string& kernel, py::object progress, bool return_stats,
                 py::handle max_memory) {
    const EngineOptions o = engine_options(rows, cols, threads, tile, kernel);
    check_memory(o, false, o.rows * o.cols * value_bytes(o.rows, o.cols), max_memory);
    EngineStats stats;
    py::array array = value_bytes(o.rows, o.cols) == 2
                          ? compute_into<uint16_t>(o, std::move(progress), stats)
                          : compute_into<uint32_t>(o, std::move(progress), stats);
    if (return_stats) return py::make_tuple(array, stats_dict(stats));
    return array;
}

py::dict compute(py::handle path_object, py::handle rows, py::handle cols, py::handle threads,
                 py::handle tile, py::object compression_object, const std::string& kernel,
                 bool force, bool resume, double checkpoint_every, py::object progress,
                 py::handle max_memory) {
    const std::string path = path_arg(path_object, "path");
    EngineOptions o = engine_options(rows, cols, threads, tile, kernel);
    const bool compression_given = !compression_object.is_none();
    const Compression compression = compression_given
                                        ? Compression::parse(compression_object.cast<std::string>())
                                        : Compression{};
    if (!(checkpoint_every >= 0) || checkpoint_every > 1e9)
        throw py::value_error("checkpoint_every must be a number of seconds >= 0, not " +
                              std::to_string(checkpoint_every));

    const Hdf5Lock hdf5;
    // Resuming, the file is checked read-only: a refused resume leaves it as it was.
    const std::unique_ptr<Hdf5Writer> writer = file_call([&] {
        return std::make_unique<Hdf5Writer>(
            Hdf5WriterOptions{.path = path,
                              .force = force,
                              .compression = compression,
                              .resume = resume,
                              .checkpoint_seconds = checkpoint_every});
    });
    // The stopped run must be the one asked for; tile and compression, when not given, are
    // the file's.
    if (resume) writer->resume_into(o, compression_given);
    check_memory(o, true, 0, max_memory);
    std::optional<py::error_already_set> interrupted;
    const EngineStats stats =
        file_call([&] { return run_engine(o, *writer, std::move(progress), interrupted); });
    // A full disk may strike the last chunks after the last tile: the run stops then too.
    if (!stats.cancelled) file_call([&] { writer->drain(); });
    if (stats.cancelled || writer->write_failure()) {
        // The file keeps the finished tiles (complete = 0, resumable = 1): compute(...,
        // resume=True) continues it.
        file_call([&] { writer->stop(stats); });
        if (interrupted) throw std::move(*interrupted);
        const std::optional<std::string> full = writer->write_failure();
        if (!stats.cancelled && full)
            throw Error(*full + "; the run stopped with " + std::to_string(writer->tiles_stored()) +
                        " of " + std::to_string(stats.tiles) + " tiles written");
        throw Error("the run stopped after " + std::to_string(stats.tiles_done) + " of " +
                    std::to_string(stats.tiles) + " tiles");
    }
    file_call([&] { writer->finish(stats); });
    py::dict d = stats_dict(stats);
    d["path"] = path;
    d["compression"] = writer->compression().describe();
    d["raw_bytes"] = writer->raw_bytes();
    d["file_bytes"] = writer->file_bytes();
    d["resumed"] = resume;
    // Ctrl-C after the last tile: the file is complete, and the interrupt is still the user's.
    if (interrupted) throw std::move(*interrupted);
    return d;
}

}  // namespace

void bind_engine(py::module_& m) {
    m.def(
        "table", &table, py::arg("rows"), py::arg("cols"), py::kw_only(), py::arg("threads") = 0,
        py::arg("tile") = 0, py::arg("kernel") = "auto", py::arg("progress") = false,
        py::arg("return_stats") = false, py::arg("max_memory") = py::none(),
        R"(table(rows, cols, *, threads=0, tile=0, kernel="auto", progress=False, return_stats=False, max_memory=None)

Computes g(x, y) for y < rows and x < cols into a new numpy array t of shape (rows, cols),
t[y, x] = g(x, y): uint16 where every value fits 16 bits (rows + cols <= 65536), else uint32,
as in the files. The engine's tiles are written straight into the array (no copy of the table).

threads: worker threads, 0 for OMP_NUM_THREADS or all cores. tile: side of the square tiles
(8..4096), 0 to let the engine choose. kernel: auto, summary, avx512, avx2 or portable.
progress: True for a tqdm bar (or a line on stderr without tqdm), or a callable
progress(done_cells, total_cells). return_stats: return (array, figures) where figures is a
dict (cells, seconds, threads, tile, kernel, peak_state_bytes, ...).

The GIL is released while the engine runs; Ctrl-C stops it within a fraction of a second and
raises KeyboardInterrupt. Raises ValueError for bad sizes, MemoryError up front if the array and
the engine's state do not fit in max_memory bytes (default: the least of physical memory, this
process's cgroup memory limit and RLIMIT_AS).)");

    m.def(
        "compute", &compute, py::arg("path"), py::arg("rows"), py::arg("cols"), py::kw_only(),
        py::arg("threads") = 0, py::arg("tile") = 0, py::arg("compression") = py::none(),
        py::arg("kernel") = "auto", py::arg("force") = false, py::arg("resume") = false,
        py::arg("checkpoint_every") = 300.0, py::arg("progress") = false,
        py::arg("max_memory") = py::none(),
        R"(compute(path, rows, cols, *, threads=0, tile=0, compression=None, kernel="auto", force=False, resume=False, checkpoint_every=300.0, progress=False, max_memory=None)

Computes the rows x cols table into the HDF5 file `path`, exactly as `grundy compute`: dataset
/grundy [rows, cols], chunked, shuffle + deflate unless `compression` says otherwise ("none",
"deflate[:LEVEL]", "blosc[:CODEC[:LEVEL]]"), the run's attributes, and complete = 1 last.
Returns the run's figures as a dict: cells, seconds, threads, tile, kernel, peak_state_bytes,
tiles, cells_resumed, replay_seconds, path, compression, raw_bytes, file_bytes, resumed.

force: overwrite an existing file. resume: continue the file of a stopped run (same rows and
cols; tile and compression default to the file's). checkpoint_every: seconds between flushes
of the chunk index. progress: as for table().

Ctrl-C stops the run after the tiles in flight, keeps the file with complete = 0 and
resumable = 1 (resume=True continues it) and raises KeyboardInterrupt. Raises ValueError for
bad arguments, OSError (FileExistsError, FileNotFoundError, ...) for file problems, MemoryError
up front when the run does not fit in max_memory bytes (as for table()).)");
}

}  // namespace grundy::python
