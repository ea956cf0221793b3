// The one row-periods format of `grundy analyze` and `grundy periods` (layout in
// row_periods_format.cpp), whichever command found the periods: read back from a file's
// /analysis/row_periods (the viewer shows them). The group's writer, over an open HDF5 file, is
// row_periods_group.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grundy/row_period.hpp"

namespace grundy::io {

// The rows of /analysis/row_periods in the file at `path`, whichever command wrote them, without
// their blocks: row, periodicity (none where the period is 0: undetermined) and, where the file
// has them, periods_observed and certified. nullopt when the file has no such group or its
// row, preperiod and period cannot be read alike (an older layout: a [rows, 4] dataset).
std::optional<std::vector<RowPeriod>> read_row_periods(const std::string& path);

}  // namespace grundy::io
