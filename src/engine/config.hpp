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

}  // namespace grundy::engine
