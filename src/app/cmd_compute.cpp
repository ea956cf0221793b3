// grundy compute: fill a table and stream it into an HDF5 file (or discard it, for benchmarks).

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <memory>
#include <optional>

#include "app/command.hpp"
#include "app/compute_estimate.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "app/resources.hpp"
#include "app/signals.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_writer.hpp"
#include "grundy/memory.hpp"
#include "io/pyramid_file.hpp"
#include "view/pyramid.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>&) {
    // clang-format off
    o.add_options()
        ("rows", po::value<std::string>()->required(), "rows Y: the table holds y = 0..Y-1")
        ("cols", po::value<std::string>()->required(), "columns X: the table holds x = 0..X-1")
        ("output,o", po::value<std::string>(), "HDF5 file to write")
        ("no-output", po::bool_switch(), "compute and discard the table (benchmarks)")
        ("threads,t", po::value<std::string>(),
         "worker threads (default: OMP_NUM_THREADS, else all cores)")
        ("tile", po::value<std::string>(), "side of the square tiles (8..4096; default: 512, smaller for small tables)")
        ("compression", po::value<std::string>()->default_value("deflate"),
         "none | deflate[:LEVEL] | blosc[:CODEC[:LEVEL]]; deflate (shuffle + deflate level 1) is read "
         "everywhere; blosc (lz4, level 5) is faster and needs the Blosc filter plugin to read")
        ("kernel", po::value<std::string>()->default_value("auto"),
         "mex kernel: auto | summary | avx512 | avx2 | portable")
        ("force", po::bool_switch(), "overwrite an existing output file")
        ("no-pyramid", po::bool_switch(),
         "do not write F.h5.pyramid, the zoomed-out views of grundy view (grundy view builds "
         "it when it opens the table)")
        ("buffered-writes", po::bool_switch(),
         "write the table's chunks through the page cache (default: direct I/O, past the "
         "cache, where the file system allows it; the file is the same)")
        ("resume", po::bool_switch(),
         "continue the output file of a run stopped by SIGTERM/SIGINT (same --rows, --cols; "
         "--tile and --compression default to the file's; --force is ignored, so job files "
         "that overwrite can resume)")
        ("checkpoint-every", po::value<std::string>()->default_value("300"),
         "seconds between flushes of the file's chunk index, so that a killed run more often "
         "leaves a file --resume can continue (0: never)")
        ("quiet,q", po::bool_switch(), "no progress and no summary")
        ("estimate", po::bool_switch(),
         "print the memory the run would take (as checked before it starts) against the budget, "
         "and the disk its output would take, then exit without computing")
        ("test-pause-after-chunks", po::value<std::string>(),
         "testing aid: once this many chunks are written (and the file flushed), the process "
         "stops itself (SIGSTOP) until it is continued or signalled");
    // clang-format on
    add_progress_options(o);
    add_max_memory_option(o);
}

// Refuses up front what the memory budget cannot hold (the state, the buffers, the pyramid),
// saying which square would fit, and what the disk cannot. `left` is the share of the output
// still to be written (resuming: the missing tiles'), so that a job resubmitted to a disk still
// full is refused at once instead of replaying all its tiles first.
void check_fits(const EngineOptions& e, const std::string* output, bool pyramid,
                const Compression& compression, double left, const MemoryBudget& budget) {
    const uint64_t rows = e.rows, cols = e.cols;
    const auto [state, all] =
        compute_memory(rows, cols, e.tile, e.threads, output != nullptr, pyramid);
    if (budget.bytes && all > budget.bytes) {
        const uint64_t side =
            largest_fitting_square(budget.bytes, e.tile, e.threads, output != nullptr, pyramid);
        throw MemoryError("a " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " table needs about " + human_bytes(static_cast<double>(all)) +
                          " in all, " + human_bytes(static_cast<double>(state)) +
                          " of state; this machine has " +
                          human_bytes(static_cast<double>(budget.bytes)) + " (" + budget.source +
                          "): the largest square that fits at these settings is " +
                          std::to_string(side) + " x " + std::to_string(side));
    }
    if (!output) return;
    const double expected = left * output_bytes(rows, cols, compression);
    const uint64_t free = free_disk_bytes(*output);
    if (free && expected > static_cast<double>(free))
        throw Error(std::string(left < 1 ? "the rest of the output" : "the output") +
                    " needs about " + human_bytes(expected) + " but only " +
                    human_bytes(static_cast<double>(free)) + " are free for " + *output);
}

