// The group /analysis/row_periods of the one row-periods format (row_periods_format.hpp), written
// into an HDF5 file that io's writers hold open (`grundy analyze`'s results, `grundy periods`'
// file).
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

#include "grundy/row_period.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {

// Creates the group `row_periods` in `analysis` (replacing what an earlier run left there,
// in this layout or the older ones) with one entry per row, and returns it open; the caller
// adds its attributes (the criterion, or the certificate). `path` names the file in errors.
H5Handle write_row_periods_group(hid_t analysis, const std::vector<RowPeriod>& rows,
                                 const std::string& path);

}  // namespace grundy::io
