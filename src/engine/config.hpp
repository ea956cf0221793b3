// Tuning constants of the engine, together, each with what it trades.
#pragma once

#include <cstdint>

namespace grundy::engine {

// Words every window keeps addressable beyond the highest value a scan can reach, so the mex
// kernel may read whole vectors (8 words for AVX-512) without bounds checks.
inline constexpr uint64_t kScanPadWords = 8;

// A line: the words of one 64-byte cache line, 512 values. Windows start at a line (their base
// is a multiple of it) and hold whole lines, so a vector kernel reads a line of each window with
// one aligned load, and the summaries have a bit per line (bit_window.hpp).
inline constexpr uint64_t kLineWords = 8;
static_assert(kLineWords == 8, "line_full (bit_window.hpp) ANDs the eight words of a line");

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
// Beyond kSmallTileTeam threads, kTilesPerThreadMany, down to kSmallestManyThreadsTile: the
// anti-diagonals at the square's corners hold fewer tiles than threads, and with 4 tiles per
// side per thread that idled 19% of 16 threads at 32768^2 (scripts/scaling_model.py table: busy
// 81% with tiles of 512, 94% with 256), while a tile of 256 costs 2 to 3.5% more per cell than
// one of 512. Not below 256: a tile of 128 costs 12 to 16% more than one of 256, as much as the
// schedule gains (one thread, 16384^2, --no-output, 2026-11-27). Up to 8 threads nothing changes.
inline constexpr uint64_t kSmallTileTeam = 8;
inline constexpr uint64_t kTilesPerThreadMany = 8;
inline constexpr uint32_t kSmallestManyThreadsTile = 256;
inline constexpr uint32_t kMinTile = 8;
inline constexpr uint32_t kMaxTile = 4096;

// How ragged the front of tiles may get (TileGrid::row_lead_token): a band of tiles runs at most
// kFrontSlack - 1 anti-diagonals ahead of the band kLeadSpan bands above it (or the top band,
// where that is nearer), and likewise for columns. Without a bound, the bands of a narrow table
// ran ahead of each other on two threads, every set they opened staying open until the bands
// behind caught up (50000 x 100: 9.8 MiB of windows against 0.1 MiB on one thread), and no
// estimate made before a run could say how much. The dataflow schedule keeps its slack: the
// tile waited for lies two anti-diagonals back, long done unless the front is ragged.
inline constexpr uint64_t kFrontSlack = 2;
inline constexpr uint64_t kLeadSpan = 16;
static_assert(kFrontSlack >= 1, "a lead token must belong to an earlier anti-diagonal");

// Band order (TileGrid::tasks): a symmetric table run on a few threads is swept in bands of
// kBandTilesPerThread tile rows per thread, one band after another, the next one starting
// when the band below has as many tiles left as the band has rows. The anti-diagonal front
// holds every row it crosses open; a band holds its own rows alone (the columns, opened by the
// first band and closed at the diagonal, are open in both). Measured 2026-11-29 (2 threads,
// --no-output, windows at their widest): 82 -> 73 MiB at 16384^2, 323 -> 266 MiB at 32768^2,
// 1.26 -> 0.96 GiB at 65536^2, 5.06 -> 3.62 GiB at 131072^2, in the same time or less
// (docs/benchmarks.md). On more than kBandMostThreads threads the anti-diagonal order stays
// until measured there: a band must hold enough tiles at once for every thread.
inline constexpr uint64_t kBandTilesPerThread = 4;
inline constexpr int kBandMostThreads = 4;

}  // namespace grundy::engine
