// Phase 1 of a certification: Brent's cycle search on the strip's relative state, block by
// block, and the rows that settle on the way (certification.hpp says how).
#include <algorithm>
#include <numeric>

#include "grundy/error.hpp"
#include "strip/certify/certification.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {
namespace {

// Brent's window after a save: 1/8 longer, not twice (Brent's choice), so the saved column
// overshoots the state's preperiod by at most about 1/8 once the window exceeds the period.
uint64_t grown(uint64_t power) {
    return power + std::max<uint64_t>(power / 8, 1);
}

}  // namespace

// The sub-strip of rows 0..m-1 (which evolves on its own) has the same state at the saved column
// and `lambda` columns later, compared in full: those rows are periodic with period lambda for
// ever from there, and need no sweep any more if the ring holds whole periods of them (length a
// multiple of lambda) and has held them for a period after column x (a ring laid out again
// holds nothing before ring_from). Takes effect at the next block. Returns whether more rows
// settled. With ranks, only rank 0's rows but one settle (Strip::settle). A ring laid out again
// may hold periods whose tables the memory does not (table_period_limit_): those rows are swept.
bool Certification::note_settled(uint64_t m, uint64_t lambda, uint64_t x) {
    SettledRows& settled = settled_;
    const SearchState& p = p_;
    m = std::min(m, plan_.settle_limit());
    if (m <= settled.rows || p.ring_len == 0 || p.ring_len % lambda != 0 ||
        x + 1 < p.ring_from + lambda || (table_period_limit_ && lambda > table_period_limit_))
        return false;
    settled = ring_view(p);  // rank 0's ring starts at row 0, or at the low ring's end
    settled.rows = m;
    settled.period = lambda;
    return true;
}

// Phase 1 until the certificate and, with a ring that P divides, the ring's tail past it.
// False when the run must return now (not certified within max_cols, or interrupted).
bool Certification::search_cycle() {
    if (!p_.strip.words.empty()) strip_->restore(p_.strip);
    resettle();
    for (;;) {
        const uint64_t next = strip_->columns_done();
        result_.column = next;
        if (!p_.found && o_.max_cols && next >= o_.max_cols) {
            result_.status = PeriodsResult::Status::NotCertified;
            control_.at_max_cols(p_, *strip_, result_);
            return false;
        }
        const uint64_t end = block_end(next);
        const bool comparing = !p_.found && next > first_saved();
        unrecorded_rows_ = rows_repeating_in_ring(next);
        StripBlock b;
        b.columns = end - next;
        if (p_.ring_len) b.rows_done = recorder_;
        b.first_reported_row = unrecorded_rows_;
        block_saves_.clear();
        if (comparing) {
            b.compare = &p_.saved;
            b.matched_rows = &matched_rows_;
            block_saves_ = saves_in(next, end);
            b.save = &p_.saved;
            b.save_after = block_saves_;
        }
        plan_.sweep_block(*strip_, b);
        uint64_t processed = 0;
        const bool done = walk_block(next, end, comparing, processed);
        result_.columns_swept += processed;
        result_.column = end;
        check_record(p_, record_errors_);
        if (done) return true;
        // The whole strip repeats from x0 on: every row is settled for the ring's tail.
        if (p_.found && note_settled(Y_, p_.period, end - 1))
            block_settles_.emplace_back(settled_.rows, p_.x0);
        settle_rows(end);
        plan_.rebalance(*strip_, p_, settled_);
        report(o_.progress, 1, end, p_.found ? p_.x0 + p_.ring_len + 1 : 0,
               p_.has_saved ? p_.saved.column : p_.x0, *strip_);
        keep_seed(end);
        if (control_.after_block(p_, *strip_, result_, processed)) return false;
    }
}

// The block ends where the first state is saved, or where the phase ends; Brent's later saves
// are made inside it (saves_in).
uint64_t Certification::block_end(uint64_t next) const {
    uint64_t end = next + kBlockColumns;
    if (p_.found) return std::min(end, p_.x0 + p_.ring_len + 1);
    if (o_.max_cols) end = std::min(end, o_.max_cols);
    if (next <= first_saved()) return std::min(end, first_saved() + 1);
    return end;
}

// The columns next..end-1 after which walk_block will save the state, as indices into the block:
// wherever the distance to the last saved column reaches the window, unless the cycle is found
// first (the later saves are then never read).
std::vector<uint64_t> Certification::saves_in(uint64_t next, uint64_t end) const {
    std::vector<uint64_t> at;
    for (uint64_t x = p_.saved.column, power = p_.power; x + power < end; power = grown(power)) {
        x += power;
        at.push_back(x - next);
    }
    return at;
}

