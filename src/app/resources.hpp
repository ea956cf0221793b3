// What this machine can hold: physical memory and free disk space, for refusing up front a run
// that cannot fit instead of failing hours later.
#pragma once

#include <cstdint>
#include <string>

namespace grundy::app {

uint64_t physical_memory_bytes();
// Free bytes on the file system holding `path` (or its directory); 0 if unknown.
uint64_t free_disk_bytes(const std::string& path);

}  // namespace grundy::app
