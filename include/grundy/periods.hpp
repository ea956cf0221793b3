// Certified row periods of Wythoff's table: rows 0..Y-1 swept as a strip, column by column, in
// O(Y^2) bits, until the strip's relative state repeats (Landman's finite-state argument,
// src/DESIGN.md 1.7). The repetition state(x0) == state(x0 + P), confirmed by comparing both states
// in full, proves g(x + P, y) = g(x, y) + P for every x > x0 and y < Y; a second deterministic
// pass from column 0 then gives each row's exact minimal period and exact preperiod.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/row_period.hpp"

namespace grundy {

// Row y's result is a RowPeriod (grundy/row_period.hpp) with certified true. Its preperiod and
// period follow the criterion of periodicity.hpp applied to d(x) = g(x, y) - x, but exactly and
// for ever: the least p with d(x + p) = d(x) for all large x, and the least x0 from which that
// holds.

// What a running certification is doing, for a progress printer on another thread.
struct PeriodsProgress {
    std::atomic<int> phase{0};              // 1: cycle search, 2: preperiod pass
    std::atomic<uint64_t> column{0};        // columns swept in this phase
    std::atomic<uint64_t> target{0};        // columns this phase needs (0: unknown)
    std::atomic<uint64_t> saved_column{0};  // phase 1: the column whose state is compared
    std::atomic<uint64_t> state_bits{0};    // bits of one relative state
    std::atomic<uint64_t> window_bytes{0};  // storage of the live windows
    // phase 1: rows 0..settled_rows-1 have repeated (filled from the ring, no mex), and where
    // the certificate is expected: the column at which rows settle, fitted as c * rows^b over
    // the settled sub-strips seen so far and extrapolated to all rows (0: too few to fit)
    std::atomic<uint64_t> settled_rows{0};
    std::atomic<uint64_t> expected_x0{0};
    std::atomic<double> settle_exponent{0};  // b of that fit
    // phase 1: rows 0..repeating_rows-1, more than have settled, repeat with repeating_period,
    // of which the ring's length is not a multiple: those rows cannot settle (they are swept to
    // the certificate), and phase 2 gives their preperiods (0: none seen)
    std::atomic<uint64_t> repeating_rows{0};
    std::atomic<uint64_t> repeating_period{0};
    // ... or the ring holds that period but the memory leaves no room for the settled rows'
    // tables of it (PeriodsOptions::grow_ring): the rows are swept to the certificate
    std::atomic<bool> repeating_tables_only{false};
    // columns 0..checkpoint_column-1 are in the last checkpoint this process wrote or resumed
    // from (0: none)
    std::atomic<uint64_t> checkpoint_column{0};
};

struct PeriodsOptions {
    uint64_t rows = 0;      // Y: rows 0..Y-1
    uint64_t max_cols = 0;  // give up after this many columns of search; 0: never
    MexKernel kernel = MexKernel::Auto;
    // Threads sweeping the strip, as a pipeline of bands of rows (the results do not depend on
    // it); 0: one. Narrow strips use fewer (at least 8 rows per thread).
    int threads = 1;
    std::string checkpoint;           // file for checkpoints; empty: none
    double checkpoint_every = 300.0;  // seconds between checkpoints
    bool resume = false;              // continue from `checkpoint` if it exists
    // Checkpoints without the ring (Y x L x 2 bytes: 9.7 GB at 6144 rows) but with the state of
    // a column at least a ring length earlier, from which a resumed run sweeps the ring again
    // (one or two ring lengths of columns: a minute or two at 6144 rows). One process, phase 1;
    // other checkpoints keep the ring.
    bool compact_checkpoints = false;
    // On resuming a compact checkpoint in phase 1: lay the ring out again, as long as
    // ring_budget_bytes allows for the rows not yet certified (the certified ones keep theirs),
    // so that rows whose period has grown past the ring can settle. The longer ring starts at the
    // checkpoint's seed: a row with no mismatch after it has no exact preperiod from this run,
    // which then stops with an error (resume from an earlier checkpoint). Resuming any other
    // checkpoint (phase 2, one that holds its ring, one already lengthened), it changes nothing,
    // so a job may keep it on.
    bool grow_ring = false;
    const std::atomic<bool>* cancel = nullptr;  // when set: checkpoint and return Interrupted
    PeriodsProgress* progress = nullptr;
    // Memory for the per-row ring of phase 1 (which spares the second pass when the strip's
    // period divides its length); 0: no ring, always two passes.
    uint64_t ring_budget_bytes = uint64_t{1} << 30;
    // The memory budget (grundy/memory.hpp); 0: the least of physical memory, the cgroup limit
    // and RLIMIT_AS. A run whose ring and windows do not fit is refused with MemoryError.
    uint64_t max_memory = 0;
    // Whether to keep the blocks: the sum of the periods in values of 4 bytes (RowPeriod::block),
    // which grows much faster than the strip's state.
    bool keep_blocks = true;
    // Files the rows go to (empty: none), each written whole or not at all: when the run ends,
    // however it ends, and after every checkpoint. Every file lists all the rows asked for;
    // rows not certified yet are left undetermined (certified 0, no period), and the file says
    // how far the run got (write_periods_files). A run resumed from its checkpoint may replace
    // its own stopped HDF5 output; any other existing `output` needs `force`.
    std::string csv;         // the row-periods CSV
    bool csv_blocks = true;  // the CSV's block column filled (needs keep_blocks)
    std::string output;      // HDF5 with /analysis/row_periods
    bool force = false;      // overwrite an existing `output`
};

struct PeriodsResult {
    enum class Status { Certified, NotCertified, Interrupted } status = Status::Certified;
    uint64_t x0 = 0;      // state after column x0 ...
    uint64_t period = 0;  // ... equals the state after column x0 + period (least such period)
    std::string method;   // how the states were compared
    // Certified, exact for ever: every row when the status is Certified. A run that stopped
    // (NotCertified, Interrupted) has the rows 0..k-1 that settled, certified all the same
    // (src/DESIGN.md 1.7: rows 0..k-1 form a strip of their own); in grundy-mpi, on rank 0.
    std::vector<RowPeriod> rows;
    uint64_t rows_asked = 0;     // Y
    int phase = 1;               // the phase the run ended in (1: cycle search, 2: preperiods)
    uint64_t column = 0;         // how far it got: columns 0..column-1 of that phase swept
    uint64_t columns_swept = 0;  // both phases, this process only
    uint64_t state_bits = 0;
    uint64_t checkpoints_written = 0;
    bool checkpoint_saved = false;  // Interrupted: whether a checkpoint holds the progress
    // Interrupted because a checkpoint could not be written (a full disk): why. The previous
    // checkpoint, if any, is intact, and --resume continues from it.
    std::string checkpoint_error;
    bool resumed = false;
    bool second_pass = false;  // whether phase 2 was needed (P did not divide the ring)
    uint64_t ring_len = 0;     // columns per row in the ring that gave the preperiods
    // A run stopped in phase 1: rows 0..repeating_rows-1, more than are certified, were seen to
    // repeat with repeating_period, which the ring cannot hold (0: none seen); the rows above
    // the certified ones are not certified until phase 2 gives their preperiods.
    uint64_t repeating_rows = 0, repeating_period = 0;
    bool repeating_tables_only = false;  // the ring holds the period, the tables would not
    std::string kernel;
    int threads = 1;     // threads that swept the strip (with ranks: in each rank)
    uint64_t bands = 1;  // bands of rows they swept as tiles
    double seconds = 0.0;
};

// Throws grundy::ArgumentError for options out of range (rows 1..16384, max_cols and the ring's
// bytes up to 2^40, checkpoint_every 0..1e9 seconds, resume without a checkpoint, a kernel this
// CPU cannot run): the one check of a certified run's
// options, which the CLI and the Python module leave to it.
void check_periods_options(const PeriodsOptions& options);

// Throws grundy::MemoryError when the run would not fit the memory budget (max_memory, else
// grundy::memory_budget()): phase 1's ring, the settled rows' tables over one period of the
// ring, the strip's windows and saved states and the program. certify_row_periods checks it
// before it allocates anything, on every rank of an MPI job, which all refuse if one does.
void check_periods_memory(const PeriodsOptions& options);

// Checks the options (check_periods_options) and certifies. Throws grundy::Error for a checkpoint
// in a missing directory and for a corrupt or mismatched checkpoint.
PeriodsResult certify_row_periods(const PeriodsOptions& options);

// "rows A..B repeat with period P, which the ring cannot hold" (or "whose tables the memory
// cannot hold"): the news of a run whose period outgrew its ring (or the memory for the settled
// rows' tables), in the progress line, the stopped run's files and its report.
std::string repeating_past_ring(uint64_t first_row, uint64_t last_row, uint64_t period,
                                bool tables_only = false);

// What a stopped run's rows seen to repeat (PeriodsResult::repeating_rows) were too long for:
// "ring", "tables" (repeating_tables_only), or nullptr where no row above the certified ones
// was seen to repeat in phase 1. The CSV's comment, the HDF5 output and the module say the same.
const char* repeating_too_long_for(const PeriodsResult& result);

}  // namespace grundy
