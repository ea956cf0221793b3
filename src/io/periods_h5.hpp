// The certified runs' HDF5 output (periods_h5.cpp), and whether an existing file is a stopped
// run's.
#pragma once

#include <string>

#include "grundy/periods.hpp"

namespace grundy {

// /analysis/row_periods in a new HDF5 file (the layout of `grundy analyze`,
// docs/file-format.md, with the certificate as the group's attributes), written whole
// (PATH.part, renamed). A stopped run's file lists every row asked for, the ones not certified
// yet undetermined, and has complete = 0, resumable = 1 and the group's attributes
// certified_rows and column instead of the certificate.
void write_periods_hdf5(const std::string& path, const PeriodsResult& result, bool force);

}  // namespace grundy

namespace grundy::io {

// Whether `path` is the HDF5 output of a stopped `grundy periods` run (complete = 0,
// resumable = 1, /analysis/row_periods with certified_rows): a resumed run may replace it.
bool is_stopped_periods_file(const std::string& path);

}  // namespace grundy::io
