// The checkpoint file of `grundy periods`: everything a run needs to continue (SearchState),
// written atomically (a temporary file, fsync, rename, fsync of the directory) and read back
// with every check (magic, version, rows, sizes, CRC-32 of the whole body).
#pragma once

#include <cstdint>
#include <string>

#include "strip/search_state.hpp"

namespace grundy::strip {

// Throws grundy::Error if the file cannot be written; the previous checkpoint is then intact.
void write_checkpoint(const std::string& path, const SearchState& p, uint64_t rows);
// Throws grundy::Error for a file that is missing, not a checkpoint, of another version or
// number of rows, truncated or corrupt.
SearchState load_checkpoint(const std::string& path, uint64_t rows, uint64_t state_words);

}  // namespace grundy::strip
