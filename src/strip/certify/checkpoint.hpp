// The checkpoint file of `grundy periods`: everything a run needs to continue (SearchState),
// written atomically (a temporary file, fsync, rename, fsync of the directory) and read back
// with every check (magic, version, rows, sizes, CRC-32 of the whole body).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strip/certify/search_state.hpp"

namespace grundy::strip {

// Throws grundy::Error if the file cannot be written; the previous checkpoint is then intact.
// `before_commit`, if set, is called once the bytes are in PATH.tmp, before it replaces PATH (a
// testing hook: a run killed there leaves a save half done).
void write_checkpoint(const std::string& path, const SearchState& p, uint64_t rows,
                      const std::function<void()>& before_commit = {});
// Throws grundy::Error for a file that is missing, not a checkpoint, of another version or
// number of rows, of other rows of this process (first_row..end_row-1), truncated or corrupt.
SearchState load_checkpoint(const std::string& path, uint64_t rows, uint64_t state_words,
                            uint64_t first_row, uint64_t end_row);

// The CRC-32 of a state's words: what a compact checkpoint keeps of its live state.
uint32_t state_crc(const std::vector<uint64_t>& words);

// A run of several ranks (rank_link.hpp) checkpoints into one part per rank,
// rank_part_path(F, r, column), all at the same column, and then the manifest F naming that
// column, written last and atomically: the commit point. A part is removed only once a newer
// manifest names a newer one, so a run killed at any moment leaves a manifest whose parts all
// exist. The manifest also names each rank's rows (they change during a run: rank_moves.hpp).
// There is one manifest, replaced whole, so the newest complete save is always the one it names;
// a save interrupted before its manifest leaves only strays (parts of another column, PATH.tmp
// files), which remove_stray_parts deletes.
struct Manifest {
    uint64_t rows = 0, ranks = 0, column = 0;
    std::vector<uint64_t> starts;  // rank r's rows: starts[r]..starts[r + 1]-1; ranks + 1 entries
};
std::string rank_part_path(const std::string& manifest, int rank, uint64_t column);
void write_manifest(const std::string& path, const Manifest& m);
bool is_manifest(const std::string& path);
Manifest read_manifest(const std::string& path);
// Removes the files beside `manifest` that no resume can use: its parts of any column but
// `column` (of any rank), every part's and the manifest's own .tmp. Returns how many it removed;
// a file that cannot be removed is left (the next save tries again).
uint64_t remove_stray_parts(const std::string& manifest, uint64_t column);

}  // namespace grundy::strip
