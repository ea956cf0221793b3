// Certified row periods: the cycle search over the strip's relative state (phase 1), the exact
// per-row pass (phase 2), and the checkpoints that let either phase stop and resume anywhere.
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
// whose state is saved (Brent's, phase 2's x0 and x0 + P) and at the end of each phase. The
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
// the work (rebalance, rank_moves.hpp); rank 0 gathers the rows' results.
#include "grundy/periods.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <span>
#include <thread>

#include "grundy/error.hpp"
#include "strip/checkpoint.hpp"
#include "strip/rank_link.hpp"
#include "strip/rank_moves.hpp"
#include "strip/row_records.hpp"
#include "strip/strip.hpp"
#include "strip/test_hooks.hpp"

namespace grundy {
namespace {

using namespace grundy::strip;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr uint64_t kMaxRows = 16384;  // the ring's values g - x + 2y <= 3y fit 16 bits
// Columns per block of the threaded sweep: the threads meet at a block's end, where the
// pipeline drains (up to kStripLag columns of the lowest band's lead), so a block should be much
// longer than that; and it is the granularity of checkpoints and progress (a few ms at most).
constexpr uint64_t kBlockColumns = 65536;
// With ranks, the rows are cut again once the busiest rank has this much more than its share of
// the work per column: each cut moves rows' rings between ranks, so not for every settled row.
constexpr double kRebalanceAbove = 1.05;
// ... and looked at whenever rows settle, and at least every this many blocks (RankLoad's
// measurements change the cut too).
constexpr uint64_t kLookEveryBlocks = 8;
// Rows whose blocks collect_rows takes from the ring in one pass.
constexpr uint64_t kCollectRows = 64;

// --- the two phases ----------------------------------------------------------------------

class Runner {
  public:
    // `starts`: with ranks, each rank's rows as they are at each checkpoint.
    Runner(const PeriodsOptions& o, strip::RankLink* link, const std::vector<uint64_t>& starts)
        : o_(o), link_(link), starts_(starts), last_checkpoint_(Clock::now()) {}

    // The part this process resumed from (a run of ranks removes it once a newer one is saved).
    void resumed_from(std::string part) { part_ = std::move(part); }

    // Called after every block of `columns` columns: sleeps for tests, saves on time or on a
    // stop signal (taking the strip's snapshot only then: it costs O(Y^2)). Returns true when
    // the run must stop. With ranks, the decision is rank 0's clock and any rank's signal.
    bool after_block(SearchState& p, const Strip& strip, PeriodsResult& result, uint64_t columns) {
        // One sleep per column, as the tests' timings were set for (a sleep overshoots).
        for (uint64_t i = 0; strip::test_delay_us.load() && i < columns; ++i)
            std::this_thread::sleep_for(std::chrono::microseconds(strip::test_delay_us.load()));
        bool stop = o_.cancel && o_.cancel->load(std::memory_order_relaxed);
        bool due = !o_.checkpoint.empty() &&
                   std::chrono::duration<double>(Clock::now() - last_checkpoint_).count() >=
                       o_.checkpoint_every;
        if (link_) {
            const uint64_t wish = (stop ? 1 : 0) | (due && link_->rank() == 0 ? 2 : 0);
            const uint64_t agreed = link_->max_of(wish);
            stop = agreed & 1;
            due = agreed & 2;
        }
        if (stop) result.status = PeriodsResult::Status::Interrupted;
        if (o_.checkpoint.empty() || !(stop || due)) return stop;
        strip.snapshot(p.strip);
        const std::string error = save(p, strip.columns_done());
        if (!error.empty()) {
            // A full disk stops the run like a signal, keeping the previous checkpoint.
            result.status = PeriodsResult::Status::Interrupted;
            result.checkpoint_error = error;
            return true;
        }
        ++result.checkpoints_written;
        last_checkpoint_ = Clock::now();
        result.checkpoint_saved = stop;
        return stop;
    }

