// The entry points of a certification, the checks of its options, and its start (or resume)
// and end; the phases are in the files certification.hpp lists.
#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <string>

#include "base/file_sync.hpp"
#include "grundy/error.hpp"
#include "grundy/memory.hpp"
#include "io/periods_h5.hpp"
#include "strip/certify/certification.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/certify/memory_model.hpp"
#include "strip/certify/row_records.hpp"
#include "strip/ranks/rank_link.hpp"

namespace grundy {

void check_periods_options(const PeriodsOptions& o) {
    using strip::kMaxStripRows;
    if (o.rows == 0 || o.rows > kMaxStripRows)
        throw ArgumentError("{rows} must be between 1 and " + std::to_string(kMaxStripRows) +
                            ", got " + std::to_string(o.rows));
    if (o.max_cols > (uint64_t{1} << 40))
        throw ArgumentError("{max_cols} must be at most 2^40, got " + std::to_string(o.max_cols));
    if (o.threads < 0)
        throw ArgumentError("{threads} must be >= 0, got " + std::to_string(o.threads));
    if (!(o.checkpoint_every >= 0) || o.checkpoint_every > 1e9)
        throw ArgumentError("{checkpoint_every} must be a number of seconds between 0 and 1e9");
    if (o.ring_budget_bytes > (uint64_t{1} << 40))
        throw ArgumentError("{ring_memory} must be at most 2^40 bytes, got " +
                            std::to_string(o.ring_budget_bytes));
    if (o.resume && o.checkpoint.empty()) throw ArgumentError("{resume} needs {checkpoint} FILE");
    if (o.compact_checkpoints && o.checkpoint.empty())
        throw ArgumentError("{compact_checkpoints} needs {checkpoint} FILE");
    if (o.grow_ring && !(o.resume && o.compact_checkpoints))
        throw ArgumentError("{grow_ring} needs {resume} and {compact_checkpoints}");
    if (!mex_kernel_supported(o.kernel))
        throw ArgumentError(std::string("this CPU cannot run the ") + mex_kernel_name(o.kernel) +
                            " mex kernel ({kernel})");
}

void check_periods_memory(const PeriodsOptions& o) {
    // Phase 1's ring (every rank may come to hold all of it: rank 0 keeps the settled rows),
    // the settled rows' tables at a period as long as the ring's length L (which their periods
    // divide), the strip's windows and the program (memory_model.hpp). Measured: 4096 rows,
    // L = 786 432, peak RSS 8.97 to 9.36 GB over the pieces of a run, against 6.44 GB of ring
    // and 2.42 GB of tables.
    const uint64_t Y = o.rows;
    const uint64_t L = strip::speculative_ring(Y, o.ring_budget_bytes);
    const uint64_t ring = L * Y * 2;
    const uint64_t needed = ring + strip::settled_table_bytes(Y, L) + strip::strip_fixed_bytes(Y);
    const MemoryBudget budget = memory_budget(o.max_memory);
    require_memory(needed, budget,
                   "a strip of " + std::to_string(Y) + " rows with a ring of " +
                       format_bytes(static_cast<double>(ring)) + " and its settled rows' tables",
                   ring ? " (a smaller {ring_memory} trades memory for a second pass)" : "");
}

PeriodsResult certify_row_periods(const PeriodsOptions& o) {
    return strip::certify_row_periods(o, strip::RunHooks{}).periods;
}

namespace strip {

namespace fs = std::filesystem;

namespace {

// A file's folder must exist: a problem of the file rather than an option out of range (the
// module raises OSError for it), found now rather than after hours of sweeping.
void check_folder(const std::string& path, const char* option) {
    const fs::path dir = base::folder_of(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw ArgumentError(std::string("{") + option + "} " + ArgumentError::literal(path) +
                            ": directory " + ArgumentError::literal(dir.string()) +
                            " does not exist");
}

// The files a run writes: their folders exist, and an existing HDF5 output is replaced only
// with force, or by the run that left it stopped (resumed from its checkpoint).
void check_files(const PeriodsOptions& o) {
    if (!o.checkpoint.empty()) check_folder(o.checkpoint, "checkpoint");
    if (!o.csv.empty()) check_folder(o.csv, "csv");
    if (o.output.empty()) return;
    check_folder(o.output, "output");
    std::error_code ec;
    if (o.force || !fs::exists(o.output, ec)) return;
    const bool resuming = o.resume && fs::exists(o.checkpoint, ec);
    if (!resuming || !io::is_stopped_periods_file(o.output))
        throw ArgumentError("output file " + ArgumentError::literal(o.output) +
                            " exists (use {force} to overwrite it)");
}

}  // namespace

RunResult certify_row_periods(const PeriodsOptions& o, const RunHooks& hooks) {
    check_periods_options(o);
    // Each rank checks its own node's budget; all refuse if one does, or the others would wait
    // for it for ever.
    std::string refusal;
    try {
        check_periods_memory(o);
    } catch (const MemoryError& e) {
        refusal =
            (hooks.link ? "rank " + std::to_string(hooks.link->rank()) + ": " : "") + e.text();
    }
    if (hooks.link) refusal = hooks.link->first_error(refusal);
    if (!refusal.empty()) throw MemoryError(refusal);
    check_files(o);
    if (hooks.link && o.compact_checkpoints)
        throw ArgumentError(
            "{compact_checkpoints} is for one process: each rank's part keeps its ring");
    if (!hooks.link) return Certification(o, hooks).run();
    // Before the sweep the ranks agree on every refusal (Certification::load); after it starts, a
    // failure of one rank ends the job, or the others would wait for it for ever.
    Certification c(o, hooks);
    try {
        return c.run();
    } catch (const std::exception& e) {
        hooks.link->abort(
            "grundy periods: rank " + std::to_string(hooks.link->rank()) + ": error: " + e.what(),
            2);
        throw;  // not reached: abort ends the process
    }
}

Certification::Certification(const PeriodsOptions& o, const RunHooks& hooks)
    : o_(o),
      hooks_(hooks),
      Y_(o.rows),
      start_(Clock::now()),
      plan_(o.rows, hooks.link),
      strip_(std::make_unique<Strip>(o.rows, o.kernel, o.threads, 0, plan_.part())),
      control_(o, hooks, plan_.starts()) {
    result_.method =
        "Brent cycle detection on the relative strip state (row windows [x+1-2y, x+y], "
        "diagonal windows [x+2-2y, x+y-1]); candidates compared bit for bit in full, no "
        "hashing";
    p_.first_row = plan_.part().lo;
    p_.end_row = plan_.part().hi;
    if (o.resume && fs::exists(o.checkpoint)) {
        load();
        if (p_.seed) regrow_ring();  // and with grow_ring, a longer ring (else none is laid out)
        // The state resumed is the first seed of the compact checkpoints to come (ring_seed.cpp).
        if (o.compact_checkpoints && !p_.strip.words.empty() && p_.phase == 1)
            seeds_.push_back(std::make_shared<const StripSnapshot>(p_.strip));
        result_.resumed = true;
        if (o.progress && !p_.strip.words.empty())
            o.progress->checkpoint_column.store(p_.strip.column + 1);
    } else if (const uint64_t L = speculative_ring(Y_, o.ring_budget_bytes)) {
        start_ring(p_, L);
    }
    result_.kernel = strip_->kernel_name();
    result_.threads = strip_->threads();
    result_.state_bits = strip_->state_bits();
    result_.bands = strip_->bands();
    // The strip reports no row below StripBlock::first_reported_row (unrecorded_rows_).
    // In phase 2 the rows phase 1 certified have no ring (SearchState::rows_in_ring).
    recorder_ = [this](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
        record_reported(p_, x, y0, y1, g, record_errors_, false);
    };
    control_.after_checkpoint([this] { return write_files(false); });
}

// Resumes from the checkpoint: the file, or with ranks the manifest and this rank's part.
// With ranks, every rank refuses if any rank cannot load its part, with that rank's reason.
void Certification::load() {
    const uint64_t words = strip_->state_words();
    RankLink* const link = plan_.link();
    if (!link) {
        p_ = load_checkpoint(o_.checkpoint, Y_, words, 0, Y_);
        return;
    }
    std::string error;
    std::exception_ptr own;
    try {
        if (!is_manifest(o_.checkpoint))
            throw Error("checkpoint " + o_.checkpoint +
                        " is not the manifest of a run of MPI ranks: resume it with grundy "
                        "periods, without mpirun");
        const Manifest m = read_manifest(o_.checkpoint);
        const auto R = static_cast<uint64_t>(link->ranks());
        if (m.ranks != R)
            throw Error("checkpoint " + o_.checkpoint + " was written by " +
                        std::to_string(m.ranks) + " ranks, not " + std::to_string(R) +
                        ": resume it with mpirun -np " + std::to_string(m.ranks));
        if (m.rows != Y_)
            throw ArgumentError("checkpoint " + ArgumentError::literal(o_.checkpoint) +
                                " is for {rows} " + std::to_string(m.rows) + ", not " +
                                std::to_string(Y_));
        // The rows were cut again as they settled: each rank's are the manifest's.
        plan_.resume(m.starts);
        const std::string part = rank_part_path(o_.checkpoint, link->rank(), m.column);
        p_ = load_checkpoint(part, Y_, words, plan_.part().lo, plan_.part().hi);
        if (p_.strip.column + 1 != m.column && !(p_.strip.words.empty() && m.column == 0))
            throw Error("checkpoint part " + part + " is not at the manifest's column");
        control_.resumed_from(part, m.column);
    } catch (const Error& e) {
        error = e.what();
        own = std::current_exception();
    }
    error = link->first_error(error);
    if (own) std::rethrow_exception(own);
    if (!error.empty()) throw Error(error);
    if (strip_->first_row() != plan_.part().lo || strip_->end_row() != plan_.part().hi)
        strip_ = std::make_unique<Strip>(Y_, o_.kernel, o_.threads, 0, plan_.part());
}

// The result, and the run's files: every row once certified, else the rows certified so far.
RunResult Certification::finish(bool certified) {
    result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    result_.rows_asked = Y_;
    result_.phase = static_cast<int>(p_.phase);
    if (!certified) {
        add_final_rows();
        result_.rows = p_.final_rows;
    }
    const std::string error = write_files(certified);
    if (!error.empty()) {
        if (certified) throw Error(error);
        // Like a checkpoint that cannot be written: the run resumes from its checkpoint.
        result_.status = PeriodsResult::Status::Interrupted;
        if (result_.checkpoint_error.empty()) result_.checkpoint_error = error;
    }
    RankStats ranks = plan_.stats();
    return {std::move(result_), std::move(ranks)};
}

RunResult Certification::run() {
    if (p_.phase == 1) {
        if (!search_cycle()) return finish(false);
        if (p_.ring_len == 0 || p_.ring_len % p_.period != 0) start_second_pass();
    }
    result_.x0 = p_.x0;
    result_.period = p_.period;
    if (p_.phase == 2 && !second_pass()) return finish(false);
    collect_rows();
    result_.second_pass = p_.phase == 2;
    result_.ring_len = p_.ring_len;
    result_.status = PeriodsResult::Status::Certified;
    return finish(true);
}

}  // namespace strip
}  // namespace grundy