// What the options ask for, checked for their syntax and their combinations.
struct Request {
    EngineOptions engine;
    Compression compression;
    std::string output;  // empty: --no-output
    bool resume = false, force = false, quiet = false, no_pyramid = false;
    double checkpoint = 0;
    ProgressStyle progress;
    bool allocate_ahead = true;
    bool direct_writes = true;
    uint64_t pause_after_chunks = 0;
};

Request parse(const po::variables_map& v) {
    const uint64_t max_side = uint64_t{1} << 31;
    const uint64_t rows = count_option(v, "rows", 1, max_side);
    const uint64_t cols = count_option(v, "cols", 1, max_side);
    const bool no_output = v["no-output"].as<bool>();
    const bool has_output = v.count("output") > 0;
    if (no_output == has_output)
        throw Error(no_output ? "give either --output or --no-output, not both"
                              : "--output FILE.h5 is required (or --no-output to discard)");
    Request r;
    EngineOptions& engine = r.engine;
    engine.rows = rows;
    engine.cols = cols;
    engine.threads = parse_threads(v);
    engine.tile = v.count("tile") ? static_cast<uint32_t>(count_option(v, "tile", 8, 4096)) : 0;
    engine.kernel = parse_mex_kernel(v["kernel"].as<std::string>());
    r.compression = Compression::parse(v["compression"].as<std::string>());
    r.output = has_output ? v["output"].as<std::string>() : std::string();
    r.resume = v["resume"].as<bool>();
    if (r.resume && !has_output) throw Error("--resume needs --output F.h5, the file to continue");
    r.checkpoint = seconds_option(v, "checkpoint-every");
    r.progress = progress_style(seconds_option(v, "progress-every"));
    // GRUNDY_PREALLOCATE=0: no room allocated ahead of the chunks, for file systems whose
    // fallocate is emulated by writing (docs/cli.md, "Stopping and resuming"); the tests use it to
    // make a full disk strike inside HDF5.
    const char* preallocate = std::getenv("GRUNDY_PREALLOCATE");
    r.allocate_ahead = !(preallocate && std::string(preallocate) == "0");
    r.force = v["force"].as<bool>();
    r.quiet = v["quiet"].as<bool>();
    r.no_pyramid = v["no-pyramid"].as<bool>();
    r.direct_writes = !v["buffered-writes"].as<bool>();
    r.pause_after_chunks = v.count("test-pause-after-chunks")
                               ? count_option(v, "test-pause-after-chunks", 1, ~uint64_t{0})
                               : 0;
    return r;
}

// The output file, once the run is known to fit (a new one), or the stopped run's, opened
// first, read-only, for the check of what is left of it.
std::unique_ptr<Hdf5Writer> open_output(const Request& r) {
    if (r.output.empty()) return nullptr;
    return std::make_unique<Hdf5Writer>(Hdf5WriterOptions{
        .path = r.output,
        .force = r.force,
        .compression = r.compression,
        .resume = r.resume,
        .checkpoint_seconds = r.checkpoint,
        .preallocate = r.allocate_ahead,
        .direct_writes = r.direct_writes,
        .pause_after_chunks = r.pause_after_chunks,
        // The whole process stops, its threads included: a test then signals or kills it
        // at exactly this point.
        .paused = [] { ::kill(::getpid(), SIGSTOP); },
    });
}

