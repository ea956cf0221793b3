// RankPlan (rank_plan.hpp): the cut of the rows between ranks, rank 0's extra work measured
// (RankLoad), and the rows cut again as they settle.
#include "strip/ranks/rank_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "strip/ranks/rank_moves.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

double RankLoad::rank0_extra(RankLink& link) {
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
    // Testing aid: GRUNDY_TEST_RANK0_EXTRA pins the estimate, so that whether the rows are cut
    // again depends on the settled rows alone, not on how a loaded machine timed the ranks.
    // Every rank of a job has the same environment, so every rank decides alike.
    if (const char* pinned = std::getenv("GRUNDY_TEST_RANK0_EXTRA")) return std::atof(pinned);
    return extra_;
}

RankPlan::RankPlan(uint64_t rows, RankLink* link)
    : rows_(rows),
      starts_(link ? cut_rank_rows(rows, link->ranks()) : std::vector<uint64_t>{0, rows}),
      part_(part_of(starts_, link)) {}

// This process's rows: all of them, or with ranks, its rank's share of the cut `starts`.
StripPart RankPlan::part_of(const std::vector<uint64_t>& starts, RankLink* link) {
    const auto r = link ? static_cast<size_t>(link->rank()) : 0;
    return {starts[r], starts[r + 1], link};
}

void RankPlan::resume(std::vector<uint64_t> starts) {
    starts_ = std::move(starts);
    part_ = part_of(starts_, part_.link);
}

void RankPlan::reset() {
    if (!part_.link) return;
    starts_ = cut_rank_rows(rows_, part_.link->ranks());
    part_ = part_of(starts_, part_.link);
}

void RankPlan::sweep_block(Strip& strip, const StripBlock& b) {
    if (!part_.link) return strip.advance_block(b);
    const auto start = Clock::now();
    const double waited = part_.link->wait_seconds();
    strip.advance_block(b);
    const double busy = std::chrono::duration<double>(Clock::now() - start).count() -
                        (part_.link->wait_seconds() - waited);
    double units = 0;  // the modeled work per column of the rows it swept
    for (uint64_t y = std::max(part_.lo, strip.settled_rows()); y < part_.hi; ++y)
        units += static_cast<double>(strip_row_cost(y));
    load_.add(busy, units * static_cast<double>(b.columns), b.columns);
}

// Every rank decides alike: the settled rows are the same on each.
void RankPlan::rebalance(Strip& strip, SearchState& p, SettledRows& settled) {
    if (!part_.link || part_.link->ranks() == 1) return;
    if (settled.rows == balanced_for_ && ++blocks_since_look_ < kLookEveryBlocks) return;
    balanced_for_ = settled.rows;
    blocks_since_look_ = 0;
    const double extra = load_.rank0_extra(*part_.link);
    if (cut_imbalance(starts_, settled.rows, extra) <= kRebalanceAbove) return;
    const std::vector<uint64_t> starts =
        cut_rank_rows(rows_, part_.link->ranks(), settled.rows, extra);
    if (starts == starts_) return;
    strip.snapshot(p.strip);
    rows_moved_ += move_rows(p, starts_, starts, *part_.link);
    ++rebalances_;
    starts_ = starts;
    part_ = part_of(starts_, part_.link);
    settled.values = p.ring.data();
    settled.stride = p.ring_stride;
    strip.repartition(part_, p.strip, settled);
}

RankStats RankPlan::stats() const {
    RankStats s;
    if (!part_.link) return s;
    s.ranks = part_.link->ranks();
    s.rebalances = rebalances_;
    s.rows_moved = part_.link->sum_of(rows_moved_);
    s.bytes_sent = part_.link->sum_of(part_.link->bytes_sent());
    const auto us = static_cast<uint64_t>(part_.link->wait_seconds() * 1e6);
    for (const uint64_t w : part_.link->gather({us}))
        s.wait_seconds.push_back(static_cast<double>(w) / 1e6);
    return s;
}

}  // namespace grundy::strip
