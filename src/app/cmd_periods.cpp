// grundy periods: certified row periods of a strip (include/grundy/periods.hpp does the work).
//
// Exit status: 0 certified; 2 bad input, or a corrupt or mismatched checkpoint; 3 not certified
// within --max-cols columns; 75 (EX_TEMPFAIL) stopped by SIGTERM/SIGINT after saving a
// checkpoint, or by a checkpoint that could not be written (a full disk; the previous one is
// kept): resubmit the same command with --resume.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <thread>

#include "app/command.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "app/signals.hpp"
#include "grundy/error.hpp"
#include "grundy/periods.hpp"
#include "io/periods_files.hpp"
#include "io/row_periods_format.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/ranks/rank_link.hpp"

namespace grundy::app {
namespace {

constexpr int kExitNotCertified = 3;
constexpr int kExitCheckpointed = 75;

void describe(po::options_description& o, std::vector<std::string>&) {
    // clang-format off
    o.add_options()
        ("rows", po::value<std::string>()->required(), "rows Y: certify rows y = 0..Y-1")
        ("threads,t", po::value<std::string>(),
         "threads sweeping the strip, as tiles of bands of rows (default: OMP_NUM_THREADS, "
         "else all cores; at least 8 rows per band); the results are the same for any")
        ("csv", po::value<std::string>(),
         "CSV file: row,preperiod,period,periods_observed,certified,block (default: the same CSV "
         "on stdout)")
        ("no-blocks", po::bool_switch(),
         "leave the CSV's block column empty (blocks of long periods are large; the HDF5 "
         "output keeps them)")
        ("output,o", po::value<std::string>(), "HDF5 file with /analysis/row_periods")
        ("force", po::bool_switch(), "overwrite an existing HDF5 output file")
        ("checkpoint", po::value<std::string>(), "checkpoint file, written atomically")
        ("checkpoint-every", po::value<std::string>()->default_value("300"),
         "seconds between checkpoints (a decimal number)")
        ("resume", po::bool_switch(),
         "continue from --checkpoint if it exists (else start from column 0)")
        ("compact-checkpoints", po::bool_switch(),
         "checkpoints without the ring of recent values (tens of MB instead of Y x L x 2 "
         "bytes), holding instead the state of a column a ring length or two earlier, from "
         "which --resume sweeps the ring again (one process, phase 1)")
        ("grow-ring", po::bool_switch(),
         "with --resume and --compact-checkpoints: lay the ring out again, from the "
         "checkpoint's seed on, as long as --ring-memory allows for the rows not yet "
         "certified, so that rows whose period outgrew the ring can settle (resuming other "
         "checkpoints, it changes nothing)")
        ("max-cols", po::value<std::string>(),
         "give up (exit status 3) if the state has not repeated within this many columns")
        ("ring-memory", po::value<std::string>()->default_value("2^30"),
         "bytes for phase 1's ring (8e9, 8G, 8GiB, 2^33: README, \"Sizes\") of recent values, trading memory for time: a ring of "
         "3*2^k >= P columns (Y x P x 2 bytes or more; 1024 rows: 805 MB) gives the exact "
         "preperiods in one pass and lets the rows that have repeated stop being swept "
         "(their values come from it; tables of their column and diagonal sets over one "
         "period, up to 2 x P x 3Y/8 bytes, come on top); a smaller one means a second pass "
         "from column 0 and every row swept to the end; 0: no ring")
        ("kernel", po::value<std::string>()->default_value("auto"),
         "mex kernel: auto | summary | avx512 | avx2 | portable")
        ("quiet,q", po::bool_switch(), "no progress and no summary")
        ("test-delay-us", po::value<std::string>(),
         "testing aid: sleep this many microseconds after every block of columns")
        ("test-save-delay-us", po::value<std::string>(),
         "testing aid: sleep this many microseconds in every checkpoint save, its bytes "
         "written but not yet in place");
    // clang-format on
    add_progress_options(o);
    add_max_memory_option(o);
}

// The exit status of a finished run (in grundy-mpi, every rank's: they share the result's status).
int exit_status(const PeriodsResult& r) {
    switch (r.status) {
        case PeriodsResult::Status::Certified:
            return 0;
        case PeriodsResult::Status::NotCertified:
            return kExitNotCertified;
        default:  // stopped: resumable if a checkpoint holds the progress or the disk filled
            return r.checkpoint_saved || !r.checkpoint_error.empty() ? kExitCheckpointed : 2;
    }
}

// --test-delay-us: a sleep of that many microseconds after every block (the blocks are the
// production ones), cut short by a stop signal, so that tests can stop a run between any two
// blocks: with checkpoints due more often than the sleep, each block ends with one.
std::function<void(uint64_t)> test_delay(const po::variables_map& v,
                                         const std::atomic<bool>& stop) {
    const uint64_t us = count_option(v, "test-delay-us", 0, 10000000);
    return [us, &stop](uint64_t) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
        while (!stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::microseconds(std::min<uint64_t>(us, 1000)));
    };
}

// A stopped run's rows: how many are certified, and where they went.
void report_stop(const PeriodsResult& r, const PeriodsOptions& o) {
    const uint64_t k = r.rows.size();
    std::string where = o.csv.empty() ? "standard output" : o.csv;
    if (!o.output.empty()) where += " and " + o.output;
    if (k == 0)
        std::fprintf(stderr, "no row settled yet (phase %d, column %llu)\n", r.phase,
                     static_cast<unsigned long long>(r.column));
    else
        std::fprintf(stderr,
                     "rows 0..%llu of %llu certified so far (phase %d, column %llu), written to "
                     "%s; the others are not (certified 0)\n",
                     static_cast<unsigned long long>(k - 1),
                     static_cast<unsigned long long>(r.rows_asked), r.phase,
                     static_cast<unsigned long long>(r.column), where.c_str());
    if (r.phase == 1 && r.repeating_rows > k)
        std::fprintf(stderr, "%s: %s\n",
                     repeating_past_ring(k, r.repeating_rows - 1, r.repeating_period,
                                         r.repeating_tables_only)
                         .c_str(),
                     r.repeating_tables_only ? "they are swept to the certificate"
                                             : "phase 2 will give their preperiods");
}

// The ranks' line of the summary: what they sent, how often rows changed hands, and how long
// each waited (the figure to look at when ranks are slower than threads).
void print_ranks(const PeriodsResult& r, const strip::RankStats& ranks) {
    std::string waits;
    for (const double w : ranks.wait_seconds)
        waits += (waits.empty() ? "" : ", ") + std::to_string(w).substr(0, 5);
    std::fprintf(stderr,
                 "%d MPI ranks of %d thread%s each: %.3g MB sent between them; rows "
                 "cut again %llu times as they settled (%llu rows moved); seconds each "
                 "rank waited for its neighbour's columns or the others' blocks: %s\n",
                 ranks.ranks, r.threads, r.threads == 1 ? "" : "s",
                 static_cast<double>(ranks.bytes_sent) / 1e6,
                 static_cast<unsigned long long>(ranks.rebalances),
                 static_cast<unsigned long long>(ranks.rows_moved), waits.c_str());
}

// The options as the library takes them; ranges are the library's to check
// (check_periods_options), here only the syntax.
PeriodsOptions parse(const po::variables_map& v) {
    PeriodsOptions o;
    o.rows = count_option(v, "rows", 0, ~uint64_t{0});
    o.threads = parse_threads(v);
    if (o.threads == 0) o.threads = omp_get_max_threads();
    o.kernel = parse_mex_kernel(v["kernel"].as<std::string>());
    if (v.count("max-cols")) o.max_cols = count_option(v, "max-cols", 1, ~uint64_t{0});
    if (v.count("checkpoint")) o.checkpoint = v["checkpoint"].as<std::string>();
    o.checkpoint_every = seconds_option(v, "checkpoint-every");
    o.resume = v["resume"].as<bool>();
    o.compact_checkpoints = v["compact-checkpoints"].as<bool>();
    o.grow_ring = v["grow-ring"].as<bool>();
    o.ring_budget_bytes = size_option(v, "ring-memory");
    if (v.count("max-memory")) o.max_memory = size_option(v, "max-memory", 1);
    // The library writes the files (after every checkpoint, and at the end however the run
    // ends) and checks them before it starts: their folders, an existing output.
    if (v.count("csv")) o.csv = v["csv"].as<std::string>();
    if (v.count("output")) o.output = v["output"].as<std::string>();
    o.force = v["force"].as<bool>();
    o.csv_blocks = !v["no-blocks"].as<bool>();
    // Blocks take 2 bytes per period column and row: keep them only where they are written.
    o.keep_blocks = o.csv_blocks || !o.output.empty();
    return o;
}

// The run's hooks: grundy-mpi's link (every rank sweeps its rows) and the testing aids.
strip::RunHooks hooks_of(const po::variables_map& v, const Context& context,
                         const std::atomic<bool>& stop) {
    strip::RunHooks hooks;
    hooks.link = context.link;
    if (v.count("test-delay-us")) hooks.after_block = test_delay(v, stop);
    if (v.count("test-save-delay-us")) {
        // A save held half done, so that a test can kill the run there (the earlier checkpoint
        // must survive).
        const auto us =
            std::chrono::microseconds(count_option(v, "test-save-delay-us", 0, 60000000));
        hooks.before_commit = [us] { std::this_thread::sleep_for(us); };
    }
    return hooks;
}

// An interrupted run: why, and how to continue it (exit status 75), or an error when nothing
// can continue it.
int report_interrupted(const PeriodsResult& r, const PeriodsOptions& o) {
    if (!r.checkpoint_error.empty()) {
        std::cerr << r.checkpoint_error << "; "
                  << (std::filesystem::exists(o.checkpoint)
                          ? "the previous checkpoint " + o.checkpoint + " is intact"
                          : "no checkpoint was saved")
                  << ": free some space, then run the same command again with --resume "
                     "(exit status 75)"
                  << std::endl;
        return kExitCheckpointed;
    }
    if (!r.checkpoint_saved)
        throw Error("interrupted by signal " + std::to_string(stop_signal()) +
                    "; no checkpoint saved (no --checkpoint given): --resume cannot continue it");
    std::cerr << "interrupted by signal " << stop_signal() << ": checkpoint saved to "
              << o.checkpoint << "; run again with --resume (exit status 75)" << std::endl;
    return kExitCheckpointed;
}

// A certified run's summary line.
void report_certified(const PeriodsResult& r, const PeriodsOptions& o) {
    uint64_t max_pre = 0, max_per = 0;
    for (const auto& row : r.rows) {
        max_pre = std::max(max_pre, row.periodicity->preperiod);
        max_per = std::max(max_per, row.periodicity->period);
    }
    std::fprintf(
        stderr,
        "certified rows 0..%llu: state after column %llu repeats after P = %llu "
        "columns (%llu state bits, compared in full); max preperiod %llu, max "
        "period %llu; %llu columns swept in %.3f s%s, %d thread%s (%llu bands of rows), %s "
        "kernel, %s\n",
        static_cast<unsigned long long>(o.rows - 1), static_cast<unsigned long long>(r.x0),
        static_cast<unsigned long long>(r.period), static_cast<unsigned long long>(r.state_bits),
        static_cast<unsigned long long>(max_pre), static_cast<unsigned long long>(max_per),
        static_cast<unsigned long long>(r.columns_swept), r.seconds,
        r.resumed ? " (this part, resumed)" : "", r.threads, r.threads == 1 ? "" : "s",
        static_cast<unsigned long long>(r.bands), r.kernel.c_str(),
        r.second_pass ? "second pass needed" : "preperiods from the first pass");
}

// What rank 0 (or the one process) shows of a finished run, and its exit status.
int report(const strip::RunResult& run, const PeriodsOptions& o, bool quiet, bool ranks) {
    const PeriodsResult& r = run.periods;
    // Without --csv the rows go to standard output, a stopped run's certified ones too.
    if (o.csv.empty()) {
        for (const auto& c : periods_comment(r, !o.checkpoint.empty()))
            std::cout << "# " << c << "\n";
        write_row_periods_csv(std::cout, listed_rows(r), o.csv_blocks);
    }
    if (r.status != PeriodsResult::Status::Certified && !quiet) report_stop(r, o);
    if (r.status == PeriodsResult::Status::Interrupted) return report_interrupted(r, o);
    if (r.status == PeriodsResult::Status::NotCertified) {
        std::fprintf(stderr, "not certified within %llu columns (%llu columns swept in %.3f s)\n",
                     static_cast<unsigned long long>(o.max_cols),
                     static_cast<unsigned long long>(r.columns_swept), r.seconds);
        if (ranks && !quiet) print_ranks(r, run.ranks);
        return kExitNotCertified;
    }
    if (!quiet) {
        report_certified(r, o);
        if (ranks) print_ranks(r, run.ranks);
    }
    return 0;
}

int run(const po::variables_map& v, const Context& context) {
    PeriodsOptions o = parse(v);
    const bool quiet = v["quiet"].as<bool>();
    const ProgressStyle style = progress_style(seconds_option(v, "progress-every"));
    check_periods_options(o);
    o.cancel = &install_stop_handlers();
    const strip::RunHooks hooks = hooks_of(v, context, *o.cancel);
    // grundy-mpi: rank 0 shows the progress and writes the results.
    const bool writer = !hooks.link || hooks.link->rank() == 0;
    PeriodsProgress progress;
    if (writer) o.progress = &progress;
    ProgressReporter line(writer && progress_wanted(v["progress"].as<bool>(), quiet), style,
                          periods_line(progress, o.rows));
    const strip::RunResult result = strip::certify_row_periods(o, hooks);
    line.stop();
    if (!writer) return exit_status(result.periods);  // rank 0 says why
    return report(result, o, quiet, hooks.link != nullptr);
}

const CommandRegistrar registrar(
    {"periods", "certified row periods of rows 0..Y-1, streaming a strip in O(Y^2) memory",
     "--rows Y [--csv F.csv] [--output F.h5] [--checkpoint F [--resume]] [options]",
     "Sweeps the strip of rows 0..Y-1 column by column, keeping only windows of its sets, until\n"
     "its state relative to the column repeats: state(x0) == state(x0 + P), compared bit for bit,\n"
     "proves g(x + P, y) = g(x, y) + P for all x > x0 (Landman's finite-state argument). A ring\n"
     "of recent values kept during the sweep (or, if P does not divide its length, a second pass)\n"
     "gives each row's exact minimal period and preperiod (of d(x) = g(x, y) - x) and the block\n"
     "of g - x + 2y over one period from the preperiod. Memory does not grow with the length.\n"
     "Exit status: 0 certified; 2 bad input or a corrupt/mismatched checkpoint; 3 not certified\n"
     "within --max-cols; 75 stopped by SIGTERM/SIGINT with a checkpoint saved, or by a\n"
     "checkpoint that could not be written (a full disk: the previous one is kept); rerun with\n"
     "--resume. --resume without an existing checkpoint file starts from column 0.\n"
     "Rows settle (their sub-strip repeats) long before the whole strip does: however the run\n"
     "ends, and after every checkpoint, the CSV and HDF5 output list the rows certified so far,\n"
     "the others undetermined (certified 0), and say how far the run got.",
     60, describe, run});

}  // namespace
}  // namespace grundy::app
