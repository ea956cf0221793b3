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

// Strips (grundy periods), swept by bands of rows in a pipeline (strip.hpp).
// Fewest rows per band: below this, handing columns between threads costs more than the band's
// own work, so a narrow strip gets fewer threads.
inline constexpr uint64_t kMinStripBandRows = 8;
// Columns the lowest band may run ahead of the highest: column windows and spare diagonal slots
// (a few hundred bytes each at 1024 rows). Many, because on a busy machine a thread loses the
// CPU for milliseconds (hundreds or thousands of columns) and the others should keep going.
inline constexpr uint64_t kStripLag = 4096;
// Polls of a neighbour's progress before a waiting band sleeps (a few microseconds).
inline constexpr uint32_t kStripSpins = 2000;
// Cost of a cell of row y, in the units of kStripCostPerRow * y + kStripCostBase, for the first
// cuts of the rows into bands of equal work (a cell's scan grows with y, but slowly: 12.4 +
// 0.019 y ns on the project's machine); long blocks then move the cuts by measurement.
inline constexpr uint64_t kStripCostBase = 640;
inline constexpr uint64_t kStripCostPerRow = 1;
// Blocks of at least this many columns move the cuts between bands towards equal CPU time
// (Strip::rebalance): long enough for the threads' clocks to measure the work.
inline constexpr uint64_t kStripRebalanceColumns = 4096;
// How many cells ahead a strip's column sweep prefetches the words of the row and diagonal
// windows (strip_sweep.hpp).
inline constexpr uint64_t kStripPrefetchCells = 4;

}  // namespace grundy::engine
