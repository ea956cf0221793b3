// The rows certified before the whole strip is, kept as the run goes: rows 0..m-1 whose
// sub-strip's state repeated (they settled, cycle_search.cpp) have their exact preperiod and
// period in the ring once a ring length has been swept past the repeat. They are written to the
// run's files after every checkpoint and when the run stops, so that no settled row is lost.
#include <algorithm>

#include "grundy/error.hpp"
#include "io/periods_files.hpp"
#include "strip/certify/certification.hpp"
#include "strip/ranks/rank_link.hpp"

namespace grundy::strip {

// One process, or rank 0: settled rows are rank 0's (RankPlan::settle_limit), and it writes the
// files.
bool Certification::writes_files() const {
    return !plan_.link() || plan_.link()->rank() == 0;
}

// Rows 0..m-1 settled at least a ring length before the next column: every mismatch
// d(x + L) != d(x) they have (all at x <= the repeat's first column) has been seen, and the
// ring holds whole periods of them past it.
uint64_t Certification::final_row_count(uint64_t next) const {
    if (p_.phase != 1 || !writes_files()) return p_.final_rows.size();
    return std::min(rows_repeating_in_ring(next), p_.end_row);
}

// The rows final now added to p_.final_rows, read off the ring's last settled_period columns: the
// last repeat's distance is an eventual period of every settled row (their sub-strip repeats
// with it), and those columns lie past that repeat's first column (it was a whole distance
// before a column already swept).
void Certification::add_final_rows() {
    add_final_rows_at(strip_->columns_done());
}

// The same before column `next`, which the ring has reached.
void Certification::add_final_rows_at(uint64_t next) {
    const uint64_t k = final_row_count(next), y0 = p_.final_rows.size();
    if (k <= y0) return;
    const uint64_t lambda = p_.settled_period;
    p_.final_rows.resize(k);
    read_rows(y0, k, next - lambda, lambda, p_.final_rows.data() + y0);
}

// The run's files (PeriodsOptions::csv, output): result_ once `certified`, else the rows
// certified so far; why they could not be written, or "" (with ranks, on every rank: rank 0
// writes them).
std::string Certification::write_files(bool certified) {
    if (o_.csv.empty() && o_.output.empty()) return "";
    std::string error;
    if (writes_files()) {
        PeriodsResult r;
        if (!certified) {
            add_final_rows();
            r.status = result_.status == PeriodsResult::Status::NotCertified
                           ? PeriodsResult::Status::NotCertified
                           : PeriodsResult::Status::Interrupted;
            r.rows = p_.final_rows;
            r.rows_asked = Y_;
            r.phase = static_cast<int>(p_.phase);
            r.column = result_.column;
            r.kernel = result_.kernel;
            r.repeating_rows = result_.repeating_rows;
            r.repeating_period = result_.repeating_period;
            r.repeating_tables_only = result_.repeating_tables_only;
        }
        try {
            write_periods_files(o_, certified ? result_ : r);
        } catch (const Error& e) {
            error = e.what();
        }
    }
    return plan_.link() ? plan_.link()->first_error(error) : error;
}

}  // namespace grundy::strip
