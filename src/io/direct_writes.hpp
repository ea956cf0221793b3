// The table's file driver: HDF5's own POSIX driver (sec2) for everything but the bulk of the
// chunks, which go to the disk with direct I/O (O_DIRECT), past the page cache.
//
// Why: a table is written once and not read back by the run. Through the page cache each byte
// is copied into a freshly allocated page, which is most of the output's system time (on a
// virtual machine whose free memory goes back to the host, 0.4 s of CPU for a 16384² table on
// two cores already busy computing), and the cached pages count against a batch job's memory
// limit (cgroups charge the page cache to the job). Direct writes cost neither.
//
// The files are the same, byte for byte: only how the bytes reach the disk changes. Raw data writes
// that follow one another in the file (a run's chunks, as HDF5 places them) are gathered in an
// aligned buffer of 2 MiB (one huge page, few segments a request) and its whole pages written
// directly when it fills: a 16384² table's 307 MiB in about 150 writes where there was one a chunk,
// each a wait of the writer thread and a wake-up that took a worker's core (docs/benchmarks.md).
// The head of such a sequence up to its first page boundary, the part page at its end, and all
// metadata go through sec2; before any other write, a read of gathered bytes, a flush, a truncation
// or the close, what is gathered is written, so that no metadata reaches the disk before the data
// it points to. Where the file system refuses direct I/O (open or write fails with EINVAL),
// everything goes through sec2.
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
    uint64_t direct_writes = 0;  // the writes that took the `direct` bytes
    uint64_t buffered = 0;
    bool direct_refused = false;  // the file system refused direct I/O
};
DirectWriteCounts direct_write_counts(hid_t file);

}  // namespace grundy::io
