// What the certified runs' HDF5 output needs besides the public write_periods_hdf5.
#pragma once

#include <string>

namespace grundy::io {

// Whether `path` is the HDF5 output of a stopped `grundy periods` run (complete = 0,
// resumable = 1, /analysis/row_periods with certified_rows): a resumed run may replace it.
bool is_stopped_periods_file(const std::string& path);

}  // namespace grundy::io