  private:
    // Writes the checkpoint; returns why it could not be, or "" (with ranks: any rank's reason).
    std::string save(const SearchState& p, uint64_t column) {
        if (!link_) {
            try {
                write_checkpoint(o_.checkpoint, p, o_.rows);
            } catch (const Error& e) {
                return e.what();
            }
            return "";
        }
        const std::string part = rank_part_path(o_.checkpoint, link_->rank(), column);
        std::string error;
        try {
            write_checkpoint(part, p, o_.rows);
        } catch (const Error& e) {
            error = e.what();
        }
        error = link_->first_error(error);
        if (error.empty() && link_->rank() == 0) {
            try {
                write_manifest(o_.checkpoint,
                               {o_.rows, static_cast<uint64_t>(link_->ranks()), column, starts_});
            } catch (const Error& e) {
                error = e.what();
            }
        }
        error = link_->first_error(error);
        std::error_code ec;
        if (!error.empty()) {
            if (part != part_) fs::remove(part, ec);
            return error;
        }
        if (!part_.empty() && part_ != part) fs::remove(part_, ec);
        part_ = part;
        return "";
    }

    const PeriodsOptions& o_;
    strip::RankLink* link_;
    const std::vector<uint64_t>& starts_;
    Clock::time_point last_checkpoint_;
    std::string part_;
};

void report(PeriodsProgress* pr, int phase, uint64_t column, uint64_t target, uint64_t saved,
            const Strip& s) {
    if (!pr) return;
    pr->phase.store(phase, std::memory_order_relaxed);
    pr->column.store(column, std::memory_order_relaxed);
    pr->target.store(target, std::memory_order_relaxed);
    pr->saved_column.store(saved, std::memory_order_relaxed);
    pr->state_bits.store(s.state_bits(), std::memory_order_relaxed);
    pr->window_bytes.store(s.window_bytes(), std::memory_order_relaxed);
}

// The sub-strip of rows 0..m-1 (which evolves on its own) has the same state at the saved column
// and `lambda` columns later, compared in full: those rows are periodic with period lambda for
// ever from there, and need no sweep any more if the ring holds whole periods of them (length a
// multiple of lambda). Takes effect at the next block.
// `limit`: with ranks, rank 0's rows but one (Strip::settle).
void note_settled(SettledRows& settled, SearchState& p, uint64_t m, uint64_t lambda,
                  uint64_t limit) {
    m = std::min(m, limit);
    if (m <= settled.rows || p.ring_len == 0 || p.ring_len % lambda != 0) return;
    settled.rows = m;
    settled.period = lambda;
    settled.values = p.ring.data();  // rank 0's ring starts at row 0
    settled.length = p.ring_len;
    settled.stride = p.ring_stride;
}

// Where sub-strips settled (rows m by column x), for the progress line's estimate of the
// certificate's column: a least-squares fit of log x against log m over the sub-strips of at
// least a quarter of the rows seen so far (the small ones settle before the growth law holds).
class SettleGrowth {
  public:
    void add(uint64_t rows, uint64_t column) { points_.emplace_back(rows, column); }
    uint64_t predict(uint64_t rows) const {
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto& [m, x] : points_) {
            if (4 * m < points_.back().first || m < 16) continue;
            const double lx = std::log(static_cast<double>(m)),
                         ly = std::log(static_cast<double>(x));
            n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
        }
        if (n < 3 || sxx * n - sx * sx <= 0) return 0;
        const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
        return static_cast<uint64_t>(std::exp(a + b * std::log(static_cast<double>(rows))));
    }

  private:
    std::vector<std::pair<uint64_t, uint64_t>> points_;
};

// With ranks: how much work per column rank 0 does beyond its swept rows' modeled cost (the
// settled rows' tables copied into every column, the records of recently settled rows, the
// messages it packs), in units of the other ranks' measured time per modeled unit, so that the
// cut can leave rank 0 fewer rows. Busy time is a block's time less the time spent waiting for
// messages.
class RankLoad {
  public:
    void add(double busy, double units, uint64_t columns) {
        busy_ += busy, units_ += units, columns_ += columns;
    }

