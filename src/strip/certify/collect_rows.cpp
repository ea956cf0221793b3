// The end of a certification: each row's exact preperiod, minimal period and block from the
// ring; with ranks, every rank's rows gathered on rank 0.
#include <algorithm>
#include <exception>
#include <span>
#include <string>

#include "grundy/error.hpp"
#include "strip/certify/certification.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

// Each row's exact preperiod (its last mismatch), minimal period (of one P-block from x0 + 1
// in the ring) and, if asked, its block from the preperiod; with ranks, gathered on rank 0. In
// phase 2 the rows phase 1 certified come from it (rank 0 has them), the others from the ring.
void Certification::collect_rows() {
    const uint64_t from = p_.rows_in_ring();
    result_.rows.clear();
    if (from > p_.first_row && writes_files())
        result_.rows.assign(p_.final_rows.begin(),
                            p_.final_rows.begin() + static_cast<int64_t>(p_.unringed_rows));
    const size_t at = result_.rows.size();
    result_.rows.resize(at + (p_.end_row - from));
    read_rows(from, p_.end_row, p_.x0 + 1, p_.period, result_.rows.data() + at);
    if (plan_.link()) gather_rows();
}

// Rows y0..y1-1 of the ring (this process's), each read over the `length` columns from column
// `from`: columns the ring holds, past every one of these rows' preperiods, and `length` a
// multiple of each row's period; their results into out[y - y0]. The rows are taken a group at
// a time, in one pass over those ring columns per group (a row at a time would read one value
// per ring column, `length` cache misses per row), the groups on the threads.
void Certification::read_rows(uint64_t y0, uint64_t y1, uint64_t from, uint64_t length,
                              RowPeriod* out) const {
    const auto groups = static_cast<int64_t>((y1 - y0 + kCollectRows - 1) / kCollectRows);
    std::exception_ptr error;  // an exception may not leave a thread: carried out
#pragma omp parallel num_threads(std::max(o_.threads, 1))
    {
        std::vector<uint16_t> blocks;
#pragma omp for schedule(dynamic)
        for (int64_t k = 0; k < groups; ++k) {
            const uint64_t a = y0 + static_cast<uint64_t>(k) * kCollectRows;
            try {
                read_group(a, std::min(y1, a + kCollectRows), from, length, blocks, out + (a - y0));
            } catch (...) {
#pragma omp critical(grundy_collect_error)
                if (!error) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
}

// Rows y0..y1-1: one block of `length` columns each (blocks[(y - y0) * length + i] is column
// from + i), then each row's results into out[y - y0].
void Certification::read_group(uint64_t y0, uint64_t y1, uint64_t from, uint64_t length,
                               std::vector<uint16_t>& blocks, RowPeriod* out) const {
    const uint64_t count = y1 - y0;
    blocks.resize(count * length);
    for (uint64_t i = 0, slot = from % p_.ring_len; i < length; ++i) {
        const uint16_t* column = p_.ring.data() + slot * p_.ring_stride + (y0 - p_.ring_first);
        for (uint64_t k = 0; k < count; ++k) blocks[k * length + i] = column[k];
        if (++slot == p_.ring_len) slot = 0;
    }
    for (uint64_t y = y0; y < y1; ++y) {
        const std::span<const uint16_t> block(blocks.data() + (y - y0) * length, length);
        RowPeriod& r = out[y - y0];
        r.row = y;
        r.certified = true;
        Periodicity& f = r.periodicity.emplace();  // periods_observed: 0, not applicable
        f.period = minimal_period(block);
        const uint64_t last = last_mismatch(y, f.period);
        f.preperiod = last == kNone ? 0 : last + 1;
        if (!o_.keep_blocks) continue;
        r.block.resize(f.period);
        for (uint64_t i = 0; i < f.period; ++i) {
            uint64_t c = f.preperiod + i;  // from the preperiod on, f.period-periodic
            if (c < from) c += ((from - c + f.period - 1) / f.period) * f.period;
            r.block[i] = block[c - from];
        }
    }
}

// Row y's last mismatch, given its period: where the ring saw it, or with none seen since a
// ring laid out again began, where the shorter ring did if the period divides its length
// (SearchState::low_mismatch); else the run cannot say.
uint64_t Certification::last_mismatch(uint64_t y, uint64_t period) const {
    const uint64_t i = y - p_.first_row, last = p_.last_mismatch[i];
    if (last != kUnseen) return last;
    if (p_.low_len % period == 0 &&
        (p_.low_mismatch[i] == kNone || p_.low_mismatch[i] < p_.ring_from))
        return p_.low_mismatch[i];
    throw Error("row " + std::to_string(y) + " repeats with period " + std::to_string(period) +
                " from before column " + std::to_string(p_.ring_from) +
                ", where the ring was lengthened: its exact preperiod needs the longer ring from "
                "a checkpoint before that column");
}

// Every rank's rows to rank 0, as words: row, preperiod, period, block length, block.
void Certification::gather_rows() {
    std::vector<uint64_t> mine;
    for (const auto& r : result_.rows) {
        mine.insert(mine.end(),
                    {r.row, r.periodicity->preperiod, r.periodicity->period, r.block.size()});
        mine.insert(mine.end(), r.block.begin(), r.block.end());
    }
    result_.rows.clear();
    const std::vector<uint64_t> all = plan_.link()->gather(mine);
    for (size_t i = 0; i + 4 <= all.size();) {
        RowPeriod r;
        r.row = all[i], r.certified = true;
        r.periodicity = Periodicity{.period = all[i + 2], .preperiod = all[i + 1]};
        const uint64_t n = all[i + 3];
        i += 4;
        if (n > all.size() - i) throw Error("internal: gathered rows are malformed");
        r.block.assign(all.begin() + static_cast<int64_t>(i),
                       all.begin() + static_cast<int64_t>(i + n));
        i += n;
        result_.rows.push_back(std::move(r));
    }
    if (plan_.link()->rank() == 0 && result_.rows.size() != Y_)
        throw Error("internal: rank 0 gathered " + std::to_string(result_.rows.size()) +
                    " rows of " + std::to_string(Y_));
}

}  // namespace grundy::strip