// The table computed into `sink`, a second signal ending the process at once.
EngineStats compute(const Request& r, const po::variables_map& v, TileSink& sink, bool new_file) {
    // Not a resumed file: it holds the earlier runs' work, which a second signal must not
    // throw away; it is only left as it is.
    abort_on_second_signal(new_file ? r.output : std::string());
    ProgressReporter progress(progress_wanted(v["progress"].as<bool>(), r.quiet), r.progress,
                              r.engine.rows * r.engine.cols);
    EngineOptions engine = r.engine;
    engine.cells_done = &progress.counter();
    const EngineStats stats = compute_table(engine, sink);
    progress.stop();
    abort_on_second_signal(std::string());  // from now on the file is kept or completed
    return stats;
}

// A run stopped by a signal or a full disk: the file kept for --resume (exit status 75).
int stopped(const EngineStats& stats, Hdf5Writer* writer, const std::string& output) {
    // Nothing kept, nothing to resume: the run is simply lost (exit status 2).
    if (!writer)
        throw Error("interrupted by signal " + std::to_string(stop_signal()) + " after " +
                    std::to_string(stats.tiles_done) + " of " + std::to_string(stats.tiles) +
                    " tiles; nothing was kept (--no-output)");
    // A full disk stops the run like a signal; the file keeps every chunk written before.
    // If it cannot even be closed, stop() removes it and throws: exit status 2.
    writer->stop(stats);
    const std::string kept = "; " + output + " keeps them: ";
    if (const std::optional<std::string> full = writer->write_failure())
        std::cerr << "grundy compute: " << *full << "; stopped after " << writer->tiles_stored()
                  << " of " << stats.tiles << " tiles" << kept
                  << "free some space, then run the same command again with --resume" << std::endl;
    else
        std::cerr << "grundy compute: interrupted by signal " << stop_signal() << " after "
                  << stats.tiles_done << " of " << stats.tiles << " tiles" << kept
                  << "run the same command again with --resume to continue" << std::endl;
    return kExitResumable;
}

// The summary line on standard output.
void report(const EngineStats& stats, const Hdf5Writer* writer, const Request& r) {
    char line[512];
    const double rate = stats.seconds > 0 ? stats.cells / stats.seconds : 0.0;
    int n = std::snprintf(line, sizeof line,
                          "%llu cells in %.3f s, %s cells/s, %.2f ns/cell, %d threads, "
                          "tile %u, %s kernel, windows at most %s",
                          static_cast<unsigned long long>(stats.cells), stats.seconds,
                          human(rate).c_str(), rate > 0 ? 1e9 / rate * stats.threads : 0.0,
                          stats.threads, stats.tile, mex_kernel_name(stats.kernel),
                          human_bytes(static_cast<double>(stats.peak_state_bytes)).c_str());
    if (writer && n > 0 && static_cast<size_t>(n) < sizeof line) {
        const double file = static_cast<double>(writer->file_bytes());
        n += std::snprintf(line + n, sizeof line - n, ", %s written to %s, ratio %.2f",
                           human_bytes(file).c_str(), r.output.c_str(),
                           file > 0 ? writer->raw_bytes() / file : 0.0);
    }
    if (r.resume && n > 0 && static_cast<size_t>(n) < sizeof line)
        std::snprintf(line + n, sizeof line - n, "; resumed: %llu cells replayed in %.3f s",
                      static_cast<unsigned long long>(stats.cells_resumed), stats.replay_seconds);
    std::cout << line << std::endl;
}