    // Every rank at once: the measurements since the last estimate, combined into the same
    // estimate on every rank (a running mean: one slow moment of one rank moves it only halfway).
    // Only over a whole block's worth of columns: the short blocks of the run's start are mostly
    // the ranks' pipeline filling, not their work.
    double rank0_extra(strip::RankLink& link) {
        if (columns_ < kBlockColumns) return extra_;  // columns_ is the same on every rank
        const auto R = static_cast<size_t>(link.ranks()), me = static_cast<size_t>(link.rank());
        std::vector<uint64_t> v(2 * R, 0);
        v[2 * me] = std::bit_cast<uint64_t>(busy_);
        v[2 * me + 1] = std::bit_cast<uint64_t>(units_);
        link.all_or(v);
        double busy = 0, units = 0;
        for (size_t r = 1; r < R; ++r)
            busy += std::bit_cast<double>(v[2 * r]), units += std::bit_cast<double>(v[2 * r + 1]);
        if (busy > 0 && units > 0 && columns_ > 0) {
            const double busy0 = std::bit_cast<double>(v[0]), units0 = std::bit_cast<double>(v[1]);
            const double excess =
                std::max(0.0, (busy0 * units / busy - units0) / static_cast<double>(columns_));
            extra_ = measured_ ? (extra_ + excess) / 2 : excess;
            measured_ = true;
        }
        busy_ = units_ = 0;
        columns_ = 0;
        return extra_;
    }

  private:
    double busy_ = 0, units_ = 0;
    uint64_t columns_ = 0;
    double extra_ = 0;
    bool measured_ = false;
};

// One run of certify_row_periods, in its steps: phase 1 block by block (each block swept by all
// threads, then its columns walked in order for Brent's decisions and the settled rows), phase 2
// when the ring cannot give the preperiods, and the rows' results.
class Certification {
  public:
    explicit Certification(const PeriodsOptions& o)
        : o_(o),
          Y_(o.rows),
          start_(Clock::now()),
          starts_(o.link ? cut_rank_rows(o.rows, o.link->ranks())
                         : std::vector<uint64_t>{0, o.rows}),
          part_(part_of(starts_, o.link)),
          strip_(std::make_unique<Strip>(o.rows, o.kernel, o.threads, 0, part_)),
          runner_(o, o.link, starts_) {
        result_.method =
            "Brent cycle detection on the relative strip state (row windows [x+1-2y, x+y], "
            "diagonal windows [x+2-2y, x+y-1]); candidates compared bit for bit in full, no "
            "hashing";
        p_.first_row = part_.lo;
        p_.end_row = part_.hi;
        if (o.resume && fs::exists(o.checkpoint)) {
            load();
            result_.resumed = true;
        } else if (const uint64_t L = speculative_ring(Y_, o.ring_budget_bytes)) {
            start_ring(p_, L);
        }
        result_.kernel = strip_->kernel_name();
        result_.threads = strip_->threads();
        result_.state_bits = strip_->state_bits();
        result_.bands = strip_->bands();
        // The strip reports no row below StripBlock::first_reported_row (unrecorded_rows_).
        recorder_ = [this](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
            record_rows(p_, x, y0, y1, g, record_errors_);
        };
    }

    PeriodsResult run() {
        if (p_.phase == 1) {
            if (!search_cycle()) return finish();
            if (p_.ring_len == 0 || p_.ring_len % p_.period != 0) start_second_pass();
        }
        result_.x0 = p_.x0;
        result_.period = p_.period;
        if (p_.phase == 2 && !second_pass()) return finish();
        collect_rows();
        result_.second_pass = p_.phase == 2;
        result_.ring_len = p_.ring_len;
        result_.status = PeriodsResult::Status::Certified;
        return finish();
    }

