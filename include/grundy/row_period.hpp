// One row's period, whichever way it was found: by the criterion of periodicity.hpp on the
// stored columns of a table (`grundy analyze`, grundy/analysis.hpp) or certified for ever by a
// strip (`grundy periods`, grundy/periods.hpp). Both write it in the one row-periods CSV of
// src/DESIGN.md (section 5.3) and docs/file-format.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "grundy/periodicity.hpp"

namespace grundy {

struct RowPeriod {
    uint64_t row = 0;
    // The period and preperiod of d(x) = g(x, y) - x. nullopt: undetermined under the criterion
    // (never for a certified row). For a certified row they are exact and hold for ever, and
    // periods_observed, which counts whole periods in a table's stored columns, does not apply:
    // it is 0 (and empty in the CSV).
    std::optional<Periodicity> periodicity;
    bool certified = false;  // found by certify_row_periods, not by the criterion
    // g(x, y) - x + 2y for x = preperiod .. preperiod + period - 1. Wythoff's bounds
    // x - 2y <= g <= x + y put each value in 0..3y. One type for both kinds of row: 16 bits hold
    // the rows up to 21845 only, enough for a strip (at most 16384 rows) but not for a table (up
    // to 2^31 rows); 32 bits hold every row up to (2^32 - 1) / 3. A row of the criterion whose
    // block would not fit (a higher row, or a table that breaks the bounds) has an empty block
    // rather than a wrong one. Certified rows: empty unless PeriodsOptions::keep_blocks.
    std::vector<uint32_t> block;
};

}  // namespace grundy
