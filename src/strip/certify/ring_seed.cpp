// Compact checkpoints (PeriodsOptions::compact_checkpoints): instead of the ring, the state of a
// column a ring length or more earlier (its seed), from which a resumed run sweeps the ring
// again. The ring holds each row's values of the last L columns, Y x L x 2 bytes (9.7 GB at 6144
// rows), and any state determines every column after it (src/DESIGN.md 1.7), so a state of
// Y^2 x 3 bits and a minute or two of sweeping give the same ring. The swept state must be the
// one the checkpoint recorded (its CRC-32): a check of the seed, the sweep and the file at once.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/memory.hpp"
#include "strip/certify/certification.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/certify/memory_model.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

namespace {

// The seed of a checkpoint taken while the ring has not yet been swept twice: column 0 (a fresh
// strip), which costs at most two ring lengths of sweeping too.
const std::shared_ptr<const StripSnapshot>& from_start() {
    static const auto start = std::make_shared<const StripSnapshot>();
    return start;
}

}  // namespace

// After the block ending at column `end`: a new seed every half ring length, and the checkpoint's
// seed (SearchState::seed), the newest at least a ring length back; the seeds before it are
// never needed again. At 6144 rows a seed is 14 MB, and at most four are kept.
void Certification::keep_seed(uint64_t end) {
    p_.seed.reset();
    if (!o_.compact_checkpoints || p_.phase != 1 || p_.ring_len == 0 || plan_.link()) return;
    const uint64_t L = p_.ring_len, x = end - 1;  // the state after column x
    if (seeds_.empty() || seeds_.back()->column + L / 2 <= x) {
        auto s = std::make_shared<StripSnapshot>();
        strip_->snapshot(*s);
        seeds_.push_back(std::move(s));
    }
    while (seeds_.size() > 1 && seeds_[1]->column + L <= x) seeds_.pop_front();
    const StripSnapshot& front = *seeds_.front();
    if (front.column + L <= x || starts_ring(front))
        p_.seed = seeds_.front();
    else if (x < 2 * L)
        p_.seed = from_start();
}

// A ring laid out again holds nothing before its seed, so the seed is one for as long as it is
// kept, even less than a ring length back.
bool Certification::starts_ring(const StripSnapshot& seed) const {
    return p_.ring_from > 0 && !seed.words.empty() && seed.column + 1 == p_.ring_from;
}

// Phase 2 sweeps a fresh strip with a ring of its own: its checkpoints keep their ring.
void Certification::drop_seeds() {
    p_.seed.reset();
    seeds_.clear();
}

// A compact checkpoint's ring, swept again from its seed up to its live state, which then must
// be the one it recorded; the last mismatches are the file's (this sweep compares the ring's
// first columns with nothing). With grow_ring, the ring is then laid out again (lengthen_ring).
void Certification::regrow_ring() {
    const std::shared_ptr<const StripSnapshot> seed = std::move(p_.seed);
    const std::vector<uint64_t> mismatches = p_.last_mismatch;
    start_ring(p_, p_.ring_len);
    if (p_.low_len) p_.low_ring.assign(p_.unringed_rows * p_.low_len);
    sweep_ring(*seed);
    p_.last_mismatch = mismatches;
    if (o_.grow_ring) lengthen_ring(*seed);
    if (p_.low_len) limit_tables();
    // Until the run keeps a seed of its own (keep_seed), a checkpoint has the file's.
    p_.seed = seed;
    if (!seed->words.empty() && o_.compact_checkpoints) seeds_.push_back(seed);
}