  private:
    // This process's rows: all of them, or with ranks, its rank's share of the cut `starts`.
    static StripPart part_of(const std::vector<uint64_t>& starts, strip::RankLink* link) {
        const auto r = link ? static_cast<size_t>(link->rank()) : 0;
        return {starts[r], starts[r + 1], link};
    }

    // Rows that may settle: all, or with ranks, rank 0's but one (Strip::settle); the same on
    // every rank, so that every rank knows the settled rows.
    uint64_t settle_limit() const { return starts_.size() > 2 ? starts_[1] - 1 : Y_; }

    // Resumes from the checkpoint: the file, or with ranks the manifest and this rank's part.
    // With ranks, every rank refuses if any rank cannot load its part, with that rank's reason.
    void load() {
        const uint64_t words = strip_->state_words();
        if (!part_.link) {
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
            const auto R = static_cast<uint64_t>(part_.link->ranks());
            if (m.ranks != R)
                throw Error("checkpoint " + o_.checkpoint + " was written by " +
                            std::to_string(m.ranks) + " ranks, not " + std::to_string(R) +
                            ": resume it with mpirun -np " + std::to_string(m.ranks));
            if (m.rows != Y_)
                throw ArgumentError("checkpoint " + ArgumentError::literal(o_.checkpoint) +
                                    " is for {rows} " + std::to_string(m.rows) + ", not " +
                                    std::to_string(Y_));
            // The rows were cut again as they settled: each rank's are the manifest's.
            starts_ = m.starts;
            part_ = part_of(starts_, part_.link);
            const std::string part = rank_part_path(o_.checkpoint, part_.link->rank(), m.column);
            p_ = load_checkpoint(part, Y_, words, part_.lo, part_.hi);
            if (p_.strip.column + 1 != m.column && !(p_.strip.words.empty() && m.column == 0))
                throw Error("checkpoint part " + part + " is not at the manifest's column");
            runner_.resumed_from(part);
        } catch (const Error& e) {
            error = e.what();
            own = std::current_exception();
        }
        error = part_.link->first_error(error);
        if (own) std::rethrow_exception(own);
        if (!error.empty()) throw Error(error);
        if (strip_->first_row() != part_.lo || strip_->end_row() != part_.hi)
            strip_ = std::make_unique<Strip>(Y_, o_.kernel, o_.threads, 0, part_);
    }

    PeriodsResult finish() {
        result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
        if (part_.link) {
            result_.ranks = part_.link->ranks();
            result_.rows_moved = part_.link->sum_of(result_.rows_moved);
            result_.bytes_sent = part_.link->sum_of(part_.link->bytes_sent());
            const auto us = static_cast<uint64_t>(part_.link->wait_seconds() * 1e6);
            for (const uint64_t w : part_.link->gather({us}))
                result_.rank_wait_seconds.push_back(static_cast<double>(w) / 1e6);
        }
        return std::move(result_);
    }

    // Phase 1 until the certificate and, with a ring that P divides, the ring's tail past it.
    // False when the run must return now (not certified within max_cols, or interrupted).
    bool search_cycle() {
        if (!p_.strip.words.empty()) strip_->restore(p_.strip);
        resettle();
        for (;;) {
            const uint64_t next = strip_->columns_done();
            if (!p_.found && o_.max_cols && next >= o_.max_cols) {
                result_.status = PeriodsResult::Status::NotCertified;
                return false;
            }
            const uint64_t end = block_end(next);
            const bool comparing = !p_.found && next > first_saved();
            unrecorded_rows_ = rows_repeating_in_ring(next);
            StripBlock b;
            b.columns = end - next;
            if (p_.ring_len) b.rows_done = recorder_;
            b.first_reported_row = unrecorded_rows_;
            if (comparing) {
                b.compare = &p_.saved;
                b.matched_rows = &matched_rows_;
            }
            sweep_block(b);
            uint64_t processed = 0;
            const bool done = walk_block(next, end, comparing, processed);
            result_.columns_swept += processed;
            check_record(p_, record_errors_);
            if (done) return true;
            // The whole strip repeats from x0 on: every row is settled for the ring's tail.
            if (p_.found) note_settled(settled_, p_, Y_, p_.period, settle_limit());
            settle_rows(end);
            rebalance();
            report(o_.progress, 1, end, p_.found ? p_.x0 + p_.ring_len + 1 : 0,
                   p_.has_saved ? p_.saved.column : p_.x0, *strip_);
            if (runner_.after_block(p_, *strip_, result_, processed)) return false;
        }
    }

