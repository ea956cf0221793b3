// The table's file driver: HDF5's own POSIX driver (sec2) for everything but the bulk of the
// chunks, which go to the disk with direct I/O (O_DIRECT), past the page cache.
//
// Why: a table is written once and not read back by the run. Through the page cache each byte
// is copied into a freshly allocated page, which is most of the output's system time (on a
// virtual machine whose free memory goes back to the host, 0.4 s of CPU for a 16384² table on
// two cores already busy computing), and the cached pages count against a batch job's memory
// limit (cgroups charge the page cache to the job). Direct writes cost neither.
//
// The files are the same, byte for byte: only how the bytes reach the disk changes. Each raw
// data write is split at page boundaries; its whole pages are written directly (through an
// aligned buffer), its unaligned head and tail, and all metadata, through sec2. Where the file
// system refuses direct I/O (open or write fails with EINVAL), everything goes through sec2.
#pragma once

#include <hdf5.h>

#include <cstdint>

#include "io/h5_handle.hpp"

namespace grundy::io {

// A file-access property list for H5Fcreate / H5Fopen: direct writes when `direct`, else
// plain sec2 (what H5P_DEFAULT gives). Invalid where HDF5 refused it.
H5Handle table_file_access(bool direct);

// Whether `file` was opened through table_file_access(true)'s driver.
bool uses_direct_writes(hid_t file);

// Bytes of raw data written directly and through the page cache so far (tests, the summary).
struct DirectWriteCounts {
    uint64_t direct = 0;
    uint64_t buffered = 0;
    bool direct_refused = false;  // the file system refused direct I/O
};
DirectWriteCounts direct_write_counts(hid_t file);

}  // namespace grundy::io
