// Writing past the page cache (O_DIRECT): what the table's chunks (io/direct_writes.cpp) and a
// strip's checkpoint (atomic_file.cpp) share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace grundy::base {

// Direct I/O wants the buffer, the file offset and the length aligned to the device's logical
// block; a page is a multiple of it on every Linux file system that allows direct I/O.
constexpr size_t kDirectAlign = 4096;

// Writes `bytes` of `data` at `offset` through `fd`, a descriptor opened O_DIRECT; `data`,
// `offset` and `bytes` are multiples of kDirectAlign. Returns how many bytes reached the file.
// Fewer than `bytes` where it stopped, with errno saying why: EINVAL where the rest must go
// through the page cache (the file system refused direct I/O, or a short write ended off the
// alignment), anything else a real error (a full disk, EIO). Retries when a signal interrupts.
size_t write_direct(int fd, const void* data, size_t bytes, uint64_t offset);

}  // namespace grundy::base