    // Every window is at values >= 0 from this column on, where states may be saved.
    uint64_t first_saved() const { return 2 * Y_; }

    // The block ends where a state must be saved, or where the phase ends. Short blocks under
    // --test-delay-us, so that tests can stop a run between any two of them.
    uint64_t block_end(uint64_t next) const {
        uint64_t end = next + (strip::test_delay_us.load() ? 16 : kBlockColumns);
        if (p_.found) return std::min(end, p_.x0 + p_.ring_len + 1);
        if (o_.max_cols) end = std::min(end, o_.max_cols);
        if (next <= first_saved()) return std::min(end, first_saved() + 1);
        return std::min(end, p_.saved.column + p_.power + 1);
    }

    // Brent's decisions for columns next..end-1, in order, as a sweep of one column at a time
    // would take them. Returns true when phase 1 is over.
    bool walk_block(uint64_t next, uint64_t end, bool comparing, uint64_t& processed) {
        for (uint64_t x = next; x < end; ++x) {
            ++processed;
            if (!p_.found && x == first_saved()) {
                strip_->snapshot(p_.saved);  // x is the block's last column
                p_.has_saved = true;
                p_.power = 64;
            } else if (!p_.found && x > first_saved()) {
                const uint64_t lambda = x - p_.saved.column;
                if (comparing)
                    note_settled(settled_, p_, matched_rows_[x - next], lambda, settle_limit());
                if (comparing && matched_rows_[x - next] == Y_) {
                    // Compared in full by the bands, each match copied out and compared again
                    // (Strip::band_mismatch).
                    p_.found = true;
                    p_.x0 = p_.saved.column;
                    p_.period = lambda;
                    p_.has_saved = false;
                    p_.saved.words.clear();
                    // Without a ring that P divides, phase 2 must compute the preperiods.
                    if (p_.ring_len == 0 || p_.ring_len % p_.period != 0) return true;
                } else if (lambda == p_.power) {
                    // A longer window for the next saved state: 1/8 longer, not twice (Brent's
                    // choice), so the saved column overshoots the state's preperiod by at most
                    // about 1/8 once the window exceeds the period. x is the block's last column.
                    strip_->snapshot(p_.saved);
                    p_.power += std::max<uint64_t>(p_.power / 8, 1);
                }
            }
            // With a ring of L = k P: mismatches d(x + L) != d(x) are all seen for x <= x0 once
            // column x0 + L is swept, and the ring then holds columns x0 + 1 .. x0 + L.
            if (p_.found && x >= p_.x0 + p_.ring_len) return true;
        }
        return false;
    }

    // Rows settled at least a ring length before column x: the ring already holds their values
    // of column x (a ring length is a whole number of their periods, all past their
    // preperiods), so recording them again would write the same values and find no mismatch.
    uint64_t rows_repeating_in_ring(uint64_t x) const {
        uint64_t rows = 0;
        for (const auto& [m, since] : p_.settled_since)
            if (since + p_.ring_len <= x) rows = std::max(rows, m);
        return rows;
    }

