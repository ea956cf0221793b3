// With ranks (grundy-mpi): how much work per column rank 0 does beyond its swept rows' modeled
// cost, measured, so that the rows can be cut again as they settle with rank 0 given fewer
// (Certification::rebalance, rank_balance.cpp; the cut itself: cut_rank_rows, rank_link.hpp).
#pragma once

#include <cstdint>

#include "strip/ranks/rank_link.hpp"

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

}  // namespace grundy::strip
