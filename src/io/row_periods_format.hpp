// The one row-periods format of `grundy analyze` and `grundy periods` (layout in
// row_periods_format.cpp), whichever command found the periods: the CSV, and the rows read back
// from a file's /analysis/row_periods (the viewer shows them). The group's writer, over an open
// HDF5 file, is row_periods_group.hpp.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "grundy/row_period.hpp"

namespace grundy {

// The row-periods CSV of src/DESIGN.md (section 5.3), the same for `grundy analyze` and
// `grundy periods`:
// row,preperiod,period,periods_observed,certified,block (block space-separated, empty without
// `blocks`; preperiod, period and periods_observed empty where the row is undetermined, and
// periods_observed empty for a certified row). `comment` lines, if any, come first, each
// prefixed with "# ". Written whole or not at all (PATH.tmp, renamed).
void write_row_periods_csv(const std::string& path, const std::vector<RowPeriod>& rows,
                           const std::vector<std::string>& comment = {}, bool blocks = true);
// The same CSV (header and rows) to a stream, e.g. standard output.
void write_row_periods_csv(std::ostream& out, const std::vector<RowPeriod>& rows,
                           bool blocks = true);

}  // namespace grundy

namespace grundy::io {

// The rows of /analysis/row_periods in the file at `path`, whichever command wrote them, without
// their blocks: row, periodicity (none where the period is 0: undetermined) and, where the file
// has them, periods_observed and certified. nullopt when the file has no such group or its
// row, preperiod and period cannot be read alike (an older layout: a [rows, 4] dataset).
std::optional<std::vector<RowPeriod>> read_row_periods(const std::string& path);

}  // namespace grundy::io
