// The settled rows of a strip and where their values are kept (Strip::settle).
#pragma once

#include <cstdint>

namespace grundy::strip {

// Rows 0..rows-1 of a strip known to be periodic for ever (their sub-strip's state repeated:
// the sub-strip of the lowest rows evolves on its own, so that is a certificate for them), with
// the rings the caller keeps their values in. g(x, y) - x + 2y of column x is
// values[(x mod length) * stride + y - first] for the rows from `first` on, and for the rows
// below it (a run whose ring was lengthened for the rows above them, ring_seed.cpp)
// low_values[(x mod low_length) * first + y]. Every row's period divides its ring's length and
// `period`. Their cells are no longer swept: the rows above get their column and diagonal sets
// from tables over one period (settled_boundary.hpp), a reported cell its value from `period`
// columns before, and a state's settled part is rebuilt from the rings. So the rings must hold
// every settled row's value of the last length columns: the caller records the reported rows,
// and a row repeating in its ring (recorded for a whole length since it settled) may be left out
// of the reports.
struct SettledRows {
    uint64_t rows = 0;
    uint64_t period = 0;
    const uint16_t* values = nullptr;
    uint64_t length = 0;
    uint64_t stride = 0;
    uint64_t first = 0;
    const uint16_t* low_values = nullptr;
    uint64_t low_length = 0;

    // The values of column x from row y on, within y's ring: y's value is the first.
    const uint16_t* at(uint64_t x, uint64_t y) const {
        if (y < first) return low_values + (x % low_length) * first + y;
        return values + (x % length) * stride + (y - first);
    }
};

}  // namespace grundy::strip
