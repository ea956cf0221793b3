// Compact checkpoints (PeriodsOptions::compact_checkpoints): instead of the ring, the state of a
// column a ring length or more earlier (its seed), from which a resumed run sweeps the ring
// again. The ring holds each row's values of the last L columns, Y x L x 2 bytes (9.7 GB at 6144
// rows), and any state determines every column after it (src/DESIGN.md 1.7), so a state of
// Y^2 x 3 bits and a minute or two of sweeping give the same ring. The swept state must be the
// one the checkpoint recorded (its CRC-32): a check of the seed, the sweep and the file at once.
#include <algorithm>
#include <memory>
#include <string>

#include "grundy/error.hpp"
#include "strip/certify/certification.hpp"
#include "strip/certify/checkpoint.hpp"
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
    if (seeds_.front()->column + L <= x)
        p_.seed = seeds_.front();
    else if (x < 2 * L)
        p_.seed = from_start();
}

// Phase 2 sweeps a fresh strip with a ring of its own: its checkpoints keep their ring.
void Certification::drop_seeds() {
    p_.seed.reset();
    seeds_.clear();
}

// A compact checkpoint's ring, swept again from its seed up to its live state, which then must
// be the one it recorded; the last mismatches are the file's (this sweep compares the ring's
// first columns with nothing).
void Certification::regrow_ring() {
    const std::shared_ptr<const StripSnapshot> seed = std::move(p_.seed);
    const uint64_t target = p_.strip.column + 1;
    const std::string corrupt = "checkpoint " + o_.checkpoint + " is corrupt ";
    Strip strip(Y_, o_.kernel, o_.threads, 0, plan_.part());
    try {
        if (!seed->words.empty()) strip.restore(*seed);
    } catch (const Error&) {
        throw Error(corrupt + "(its seed is not a state of this strip)");
    }
    const std::vector<uint64_t> mismatches = p_.last_mismatch;
    start_ring(p_, p_.ring_len);
    RecordErrors errors;
    StripBlock b;
    b.rows_done = [&](uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g) {
        record_rows(p_, x, y0, y1, g, errors);
    };
    while (strip.columns_done() < target) {
        b.columns = std::min(kBlockColumns, target - strip.columns_done());
        strip.advance_block(b);
    }
    p_.last_mismatch = mismatches;
    StripSnapshot live;
    strip.snapshot(live);
    if (errors.out_of_bounds || state_crc(live.words) != p_.strip_check)
        throw Error(corrupt + "(its seed does not lead to the state it recorded)");
    p_.strip = std::move(live);
    if (!seed->words.empty() && o_.compact_checkpoints) seeds_.push_back(seed);
}

}  // namespace grundy::strip