    // Hands the strip the rows whose sub-strip repeated in the last block (note_settled).
    void settle_rows(uint64_t end) {
        if (settled_.rows <= p_.settled_rows) return;
        strip_->settle(settled_);
        p_.settled_rows = settled_.rows;
        p_.settled_period = settled_.period;
        p_.settled_since.emplace_back(settled_.rows, end);
        growth_.add(settled_.rows, end);
        show_settled();
    }

    // A resumed run: the rows that had settled are settled again (their periodicity was proved
    // before the checkpoint and the ring holds their values).
    void resettle() {
        if (p_.settled_rows == 0) return;
        note_settled(settled_, p_, p_.settled_rows, p_.settled_period, settle_limit());
        strip_->settle(settled_);
        for (const auto& [m, since] : p_.settled_since) growth_.add(m, since);
        show_settled();
    }

    // With ranks: once rank 0's settled rows leave the busiest rank clearly more than its share
    // of the work, the rows are cut again and change hands (rank_moves.hpp). Every rank decides
    // alike: the settled rows are the same on each.
    // The strip's next block; with ranks, timed for RankLoad.
    void sweep_block(const StripBlock& b) {
        if (!part_.link) return strip_->advance_block(b);
        const auto start = Clock::now();
        const double waited = part_.link->wait_seconds();
        strip_->advance_block(b);
        const double busy = std::chrono::duration<double>(Clock::now() - start).count() -
                            (part_.link->wait_seconds() - waited);
        double units = 0;  // the modeled work per column of the rows it swept
        for (uint64_t y = std::max(part_.lo, strip_->settled_rows()); y < part_.hi; ++y)
            units += static_cast<double>(strip_row_cost(y));
        load_.add(busy, units * static_cast<double>(b.columns), b.columns);
    }

    void rebalance() {
        if (!part_.link || part_.link->ranks() == 1) return;
        if (settled_.rows == balanced_for_ && ++blocks_since_look_ < kLookEveryBlocks) return;
        balanced_for_ = settled_.rows;
        blocks_since_look_ = 0;
        const double extra = load_.rank0_extra(*part_.link);
        if (cut_imbalance(starts_, settled_.rows, extra) <= kRebalanceAbove) return;
        const std::vector<uint64_t> starts =
            cut_rank_rows(Y_, part_.link->ranks(), settled_.rows, extra);
        if (starts == starts_) return;
        strip_->snapshot(p_.strip);
        result_.rows_moved += move_rows(p_, starts_, starts, *part_.link);
        ++result_.rebalances;
        starts_ = starts;
        part_ = part_of(starts_, part_.link);
        settled_.values = p_.ring.data();
        settled_.stride = p_.ring_stride;
        strip_->repartition(part_, p_.strip, settled_);
    }

    void show_settled() {
        if (!o_.progress) return;
        o_.progress->settled_rows.store(settled_.rows, std::memory_order_relaxed);
        o_.progress->expected_x0.store(growth_.predict(Y_), std::memory_order_relaxed);
    }

    void start_second_pass() {
        p_.phase = 2;
        // A fresh strip from column 0 without settled rows: the first cut is the balanced one.
        if (part_.link) {
            starts_ = cut_rank_rows(Y_, part_.link->ranks());
            part_ = part_of(starts_, part_.link);
            p_.first_row = part_.lo;
            p_.end_row = part_.hi;
        }
        unrecorded_rows_ = 0;  // a fresh ring, and a fresh strip without settled rows
        p_.settled_rows = p_.settled_period = 0;
        p_.settled_since.clear();
        p_.strip.words.clear();
        const double bytes =
            static_cast<double>(p_.end_row - p_.first_row) * static_cast<double>(p_.period) * 2.0;
        if (bytes > 32.0 * (1ull << 30))
            throw Error("the strip's period " + std::to_string(p_.period) + " needs a ring of " +
                        std::to_string(bytes / (1ull << 30)) +
                        " GiB for the exact preperiods; more than 32 GiB");
        start_ring(p_, p_.period);
    }

