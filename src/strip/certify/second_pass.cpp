// Phase 2 of a certification: when phase 1's ring cannot give the preperiods (P does not divide
// its length), a fresh sweep from column 0 to x0 + P with a ring of exactly P, for the rows that
// phase 1 did not certify: the others have their results already (final_rows.cpp), and a ring
// of the longer period over every row would take twice the memory of phase 1's.
#include <algorithm>
#include <string>

#include "grundy/error.hpp"
#include "strip/certify/certification.hpp"
#include "strip/ranks/rank_link.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

void Certification::start_second_pass() {
    add_final_rows();  // while the ring of phase 1 holds them
    uint64_t certified = p_.final_rows.size();
    if (plan_.link()) certified = plan_.link()->max_of(certified);  // rank 0's
    p_.phase = 2;
    drop_seeds();
    // A fresh strip from column 0 without settled rows: the first cut is the balanced one.
    if (plan_.link()) {
        plan_.reset();
        p_.first_row = plan_.part().lo;
        p_.end_row = plan_.part().hi;
    }
    unrecorded_rows_ = 0;  // a fresh ring, and a fresh strip without settled rows
    p_.settled_rows = p_.settled_period = 0;
    p_.settled_since.clear();
    p_.strip.words.clear();
    p_.unringed_rows = certified;
    p_.low_ring.assign(0);  // the certified rows are swept again, from column 0
    p_.low_len = p_.ring_from = 0;
    p_.low_mismatch.clear();
    const double bytes =
        static_cast<double>(p_.end_row - p_.rows_in_ring()) * static_cast<double>(p_.period) * 2.0;
    if (bytes > 32.0 * (1ull << 30))
        throw Error("the strip's period " + std::to_string(p_.period) + " needs a ring of " +
                    std::to_string(bytes / (1ull << 30)) +
                    " GiB for the exact preperiods; more than 32 GiB");
    start_ring(p_, p_.period);
}

// Phase 2: a second sweep from column 0 with a ring of exactly P, to column x0 + P. False
// when interrupted.
bool Certification::second_pass() {
    Strip pass(Y_, o_.kernel, o_.threads, 0, plan_.part());
    if (!p_.strip.words.empty()) pass.restore(p_.strip);
    StripSnapshot at_x0;
    const uint64_t last = p_.x0 + p_.period;
    for (;;) {
        const uint64_t next = pass.columns_done();
        uint64_t end = std::min(next + kBlockColumns, last + 1);
        if (next <= p_.x0) end = std::min(end, p_.x0 + 1);
        StripBlock b;
        b.columns = end - next;
        b.rows_done = recorder_;
        pass.advance_block(b);
        result_.columns_swept += b.columns;
        result_.column = end;
        check_record(p_, record_errors_);
        // An independent re-check of the certificate on this second sweep (a resumed
        // phase 2 that started past x0 skips it; phase 1 proved it already).
        if (end - 1 == p_.x0) pass.snapshot(at_x0);
        if (end - 1 == last) {
            uint64_t differs = !at_x0.words.empty() && !pass.matches(at_x0);
            if (plan_.link()) differs = plan_.link()->max_of(differs);
            if (differs) throw Error("internal: the certificate did not repeat in phase 2");
            return true;
        }
        report(o_.progress, 2, end, last + 1, p_.x0, pass);
        if (control_.after_block(p_, pass, result_, b.columns)) return false;
    }
}

}  // namespace grundy::strip
