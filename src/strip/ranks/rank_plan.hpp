// RankPlan: which rows each rank of a strip sweeps (rank_link.hpp), and the rows cut again as
// they settle. With ranks (grundy-mpi), only rank 0's lowest rows settle, so rank 0 runs out
// of work while the others do not: once the busiest rank has clearly more than its share, the
// rows are cut again (cut_rank_rows, with rank 0 given fewer for its measured extra work,
// RankLoad) and change hands with their state (move_rows, rank_moves.hpp). One process: all
// rows, and nothing to cut. The certification (certify/certification.hpp) holds one and asks
// it after every block.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "strip/certify/search_state.hpp"
#include "strip/ranks/rank_link.hpp"
#include "strip/ranks/rank_stats.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy::strip {

// Rank 0's extra work: the settled rows' tables copied into every column, the records of
// recently settled rows, the messages it packs; in units of the other ranks' measured time per
// modeled unit. Busy time is a block's time less the time spent waiting for messages.
class RankLoad {
  public:
    void add(double busy, double units, uint64_t columns) {
        busy_ += busy, units_ += units, columns_ += columns;
    }

    // Every rank at once: the measurements since the last estimate, combined into the same
    // estimate on every rank (a running mean: one slow moment of one rank moves it only halfway).
    // Only over a whole block's worth of columns: the short blocks of the run's start are mostly
    // the ranks' pipeline filling, not their work.
    double rank0_extra(RankLink& link);

  private:
    double busy_ = 0, units_ = 0;
    uint64_t columns_ = 0;
    double extra_ = 0;
    bool measured_ = false;
};

class RankPlan {
  public:
    // The balanced cut of `rows` over the link's ranks; without a link, every row.
    RankPlan(uint64_t rows, RankLink* link);

    RankLink* link() const { return part_.link; }
    // Each rank's first row, then the rows (one process: 0, rows). The reference stays valid
    // and follows every cut.
    const std::vector<uint64_t>& starts() const { return starts_; }
    const StripPart& part() const { return part_; }  // this process's rows
    // Rows that may settle: all, or with ranks, rank 0's but one (Strip::settle); the same on
    // every rank, so that every rank knows the settled rows.
    uint64_t settle_limit() const { return starts_.size() > 2 ? starts_[1] - 1 : rows_; }

    // The cut a resumed run's checkpoint recorded (its manifest's).
    void resume(std::vector<uint64_t> starts);
    // The balanced cut again, for a fresh strip without settled rows (phase 2).
    void reset();

    // The strip's next block; with ranks, timed for RankLoad.
    void sweep_block(Strip& strip, const StripBlock& b);
    // With ranks, every rank at once at a block's end: when the settled rows leave the busiest
    // rank clearly more than its share, the rows are cut again and change hands with their
    // part of p (the strip's snapshot taken into p.strip first), and the strip and `settled`
    // (whose values are in the ring, laid out again) follow.
    void rebalance(Strip& strip, SearchState& p, SettledRows& settled);

    // Every rank at once, at the run's end: the figures of all ranks together (on rank 0,
    // each rank's wait); one process: the defaults.
    RankStats stats() const;

  private:
    using Clock = std::chrono::steady_clock;
    static StripPart part_of(const std::vector<uint64_t>& starts, RankLink* link);

    const uint64_t rows_;
    std::vector<uint64_t> starts_;
    StripPart part_;
    uint64_t balanced_for_ = 0;  // the settled rows when the cut was last looked at
    uint64_t blocks_since_look_ = 0;
    RankLoad load_;
    uint64_t rebalances_ = 0, rows_moved_ = 0;  // this rank's
};

}  // namespace grundy::strip
