// The per-row records of a certification: each column's values appended to the ring, the
// columns where a row differs from the value a ring length before (its last one gives the exact
// preperiod), Landman's bounds checked on every value, and the exact minimal period of a block.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "strip/certify/search_state.hpp"

namespace grundy::strip {

// The least divisor q of P for which `block` (one whole period of a P-periodic sequence) is
// q-periodic cyclically, hence q-periodic for ever.
uint64_t minimal_period(std::span<const uint16_t> block);

// The ring length phase 1 tries (certify.cpp), within `budget_bytes`; 0: no ring.
uint64_t speculative_ring(uint64_t rows, uint64_t budget_bytes);

// What record_rows found wrong, reported by the driver after the block (band threads must not
// throw past the strip).
struct RecordErrors {
    std::mutex mutex;
    bool out_of_bounds = false;
    uint64_t x = 0, y = 0;
};

// Appends rows y0..y1-1 of column x (g[y - y0] = g(x, y)) to the ring and notes the rows whose
// value differs from the one ring_len columns before. Runs on the band's thread: it touches only
// these rows' ring entries and last mismatches.
void record_rows(SearchState& p, uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g,
                 RecordErrors& errors);

// Rows y0..y1-1 of column x as a strip reports them (StripBlock::rows_done): those the ring
// holds by record_rows; those below it (SearchState::rows_in_ring) into p.low_ring when
// `into_low_ring` (a ring swept again from a seed, ring_seed.cpp), else they are not kept.
void record_reported(SearchState& p, uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g,
                     RecordErrors& errors, bool into_low_ring);

// After a block: the checks record_rows could not throw for itself.
void check_record(const SearchState& p, RecordErrors& errors);

}  // namespace grundy::strip