    // Phase 2: a second sweep from column 0 with a ring of exactly P, to column x0 + P. False
    // when interrupted.
    bool second_pass() {
        Strip pass(Y_, o_.kernel, o_.threads, 0, part_);
        if (!p_.strip.words.empty()) pass.restore(p_.strip);
        StripSnapshot at_x0;
        const uint64_t last = p_.x0 + p_.period;
        for (;;) {
            const uint64_t next = pass.columns_done();
            uint64_t end =
                std::min(next + (strip::test_delay_us.load() ? 16 : kBlockColumns), last + 1);
            if (next <= p_.x0) end = std::min(end, p_.x0 + 1);
            StripBlock b;
            b.columns = end - next;
            b.rows_done = recorder_;
            pass.advance_block(b);
            result_.columns_swept += b.columns;
            check_record(p_, record_errors_);
            // An independent re-check of the certificate on this second sweep (a resumed
            // phase 2 that started past x0 skips it; phase 1 proved it already).
            if (end - 1 == p_.x0) pass.snapshot(at_x0);
            if (end - 1 == last) {
                uint64_t differs = !at_x0.words.empty() && !pass.matches(at_x0);
                if (part_.link) differs = part_.link->max_of(differs);
                if (differs) throw Error("internal: the certificate did not repeat in phase 2");
                return true;
            }
            report(o_.progress, 2, end, last + 1, p_.x0, pass);
            if (runner_.after_block(p_, pass, result_, b.columns)) return false;
        }
    }

    // Each row's exact preperiod (its last mismatch), minimal period (of one P-block from x0 + 1
    // in the ring) and, if asked, its block from the preperiod; with ranks, gathered on rank 0.
    // The ring holds columns x0 + 1 .. x0 + P (and more) at x mod L; the rows are taken a group
    // at a time, in one pass over those P ring columns per group (a row at a time would read
    // one value per ring column, P cache misses per row), the groups on the threads.
    void collect_rows() {
        const uint64_t lo = p_.first_row, n = p_.end_row - lo;
        result_.rows.resize(n);
        const auto groups = static_cast<int64_t>((n + kCollectRows - 1) / kCollectRows);
        std::exception_ptr error;  // an exception may not leave a thread: carried out
#pragma omp parallel num_threads(std::max(o_.threads, 1))
        {
            std::vector<uint16_t> blocks;
#pragma omp for schedule(dynamic)
            for (int64_t k = 0; k < groups; ++k) {
                const uint64_t y0 = lo + static_cast<uint64_t>(k) * kCollectRows;
                try {
                    collect_group(y0, std::min(p_.end_row, y0 + kCollectRows), blocks);
                } catch (...) {
#pragma omp critical(grundy_collect_error)
                    if (!error) error = std::current_exception();
                }
            }
        }
        if (error) std::rethrow_exception(error);
        if (part_.link) gather_rows();
    }

    // Rows y0..y1-1: one P-block each (blocks[(y - y0) * P + i] is column x0 + 1 + i), then
    // each row's results.
    void collect_group(uint64_t y0, uint64_t y1, std::vector<uint16_t>& blocks) {
        const uint64_t P = p_.period, count = y1 - y0;
        blocks.resize(count * P);
        for (uint64_t i = 0, slot = (p_.x0 + 1) % p_.ring_len; i < P; ++i) {
            const uint16_t* column = p_.ring.data() + slot * p_.ring_stride + (y0 - p_.ring_first);
            for (uint64_t k = 0; k < count; ++k) blocks[k * P + i] = column[k];
            if (++slot == p_.ring_len) slot = 0;
        }
        for (uint64_t y = y0; y < y1; ++y) {
            const std::span<const uint16_t> block(blocks.data() + (y - y0) * P, P);
            RowPeriod& r = result_.rows[y - p_.first_row];
            r.row = y;
            r.certified = true;
            Periodicity& f = r.periodicity.emplace();  // periods_observed: 0, not applicable
            const uint64_t last = p_.last_mismatch[y - p_.first_row];
            f.preperiod = last == kNone ? 0 : last + 1;
            f.period = minimal_period(block);
            if (!o_.keep_blocks) continue;
            r.block.resize(f.period);
            for (uint64_t i = 0; i < f.period; ++i) {
                uint64_t c = f.preperiod + i;  // from the preperiod on, f.period-periodic
                if (c < p_.x0 + 1) c += ((p_.x0 + 1 - c + f.period - 1) / f.period) * f.period;
                r.block[i] = block[c - (p_.x0 + 1)];
            }
        }
    }

