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
// small enough that a square has many tiles per anti-diagonal for the threads to share.
inline constexpr uint32_t kDefaultTile = 256;
inline constexpr uint32_t kMinTile = 8;
inline constexpr uint32_t kMaxTile = 4096;

}  // namespace grundy::engine
