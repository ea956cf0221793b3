// The end of a certification: each row's exact preperiod, minimal period and block from the
// ring; with ranks, every rank's rows gathered on rank 0.
#include <algorithm>
#include <exception>
#include <span>
#include <string>

#include "grundy/error.hpp"
#include "strip/certification.hpp"
#include "strip/strip_config.hpp"

namespace grundy::strip {

// Each row's exact preperiod (its last mismatch), minimal period (of one P-block from x0 + 1
// in the ring) and, if asked, its block from the preperiod; with ranks, gathered on rank 0.
// The ring holds columns x0 + 1 .. x0 + P (and more) at x mod L; the rows are taken a group
// at a time, in one pass over those P ring columns per group (a row at a time would read
// one value per ring column, P cache misses per row), the groups on the threads.
void Certification::collect_rows() {
    const uint64_t lo = p_.first_row, n = p_.end_row - lo;
    result_.rows.resize(n);
    const auto groups = static_cast<int64_t>((n + kCollectRows - 1) / kCollectRows);
    std::exception_ptr error;  // an exception may not leave a thread: carried out
#pragma omp parallel num_threads(std::max(o_.threads, 1))
    {
        std::vector<uint16_t> blocks;
#pragma omp for schedule(dynamic)
        for (int64_t k = 0; k < groups; ++k) {
            const uint64_t y0 = lo + static_cast<uint64_t>(k) * kCollectRows;
            try {
                collect_group(y0, std::min(p_.end_row, y0 + kCollectRows), blocks);
            } catch (...) {
#pragma omp critical(grundy_collect_error)
                if (!error) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
    if (part_.link) gather_rows();
}

// Rows y0..y1-1: one P-block each (blocks[(y - y0) * P + i] is column x0 + 1 + i), then
// each row's results.
void Certification::collect_group(uint64_t y0, uint64_t y1, std::vector<uint16_t>& blocks) {
    const uint64_t P = p_.period, count = y1 - y0;
    blocks.resize(count * P);
    for (uint64_t i = 0, slot = (p_.x0 + 1) % p_.ring_len; i < P; ++i) {
        const uint16_t* column = p_.ring.data() + slot * p_.ring_stride + (y0 - p_.ring_first);
        for (uint64_t k = 0; k < count; ++k) blocks[k * P + i] = column[k];
        if (++slot == p_.ring_len) slot = 0;
    }
    for (uint64_t y = y0; y < y1; ++y) {
        const std::span<const uint16_t> block(blocks.data() + (y - y0) * P, P);
        RowPeriod& r = result_.rows[y - p_.first_row];
        r.row = y;
        r.certified = true;
        Periodicity& f = r.periodicity.emplace();  // periods_observed: 0, not applicable
        const uint64_t last = p_.last_mismatch[y - p_.first_row];
        f.preperiod = last == kNone ? 0 : last + 1;
        f.period = minimal_period(block);
        if (!o_.keep_blocks) continue;
        r.block.resize(f.period);
        for (uint64_t i = 0; i < f.period; ++i) {
            uint64_t c = f.preperiod + i;  // from the preperiod on, f.period-periodic
            if (c < p_.x0 + 1) c += ((p_.x0 + 1 - c + f.period - 1) / f.period) * f.period;
            r.block[i] = block[c - (p_.x0 + 1)];
        }
    }
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
    const std::vector<uint64_t> all = part_.link->gather(mine);
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
    if (part_.link->rank() == 0 && result_.rows.size() != Y_)
        throw Error("internal: rank 0 gathered " + std::to_string(result_.rows.size()) +
                    " rows of " + std::to_string(Y_));
}

}  // namespace grundy::strip