    // Every rank's rows to rank 0, as words: row, preperiod, period, block length, block.
    void gather_rows() {
        std::vector<uint64_t> mine;
        for (const auto& r : result_.rows) {
            mine.insert(mine.end(),
                        {r.row, r.periodicity->preperiod, r.periodicity->period, r.block.size()});
            mine.insert(mine.end(), r.block.begin(), r.block.end());
        }
        result_.rows.clear();
        const std::vector<uint64_t> all = part_.link->gather(mine);
        for (size_t i = 0; i + 4 <= all.size();) {
            RowPeriod r;
            r.row = all[i], r.certified = true;
            r.periodicity = Periodicity{.period = all[i + 2], .preperiod = all[i + 1]};
            const uint64_t n = all[i + 3];
            i += 4;
            if (n > all.size() - i) throw Error("internal: gathered rows are malformed");
            r.block.assign(all.begin() + static_cast<int64_t>(i),
                           all.begin() + static_cast<int64_t>(i + n));
            i += n;
            result_.rows.push_back(std::move(r));
        }
        if (part_.link->rank() == 0 && result_.rows.size() != Y_)
            throw Error("internal: rank 0 gathered " + std::to_string(result_.rows.size()) +
                        " rows of " + std::to_string(Y_));
    }

    const PeriodsOptions& o_;
    const uint64_t Y_;
    const Clock::time_point start_;
    PeriodsResult result_;
    std::vector<uint64_t> starts_;  // each rank's first row, then Y (one process: 0, Y)
    StripPart part_;                // this process's rows
    std::unique_ptr<Strip> strip_;
    SearchState p_;
    Runner runner_;
    RecordErrors record_errors_;
    StripRowsFn recorder_;
    std::vector<uint32_t> matched_rows_;
    SettledRows settled_;           // the lowest rows whose sub-strip has repeated
    uint64_t unrecorded_rows_ = 0;  // in this block (rows_repeating_in_ring)
    uint64_t balanced_for_ = 0;     // the settled rows when the cut was last looked at
    uint64_t blocks_since_look_ = 0;
    RankLoad load_;
    SettleGrowth growth_;
};

}  // namespace

PeriodsResult certify_row_periods(const PeriodsOptions& o) {
    if (o.rows == 0 || o.rows > kMaxRows)
        throw ArgumentError("{rows} must be between 1 and " + std::to_string(kMaxRows) + ", got " +
                            std::to_string(o.rows));
    if (!(o.checkpoint_every >= 0)) throw ArgumentError("{checkpoint_every} must be >= 0 seconds");
    if (o.resume && o.checkpoint.empty()) throw ArgumentError("{resume} needs {checkpoint} FILE");
    if (!o.link) return Certification(o).run();
    // Before the sweep the ranks agree on every refusal (Certification::load); after it starts, a
    // failure of one rank ends the job, or the others would wait for it for ever.
    Certification c(o);
    try {
        return c.run();
    } catch (const std::exception& e) {
        o.link->abort(
            "grundy periods: rank " + std::to_string(o.link->rank()) + ": error: " + e.what(), 2);
        throw;  // not reached: abort ends the process
    }
}

}  // namespace grundy
