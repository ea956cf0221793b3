// Certification: one run of certify_row_periods, in its steps. It is cut into the search's
// phases and their parts, each in a file of its own:
//   certify.cpp          the entry points, the options' checks, the run's start (or resume) and end
//   cycle_search.cpp     phase 1: Brent's cycle search block by block, and the rows that settle
//   second_pass.cpp      phase 2: the second sweep when the ring cannot give the preperiods
//   collect_rows.cpp     each row's exact period, preperiod and block; with ranks, gathered
//   final_rows.cpp       the rows certified before the whole strip, written as the run goes
//   ring_seed.cpp        compact checkpoints: a seed state instead of the ring
//   run_control.cpp      the observer, stops and checkpoints after every block (RunControl)
//   search_progress.cpp  what the progress printer sees (report, SettleGrowth)
//
// How the parts fit together:
//
//
// Phase 1 is Brent's cycle detection: the state after column s is saved at s = 2Y, then again
// whenever the distance to it reaches the current window length (growing by 1/8 each time,
// where Brent doubles it: any unbounded growth finds the cycle); every later column's live state is
// compared with the saved one, word by word, highest rows first (a mismatch almost always shows in
// the first word, so a column costs O(1) for it). A match is a full comparison, so it is a proof;
// no hash is involved. It gives x0 = s and P = the least period of the state sequence. Saving
// only from column 2Y on keeps every window of a compared state at values >= 0, where the
// relative description is exact (strip.hpp).
//
// The exact preperiods need, for every row, the last x where d(x + L) != d(x) for an eventual
// period L of the row: no mismatch can lie beyond x0 (the certificate), so x + 1 for the last
// one is the row's exact preperiod, and it is the same for every eventual period (if
// d(x + p) != d(x) at some x where d is already L-periodic, with p | L, the mismatch would
// repeat every L columns for ever), in particular for the row's minimal period p, a divisor of
// P. Phase 1 keeps a ring of the last L = 3 * 2^k values per row from column 0 on; when P
// divides L, sweeping on to column x0 + L settles everything in one pass. Otherwise phase 2
// sweeps a fresh strip over columns 0..x0 + P with a ring of exactly P. Either way the ring ends
// holding a whole P-block from x0 + 1, on which the divisors of P are tried.
//
// Settled rows: every comparison with the saved state also says how many of the lowest rows match
// (the sub-strip of rows 0..m-1 evolves on its own, so its state repeating is a certificate for
// those rows, found by the same full comparison). From the next block on, such rows are no longer
// swept (Strip::settle) when the ring holds whole periods of them: the rows above get their sets
// from tables over one period, and the ring gives their values (`lambda` columns back) and their
// part of a state; the values are the same, so every result is too, and the sweep costs only the
// rows that have not repeated yet. A resumed run finds its settled rows again at the next match
// of their sub-strip.
//
// The strip is swept in blocks of columns by all its threads (strip.hpp); everything that needs
// the state after one particular column happens at a block's end: blocks end at every column
// whose state is saved (the first at 2Y, phase 2's x0 and x0 + P) and at the end of each phase,
// except Brent's later saves, which the bands make inside a block (StripBlock::save): they come
// ever more often than a block's end (every 1/8 of the distance swept), and the threads all
// meeting there left 16 threads idle a quarter of the time. The
// per-column work is done by the band threads themselves, each for its own rows: the ring and
// the mismatches (record_rows), and the comparison with the saved state (Strip::StripBlock).
// The driver then walks the block's columns in order with the same decisions as a sweep of one
// column at a time, so the results do not depend on the threads or on the block length.
//
// Ranks (grundy-mpi, rank_link.hpp): each rank runs this same driver over its own rows, with
// its own ring and its own part of every snapshot. The comparisons of a block are combined
// before the walk (Strip::advance_block), so every rank takes the same decisions at the same
// columns; the stop and checkpoint decisions are combined at each block's end; only rank 0's
// rows settle, and as they do the rows are cut again so that every rank keeps an equal share of
// the work (the run's RankPlan, ranks/rank_plan.hpp); rank 0 gathers the rows' results.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "grundy/periods.hpp"
#include "strip/certify/row_records.hpp"
#include "strip/certify/run_control.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/certify/search_progress.hpp"
#include "strip/certify/search_state.hpp"
#include "strip/ranks/rank_plan.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy::strip {

