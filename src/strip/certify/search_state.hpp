// The state of a certification that a checkpoint carries: the phase, the live strip, Brent's
// saved state, the certificate once found, and the ring of recent values per row that gives the
// exact preperiods (certification.hpp says how they fit together).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "base/big_memory.hpp"
#include "grundy/row_period.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy::strip {

inline constexpr uint64_t kNone = ~uint64_t{0};
// A row's last mismatch when none has been seen since a ring laid out again began
// (SearchState::ring_from), and one may lie before it: low_mismatch then says more.
inline constexpr uint64_t kUnseen = kNone - 1;

// The ring's storage: calloc, so the zero pages cost nothing until the sweep reaches them (a
// vector would write gigabytes of zeros up front), in huge pages where the system gives them:
// each column's records write a ring slot of 2Y bytes, and the comparisons read slots a ring's
// length back, so in 4 KiB pages every slot is TLB misses. A 2048-row strip of 2^20 columns on
// a 2-core Zen 5 machine took 0.94 times the time (docs/benchmarks.md, the strip).
class Ring {
  public:
    void assign(uint64_t n) {
        data_.reset();
        size_ = 0;
        if (n == 0) return;
        data_.reset(static_cast<uint16_t*>(std::calloc(n, sizeof(uint16_t))));
        if (!data_) throw std::bad_alloc();
        size_ = n;
        base::advise_huge_pages(data_.get(), n * sizeof(uint16_t));
    }
    // To n >= size() values, keeping the first size() (the others are not set): realloc, which
    // for a buffer this large remaps its pages instead of copying them.
    void grow(uint64_t n) {
        if (n <= size_) return;
        void* q = std::realloc(data_.get(), n * sizeof(uint16_t));
        if (!q) throw std::bad_alloc();
        (void)data_.release();
        data_.reset(static_cast<uint16_t*>(q));
        size_ = n;
        base::advise_huge_pages(q, n * sizeof(uint16_t));
    }
    uint16_t* data() { return data_.get(); }
    const uint16_t* data() const { return data_.get(); }
    uint64_t size() const { return size_; }
    uint16_t operator[](uint64_t i) const { return data_.get()[i]; }

  private:
    struct Free {
        void operator()(uint16_t* q) const { std::free(q); }
    };
    std::unique_ptr<uint16_t, Free> data_;
    uint64_t size_ = 0;
};

// Everything a run needs to continue: the phase, the live strip, and the phase's own data.
struct SearchState {
    uint32_t phase = 1;   // 1: cycle search (and its tail), 2: second pass
    StripSnapshot strip;  // after column strip.column; empty words: no column swept yet
    // phase 1
    bool has_saved = false;
    StripSnapshot saved;
    uint64_t power = 1;
    // the certificate, once found
    bool found = false;
    uint64_t x0 = 0, period = 0;
    // this process's rows first_row..end_row-1 (all of them but with ranks: rank_link.hpp)
    uint64_t first_row = 0, end_row = 0;
    // per-row ring of the last ring_len values of g - x + 2y of this process's rows, at
    // ring_index(x, y), and the last x with d(x + ring_len) != d(x) (at y - first_row)
    uint64_t ring_len = 0;
    std::vector<uint64_t> last_mismatch;  // kNone if none, kUnseen (above)
    Ring ring;
    // The first column the ring holds: 0, or where it was laid out again at a greater length
    // (PeriodsOptions::grow_ring, ring_seed.cpp). Values are compared a ring length back from
    // ring_from + ring_len on.
    uint64_t ring_from = 0;
    // Phase 1 of a ring laid out again: rows first_row..unringed_rows-1, certified before it, are
    // kept in a ring of their own, of the length they settled in (low_len), for the sweep.
    Ring low_ring;
    uint64_t low_len = 0;
    // And for each of this process's rows (empty if not laid out again), its last mismatch
    // d(x + low_len) != d(x) up to x = ring_from - 1 at least, as the shorter ring saw it: the
    // row's last mismatch if its period divides low_len and it has none from ring_from on.
    std::vector<uint64_t> low_mismatch;
    // The ring has room for rows ring_first .. ring_first + ring_stride - 1: this process's rows
    // and, with ranks, rows it may take over later without laying the ring out again
    // (rank_moves.hpp). Rank 0's ring starts at row 0.
    uint64_t ring_first = 0, ring_stride = 0;
    uint64_t ring_index(uint64_t x, uint64_t y) const {
        return (x % ring_len) * ring_stride + (y - ring_first);
    }
    // The rows the ring holds values of: rows_in_ring()..end_row-1, this process's rows but, in
    // phase 2, those that phase 1 certified (unringed_rows), and in phase 1 those in low_ring.
    uint64_t unringed_rows = 0;
    uint64_t rows_in_ring() const { return std::min(end_row, std::max(first_row, unringed_rows)); }
    // phase 1: rows 0..settled_rows-1 repeat with settled_period (dividing ring_len) and are no
    // longer swept; settled_since: (rows, column) each time more rows settled, in order, the
    // column the repeat that settled them began at (the compared state's).
    uint64_t settled_rows = 0, settled_period = 0;
    std::vector<std::pair<uint64_t, uint64_t>> settled_since;
    // Compact checkpoints (PeriodsOptions::compact_checkpoints): the state after seed->column,
    // a ring length or more before strip.column, from which a resumed run sweeps the ring
    // again (ring_seed.cpp); no words: from column 0. Set, the file holds neither the ring nor
    // strip.words, only strip_check, the CRC-32 of those words, which the sweep must reach.
    std::shared_ptr<const StripSnapshot> seed;
    uint32_t strip_check = 0;
    // Rows 0..final_rows.size()-1, certified before the whole strip (final_rows.cpp), on the
    // process that has them (rank 0 with ranks). Checkpoints carry them in phase 2 only: in
    // phase 1 the ring gives them again.
    std::vector<RowPeriod> final_rows;
};

// The values both rings hold, as the strip reads settled rows (SettledRows::at); the rows and
// period are the caller's.
inline SettledRows ring_view(const SearchState& p) {
    SettledRows v;
    v.values = p.ring.data();
    v.length = p.ring_len;
    v.stride = p.ring_stride;
    v.first = p.ring_first;
    v.low_values = p.low_ring.data();
    v.low_length = p.low_len;
    return v;
}

// A fresh ring of L columns for rows p.rows_in_ring()..p.end_row-1.
inline void start_ring(SearchState& p, uint64_t L) {
    const uint64_t rows = p.end_row - p.rows_in_ring();
    p.ring_len = L;
    p.ring.assign(0);
    p.ring.assign(rows * L);
    p.ring_first = p.rows_in_ring();
    p.ring_stride = rows;
    p.last_mismatch.assign(p.end_row - p.first_row, kNone);
}

}  // namespace grundy::strip
