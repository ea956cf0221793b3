// Rows changing hands between the ranks of a strip (rank_link.hpp) at a block's end.
//
// The cut of the rows is balanced for the work per column (cut_rank_rows), and that work moves:
// rank 0's lowest rows settle and stop costing, so rank 0 runs out of work while the others do
// not. RankPlan (rank_plan.hpp) therefore cuts the rows again once the busiest rank has clearly
// more than its share, and the rows move with everything that is theirs: their part of the live
// state and of Brent's saved state (each rank's snapshot holds only its own segments, so the
// bitwise OR of all of them is the whole state), their entries of the ring and their last
// mismatch. Only rank 0's rows settle, and they stay with it.
#pragma once

#include <cstdint>
#include <vector>

#include "strip/certify/search_state.hpp"
#include "strip/ranks/rank_link.hpp"

namespace grundy::strip {

// Every rank at once, at a block's end: this rank's state p holds rows old_starts[r] ..
// old_starts[r + 1] - 1 (r = link.rank()), with p.strip its part of the live state after the
// last swept column. Afterwards p holds rows new_starts[r] .. new_starts[r + 1] - 1: their
// ring entries and last mismatches, and p.strip and p.saved (when there is one) hold every
// rank's segments. Returns the number of rows this rank took over.
uint64_t move_rows(SearchState& p, const std::vector<uint64_t>& old_starts,
                   const std::vector<uint64_t>& new_starts, RankLink& link);

}  // namespace grundy::strip