// Brent's decisions for columns next..end-1, in order, as a sweep of one column at a time
// would take them. Returns true when phase 1 is over.
bool Certification::walk_block(uint64_t next, uint64_t end, bool comparing, uint64_t& processed) {
    for (uint64_t x = next; x < end; ++x) {
        ++processed;
        if (!p_.found && x == first_saved()) {
            strip_->snapshot(p_.saved);  // x is the block's last column
            p_.has_saved = true;
            p_.power = 64;
        } else if (!p_.found && x > first_saved()) {
            const uint64_t lambda = x - p_.saved.column;
            if (comparing && note_settled(matched_rows_[x - next], lambda, x))
                block_settles_.emplace_back(settled_.rows, p_.saved.column);
            else if (comparing && matched_rows_[x - next] < Y_)
                note_repeat(matched_rows_[x - next], lambda);
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
                // The bands saved the state after x (saves_in); a longer window for the next.
                if (!std::binary_search(block_saves_.begin(), block_saves_.end(), x - next))
                    throw Error("internal: a state to save that the block did not save");
                p_.saved.column = x;
                p_.power = grown(p_.power);
            }
        }
        // With a ring of L = k P: mismatches d(x + L) != d(x) are all seen for x <= x0 once
        // column x0 + L is swept, and the ring then holds columns x0 + 1 .. x0 + L.
        if (p_.found && x >= p_.x0 + p_.ring_len) return true;
    }
    return false;
}

// Settled rows whose repeat began at least a ring length before column x: the ring already
// holds their values of column x (a ring length is a whole number of their periods, all past
// their preperiods), so recording them again would write the same values and find no mismatch.
// So do the rows of a low ring (SearchState::low_ring), and a ring laid out again must have been
// swept for a ring length.
uint64_t Certification::rows_repeating_in_ring(uint64_t x) const {
    uint64_t rows = p_.phase == 1 ? p_.unringed_rows : 0;
    if (p_.ring_from + p_.ring_len > x) return rows;
    for (const auto& [m, since] : p_.settled_since)
        if (since + p_.ring_len <= x) rows = std::max(rows, m);
    return rows;
}

// Hands the strip the rows whose sub-strip repeated in the last block (note_settled).
void Certification::settle_rows(uint64_t end) {
    if (settled_.rows <= p_.settled_rows) return;
    strip_->settle(settled_);
    p_.settled_rows = settled_.rows;
    p_.settled_period = settled_.period;
    // Each sub-strip that repeated in the block, from the repeat's first column rather than the
    // block's end: a stopped run's files then hold its rows a ring length after that
    // (final_rows.cpp), however long the blocks.
    p_.settled_since.insert(p_.settled_since.end(), block_settles_.begin(), block_settles_.end());
    block_settles_.clear();
    growth_.add(settled_.rows, end);
    show_settled();
}

// A resumed run: the rows that had settled are settled again (their periodicity was proved
// before the checkpoint and the ring holds their values).
void Certification::resettle() {
    if (p_.settled_rows == 0) return;
    note_settled(p_.settled_rows, p_.settled_period, p_.strip.column);
    strip_->settle(settled_);
    for (const auto& [m, since] : p_.settled_since) growth_.add(m, since);
    show_settled();
}

// Rows 0..m-1, more than have settled, repeat with period lambda (their sub-strip's state is the
// saved one again), but the ring's length is not a multiple of lambda, so they cannot settle:
// the period has grown past the ring (it doubled above the settled rows). Or the ring holds it
// and the memory does not hold the tables (table_period_limit_). Every larger sub-strip holds
// them, so no more rows settle in phase 1: the progress line says so, and its ETA charges every
// unsettled row up to the certificate.
void Certification::note_repeat(uint64_t m, uint64_t lambda) {
    if (m <= settled_.rows || p_.ring_len == 0) return;
    if (p_.ring_len % lambda == 0 && !(table_period_limit_ && lambda > table_period_limit_)) return;
    // The most rows seen so, and the greatest common divisor of the periods seen for them: the
    // strip is deterministic, so each match makes its lambda a period from the saved column on,
    // and two periods of a sequence that repeats for ever make their gcd one. A run resumed far
    // past the saved column first sees a multiple of the least period (22 times it, say) and
    // comes down to it at the next match.
    uint64_t& rows = result_.repeating_rows;
    uint64_t& period = result_.repeating_period;
    if (m < rows) return;
    period = m == rows ? std::gcd(period, lambda) : lambda;
    rows = m;
    result_.repeating_tables_only = p_.ring_len % period == 0;
    if (!o_.progress) return;
    o_.progress->repeating_tables_only.store(result_.repeating_tables_only,
                                             std::memory_order_relaxed);
    o_.progress->repeating_period.store(period, std::memory_order_relaxed);
    o_.progress->repeating_rows.store(m, std::memory_order_relaxed);
}

void Certification::show_settled() {
    if (!o_.progress) return;
    o_.progress->settled_rows.store(settled_.rows, std::memory_order_relaxed);
    const auto law = growth_.fit();
    // The same fit gives both (predict would fit it again).
    const uint64_t expected = law ? static_cast<uint64_t>(law->at(static_cast<double>(Y_))) : 0;
    o_.progress->expected_x0.store(expected, std::memory_order_relaxed);
    o_.progress->settle_exponent.store(law ? law->b : 0.0, std::memory_order_relaxed);
}

}  // namespace grundy::strip
