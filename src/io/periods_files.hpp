// The files of a certified run (PeriodsOptions::csv and output): what certify_row_periods
// writes after every checkpoint and at the end, and what `grundy periods` prints without --csv.
#pragma once

#include <string>
#include <vector>

#include "grundy/periods.hpp"

namespace grundy {

// The rows of a result as its files list them: rows_asked rows, those not in `rows`
// undetermined; and the comment lines a stopped run's CSV starts with (none when certified),
// which say whether --resume continues it (`resumable`: the run keeps a checkpoint).
std::vector<RowPeriod> listed_rows(const PeriodsResult& result);
std::vector<std::string> periods_comment(const PeriodsResult& result, bool resumable);

// The CSV and HDF5 files of PeriodsOptions (csv, output) for this result. Throws grundy::Error
// if one cannot be written (the old file is then intact).
void write_periods_files(const PeriodsOptions& options, const PeriodsResult& result);

}  // namespace grundy
