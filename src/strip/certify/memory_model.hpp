// The memory a strip run holds beside its rings, as check_periods_memory (certify.cpp) counts it
// before a run and Certification::limit_tables (ring_seed.cpp) after a ring was laid out again.
#pragma once

#include <cstdint>

#include "strip/sweep/boundary_bits.hpp"

namespace grundy::strip {

// The settled rows' two tables (SettledBoundary: 3Y bits a column and a diagonal per column of
// their period), and for a moment half as much again while the period doubles.
inline uint64_t settled_table_bytes(uint64_t rows, uint64_t period) {
    return 5 * period * boundary_words(rows) * 8 / 2;
}

// The strip's windows and saved states (a few bytes per row squared: 4096 rows, a few tens of
// MB) and the program itself.
inline uint64_t strip_fixed_bytes(uint64_t rows) {
    return 8 * rows * rows + (uint64_t{48} << 20);
}

}  // namespace grundy::strip