int run(const po::variables_map& v, const Context&) {
    Request r = parse(v);
    // Signals stop the run from here on: before the handlers, a signal ends the process and
    // leaves no file (or, resuming, the file as it was).
    r.engine.cancel = &install_stop_handlers();
    // A new file is created only once the run is known to fit, so that a refused run leaves an
    // existing file as it was (--force); a stopped run's file is opened first, read-only, for
    // the check of what is left of it (and a refused resume leaves it as it was).
    const MemoryBudget budget = budget_option(v);
    const bool has_output = !r.output.empty();
    // The zoomed-out views of `grundy view`, built from the tiles as they go by, beside the
    // table (never inside it). Not on a resume: the tiles taken over do not come by again.
    const bool pyramid = has_output && !r.resume && !r.no_pyramid &&
                         view::top_level(r.engine.rows, r.engine.cols) >= view::kPyramidBase;
    if (v["estimate"].as<bool>()) {
        std::cout << compute_estimate(r.engine, has_output ? &r.output : nullptr, pyramid,
                                      r.compression, budget);
        return 0;
    }
    if (!r.resume)
        check_fits(r.engine, has_output ? &r.output : nullptr, pyramid, r.compression, 1.0, budget);
    const std::unique_ptr<Hdf5Writer> writer = open_output(r);
    if (r.resume) {
        // The run must be the stopped one; --tile and --compression, when not given, are the
        // file's. Only the missing tiles need room on the disk.
        writer->resume_into(r.engine, !v["compression"].defaulted());
        check_fits(r.engine, &r.output, false, writer->compression(), 1.0 - writer->stored_share(),
                   budget);
    }
    NullSink discard;
    TileSink& table_sink = writer ? static_cast<TileSink&>(*writer) : discard;
    // The pyramid is written as it is built, to SIDE.tmp until it is complete.
    const std::string side = io::pyramid_path(r.output);
    view::PyramidSink pyramid_sink(table_sink, pyramid ? side : std::string());
    TileSink& sink = pyramid ? static_cast<TileSink&>(pyramid_sink) : table_sink;
    const EngineStats stats = compute(r, v, sink, writer && !r.resume);
    // A full disk may strike the last chunks after the last tile: the run then stops too, its
    // file kept for --resume, never completed nor removed.
    if (writer && !stats.cancelled) writer->drain();
    if (stats.cancelled || (writer && writer->write_failure()))
        return stopped(stats, writer.get(), r.output);
    // Before the table says it is complete, so that a complete table has its pyramid; a stale
    // one of an earlier file is replaced (or removed, when none is written).
    if (writer) {
        if (pyramid) {
            // The pyramid's last rows and its fsync while the table is closed and synced.
            std::future<void> side_done =
                std::async(std::launch::async, [&] { pyramid_sink.finish(stats.threads); });
            writer->finish(stats, [&] { side_done.get(); });
        } else {
            std::remove(side.c_str());
            // A killed run's, being written.
            std::remove(io::PyramidFileWriter::temp_path(side).c_str());
            writer->finish(stats);
        }
    }
    if (!r.quiet) report(stats, writer.get(), r);
    return 0;
}

const CommandRegistrar registrar(
    {"compute", "fill the table g(x, y) for rows 0..Y-1, columns 0..X-1 into an HDF5 file",
     "--rows Y --cols X (--output F.h5 | --no-output) [options]",
     "Computes the Sprague-Grundy values of Wythoff's game for every position (x, y) with\n"
     "x < X and y < Y by a tiled anti-diagonal wavefront on all cores, and streams the tiles\n"
     "into F.h5: dataset /grundy of shape [Y, X] (f['grundy'][y, x] is g(x, y)), chunked,\n"
     "shuffle + deflate compressed, with the run's attributes and complete = 1 written last.\n"
     "Sizes may be written as 2^k.\n\n"
     "Memory: refused up front (exit status 2) when the estimate of the run (the windows the\n"
     "wavefront holds open, the tile and chunk buffers, the writer's queue, the pyramid) exceeds\n"
     "the budget: --max-memory, else the least of physical memory, this process's cgroup\n"
     "memory limit (Slurm's --mem) and RLIMIT_AS; the message names the largest square that\n"
     "fits.\n\n"
     "SIGTERM or SIGINT stops the run after the tiles in flight and keeps the file with\n"
     "complete = 0 and resumable = 1 (exit status 75); the same command with --resume then\n"
     "computes only the missing tiles, and the finished file is the one an uninterrupted run\n"
     "writes. A second signal stops at once and removes the file (not a resumed one). A full\n"
     "disk stops the run the same way (exit status 75): free some space, then --resume.",
     10, describe, run});

}  // namespace
}  // namespace grundy::app
