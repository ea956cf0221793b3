// Coordinate variables for netCDF-4 readers: HDF5 dimension scales (the HDF5 high-level
// library's H5DS) named after the table's axes, attached to /grundy, so that ncdump, xarray and
// other netCDF-4 tools name its dimensions (y, x) instead of phony_dim_0, phony_dim_1.
#pragma once

#include <hdf5.h>

#include <cstdint>

namespace grundy::io {

// Creates the datasets /y (0..rows-1) and /x (0..cols-1) in `file`, unsigned 32-bit, chunked
// and deflated (a few KiB even for 2^31 values), makes them dimension scales and attaches them
// to the axes 0 and 1 of `table`. Throws grundy::Error when HDF5 refuses.
void attach_coordinates(hid_t file, hid_t table, uint64_t rows, uint64_t cols);

// Whether `file` has both coordinate datasets (files written before they existed have none).
bool has_coordinates(hid_t file);

}  // namespace grundy::io
