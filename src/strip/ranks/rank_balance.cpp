// With ranks: rank 0's extra work measured (RankLoad), and the rows cut again as they settle
// (Certification::rebalance, Certification::sweep_block).
#include <algorithm>
#include <bit>

#include "strip/certify/certification.hpp"
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
    return extra_;
}

// The strip's next block; with ranks, timed for RankLoad.
void Certification::sweep_block(const StripBlock& b) {
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

// With ranks: once rank 0's settled rows leave the busiest rank clearly more than its share
// of the work, the rows are cut again and change hands (rank_moves.hpp). Every rank decides
// alike: the settled rows are the same on each.
void Certification::rebalance() {
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

}  // namespace grundy::strip
