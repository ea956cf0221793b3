// Tuning constants of the engine, together, each with what it trades.
#pragma once

#include <cstdint>

namespace grundy::engine {

// Words every window keeps addressable beyond the highest value a scan can reach, so the mex
// kernel may read whole vectors (8 words for AVX-512) without bounds checks.
inline constexpr uint64_t kScanPadWords = 8;

// Smallest allocation of a window, in words: below this, growing costs more than it saves.
inline constexpr uint64_t kMinWindowWords = 16;

// Tile sides: big enough that a tile's work dwarfs scheduling and its chunk compresses well,
// small enough that a square has many tiles per side for the threads to share. Measured on
// 2 threads, 16384^2 with output: tile 512 3.44 s, 256 3.73-3.82 s, 1024 3.55-3.66 s, 128
// 5.4 s; 4096^2 and 8192^2: 512 as fast or faster than 256. The default is the largest tile
// that leaves kTilesPerThread tiles per side per thread, down to kSmallestDefaultTile.
inline constexpr uint32_t kDefaultTile = 512;
inline constexpr uint32_t kSmallestDefaultTile = 64;
inline constexpr uint64_t kTilesPerThread = 4;
inline constexpr uint32_t kMinTile = 8;
inline constexpr uint32_t kMaxTile = 4096;

// Strips (grundy periods), swept as tiles of bands of rows by chunks of columns (strip.hpp).
// Fewest rows per band: below this, a tile's handing over costs more than its own work.
inline constexpr uint64_t kMinStripBandRows = 8;
// Bands per thread: enough ready tiles that an idle thread finds one even while another thread
// has lost its CPU (the project's machine is shared), few enough that tiles stay large.
inline constexpr uint64_t kStripBandsPerThread = 4;
// Columns per tile: a tile of 64 rows is then about 0.3 ms of work, against microseconds of
// task overhead. Must divide kStripLag.
inline constexpr uint64_t kStripChunkColumns = 256;
// Columns the lowest band may run ahead of the highest: column windows and spare diagonal slots
// (a few hundred bytes each at 1024 rows), 16 chunks.
inline constexpr uint64_t kStripLag = 4096;
static_assert(kStripLag % kStripChunkColumns == 0);
// Columns per message between the ranks of a strip (rank_link.hpp): 2 x 3Y bits each, so 96 KiB
// at 512 rows, against microseconds of latency per message.
inline constexpr uint64_t kStripMessageColumns = 256;
// Messages a rank may have sent that the next has not received yet: how far it may run ahead.
inline constexpr uint64_t kStripMessagesInFlight = 8;
// Cost of a cell of row y, in the units of kStripCostPerRow * y + kStripCostBase, for cutting
// the rows into bands of equal work (a cell's scan grows with y, but slowly: 12.4 + 0.019 y ns
// on the project's machine).
inline constexpr uint64_t kStripCostBase = 640;
inline constexpr uint64_t kStripCostPerRow = 1;
inline constexpr uint64_t strip_row_cost(uint64_t y) {
    return kStripCostBase + kStripCostPerRow * y;
}
// How many cells ahead a strip's column sweep prefetches the words of the row and diagonal
// windows (strip_sweep_template.hpp).
inline constexpr uint64_t kStripPrefetchCells = 4;

}  // namespace grundy::engine