// Sweeps every row from `seed` to the live column, recording the rows into the rings (and
// comparing them from ring_from + ring_len on); the state reached must be the file's.
void Certification::sweep_ring(const StripSnapshot& seed) {
    const uint64_t target = p_.strip.column + 1;
    const std::string corrupt = "checkpoint " + o_.checkpoint + " is corrupt ";
    Strip strip(Y_, o_.kernel, o_.threads, 0, plan_.part());
    try {
        if (!seed.words.empty()) strip.restore(seed);
    } catch (const Error&) {
        throw Error(corrupt + "(its seed is not a state of this strip)");
    }
    RecordErrors errors;
    StripBlock b;
    b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
        record_reported(p_, x, y0, y1, g, errors, true);
    };
    while (strip.columns_done() < target) {
        b.columns = std::min(kBlockColumns, target - strip.columns_done());
        strip.advance_block(b);
    }
    StripSnapshot live;
    strip.snapshot(live);
    if (errors.out_of_bounds || state_crc(live.words) != p_.strip_check)
        throw Error(corrupt + "(its seed does not lead to the state it recorded)");
    p_.strip = std::move(live);
}

// The longest ring, 3 * 2^k and a multiple of the present one, that the memory allows for rows
// k..end_row-1 beside rows 0..k-1 at the present length (the bound of speculative_ring too).
uint64_t Certification::longer_ring(uint64_t k) const {
    const uint64_t L = p_.ring_len, low = k * L * 2, rows = p_.end_row - k;
    const uint64_t cap = std::max<uint64_t>(4 * Y_ * Y_, 48);
    if (o_.ring_budget_bytes <= low) return L;
    uint64_t longest = L;
    for (uint64_t c = 2 * L; c <= cap && rows * c * 2 <= o_.ring_budget_bytes - low; c *= 2)
        longest = c;
    return longest;
}

// grow_ring: the rows certified at the live column C (their mismatches all seen) keep the
// present length L in a ring of their own; the others get a ring as long as longer_ring allows,
// swept again from the seed, after column S - 1. Their last mismatches d(x + L') != d(x) are
// then seen from S on, and those the shorter ring saw up to C - 1 - L >= S - 1 are kept in
// low_mismatch: the last mismatch is the same for every eventual period (src/DESIGN.md 1.8), so
// a row with none from S on whose period divides L has its last one there (last_mismatch). A ring
// lengthened once stays as it is.
void Certification::lengthen_ring(const StripSnapshot& seed) {
    const uint64_t C = p_.strip.column + 1, L = p_.ring_len;
    const uint64_t k = std::min(rows_repeating_in_ring(C), p_.end_row);
    const uint64_t longer = longer_ring(k);
    if (p_.phase != 1 || p_.low_len || longer <= L) return;
    add_final_rows_at(C);
    Ring low;
    low.assign(k * L);
    const SettledRows present = ring_view(p_);  // one ring from row 0 (compact: one process)
    for (uint64_t c = C - L; c < C; ++c) std::copy_n(present.at(c, 0), k, low.data() + (c % L) * k);
    p_.low_mismatch = p_.last_mismatch;
    p_.low_ring = std::move(low);
    p_.low_len = L;
    p_.unringed_rows = k;
    p_.ring_from = seed.words.empty() ? 0 : seed.column + 1;
    start_ring(p_, longer);
    // From column 0 (a seed there) the new ring sees every mismatch.
    if (p_.ring_from)
        std::fill(p_.last_mismatch.begin() + static_cast<int64_t>(k - p_.first_row),
                  p_.last_mismatch.end(), kUnseen);
    sweep_ring(seed);
}

// With a ring laid out again, the settled rows' tables may not grow to its length: rows that
// would need a longer table than the memory leaves beside the rings (and the strip's windows,
// memory_model.hpp) are swept instead. check_periods_memory counted the tables of the shorter
// ring's length, which are always allowed.
void Certification::limit_tables() {
    const MemoryBudget budget = memory_budget(o_.max_memory);
    if (budget.bytes == 0) return;
    const uint64_t used = (p_.ring.size() + p_.low_ring.size()) * 2 + strip_fixed_bytes(Y_);
    const uint64_t per_column = settled_table_bytes(Y_, 1);
    const uint64_t room = budget.bytes > used ? (budget.bytes - used) / per_column : 0;
    table_period_limit_ = p_.low_len;
    while (table_period_limit_ * 2 <= room && p_.ring_len % (table_period_limit_ * 2) == 0)
        table_period_limit_ *= 2;
}

}  // namespace grundy::strip
