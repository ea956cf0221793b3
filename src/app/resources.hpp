// What this machine can hold on disk (memory: grundy/memory.hpp), for refusing up front a run
// that cannot fit instead of failing hours later.
#pragma once

#include <cstdint>
#include <string>

namespace grundy::app {

// Free bytes on the file system holding `path` (or its directory); 0 if unknown.
uint64_t free_disk_bytes(const std::string& path);

}  // namespace grundy::app