// The most rows of a strip: the ring's values g - x + 2y <= 3y fit 16 bits.
inline constexpr uint64_t kMaxStripRows = 16384;

class Certification {
  public:
    Certification(const PeriodsOptions& o, const RunHooks& hooks);
    RunResult run();

  private:
    using Clock = std::chrono::steady_clock;

    // certify.cpp: the run's start and end.
    void load();
    RunResult finish(bool certified);

    // cycle_search.cpp: phase 1 until the certificate and, with a ring that P divides, the
    // ring's tail past it. False when the run must return now (not certified within max_cols,
    // or interrupted).
    bool search_cycle();
    uint64_t first_saved() const { return 2 * Y_; }  // every window at values >= 0 from here
    uint64_t block_end(uint64_t next) const;
    std::vector<uint64_t> saves_in(uint64_t next, uint64_t end) const;
    bool walk_block(uint64_t next, uint64_t end, bool comparing, uint64_t& processed);
    uint64_t rows_repeating_in_ring(uint64_t x) const;
    bool note_settled(uint64_t m, uint64_t lambda, uint64_t x);
    void settle_rows(uint64_t end);
    void resettle();
    void show_settled();
    void note_repeat(uint64_t rows, uint64_t lambda);

    // ring_seed.cpp: compact checkpoints, their seeds kept as the run goes and the ring swept
    // again from one on resuming
    void keep_seed(uint64_t end);
    void drop_seeds();
    void regrow_ring();
    bool starts_ring(const StripSnapshot& seed) const;
    void sweep_ring(const StripSnapshot& seed);
    uint64_t longer_ring(uint64_t k) const;
    void lengthen_ring(const StripSnapshot& seed);
    void limit_tables();

    // second_pass.cpp
    void start_second_pass();
    bool second_pass();

    // collect_rows.cpp
    void collect_rows();
    void read_rows(uint64_t y0, uint64_t y1, uint64_t from, uint64_t length, RowPeriod* out) const;
    void read_group(uint64_t y0, uint64_t y1, uint64_t from, uint64_t length,
                    std::vector<uint16_t>& blocks, RowPeriod* out) const;
    uint64_t last_mismatch(uint64_t y, uint64_t period) const;
    void gather_rows();

    // final_rows.cpp: the rows certified before the whole strip is, kept as the run goes
    bool writes_files() const;
    uint64_t final_row_count(uint64_t next) const;
    void add_final_rows();
    void add_final_rows_at(uint64_t next);
    std::string write_files(bool certified);

    const PeriodsOptions& o_;
    const RunHooks& hooks_;
    const uint64_t Y_;
    const Clock::time_point start_;
    PeriodsResult result_;
    RankPlan plan_;  // this process's rows (with ranks: each rank's), cut again as they settle
    std::unique_ptr<Strip> strip_;
    SearchState p_;
    RunControl control_;
    RecordErrors record_errors_;
    StripRowsFn recorder_;
    std::vector<uint32_t> matched_rows_;
    std::vector<uint64_t> block_saves_;  // the columns of this block whose state is saved
    SettledRows settled_;                // the lowest rows whose sub-strip has repeated
    // The sub-strips that repeated in this block: (rows, the repeat's first column), in order.
    std::vector<std::pair<uint64_t, uint64_t>> block_settles_;
    uint64_t unrecorded_rows_ = 0;  // in this block (rows_repeating_in_ring)
    // compact checkpoints: states after block ends, half a ring length apart (ring_seed.cpp)
    std::deque<std::shared_ptr<const StripSnapshot>> seeds_;
    SettleGrowth growth_;
    // The longest period the settled rows' tables may take (0: any): with a ring laid out
    // again, what the memory leaves beside the rings (ring_seed.cpp).
    uint64_t table_period_limit_ = 0;
};

}  // namespace grundy::strip
