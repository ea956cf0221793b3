// Tuning constants of the strip (grundy periods) and of its ranks, each with what it trades.
#pragma once

#include <cstdint>

namespace grundy::strip {

// Strips (grundy periods), swept as tiles of bands of rows by chunks of columns (strip.hpp).
// Fewest rows per band: below this, a tile's handing over costs more than its own work.
inline constexpr uint64_t kMinStripBandRows = 8;
// Most rows per band, about, whatever the threads: a tile's row and diagonal windows then stay
// in a core's L2 (about 0.7 KB per row each at 2048 rows), where a band of 2048 rows crossed
// 3 MB per column.
inline constexpr uint64_t kStripCacheBandRows = 256;
// Bands per thread: enough ready tiles that an idle thread finds one even while another thread
// has lost its CPU (the project's machine is shared), few enough that tiles stay large.
inline constexpr uint64_t kStripBandsPerThread = 4;
// Beyond kStripSmallTeam threads, fewer bands per thread (down to kStripMinBandsPerThread) where
// four would cut bands under kStripTileRows rows: every tile is handed to another core with its
// windows (about 35 us measured on 2 cores), which 16 threads over 64 bands of 32 rows paid on
// tiles of 160 us (scripts/scaling_model.py, docs/benchmarks.md "Scaling beyond 2 cores").
inline constexpr uint64_t kStripSmallTeam = 8;
inline constexpr uint64_t kStripTileRows = 64;
// Rows per band wanted where the rows are too few for the bands above to have this many each:
// a short strip on many threads (one band per thread at least, Strip::own_rows), and once rows
// have settled, with at least kStripMinBandsPerThread bands per thread (Strip::cut_bands).
inline constexpr uint64_t kStripWideBandRows = 32;
inline constexpr uint64_t kStripMinBandsPerThread = 2;
// Columns per tile: a tile of 64 rows is then about 0.3 ms of work, against microseconds of
// task overhead. Must divide kStripLag.
inline constexpr uint64_t kStripChunkColumns = 256;
// Columns the lowest band may run ahead of the highest: column windows and spare diagonal slots
// (a few hundred bytes each at 1024 rows), 16 chunks, and at least kStripLagChunksPerThread
// chunks per thread: the lowest band's tile j waits for the highest band's tile j - lag / chunk,
// a loop through every band that caps the tiles in flight at lag / chunk. With 16 chunks on 16
// threads that loop was the critical path, and any tile that ran late held up every thread.
inline constexpr uint64_t kStripLag = 4096;
inline constexpr uint64_t kStripLagChunksPerThread = 2;
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
// Columns per sweep call of a band (strip_sweep_template.hpp): its resets and reservations are
// made once per batch and its values handed on after it, so the loop over cells does nothing
// else; a batch's values are buffered (one word per row and column). At most kStripChunkColumns.
// 24 rather than 12 halved that per-batch work (callgrind, 2048 rows: 4.8 -> 2.8 instructions
// per cell, about 2% of a strip cell); the buffer, 24 words per row of a band, stays in L2.
inline constexpr uint64_t kStripBatchColumns = 24;
static_assert(kStripBatchColumns <= kStripChunkColumns);

// The certification (certify/certification.hpp).
// Columns per block of the threaded sweep: the threads meet at a block's end, where the
// pipeline drains (up to kStripLag columns of the lowest band's lead), so a block should be much
// longer than that; and it is the granularity of checkpoints and progress (a few ms at most).
inline constexpr uint64_t kBlockColumns = 65536;
// With ranks, the rows are cut again once the busiest rank has this much more than its share of
// the work per column: each cut moves rows' rings between ranks, so not for every settled row.
inline constexpr double kRebalanceAbove = 1.05;
// ... and looked at whenever rows settle, and at least every this many blocks (RankLoad's
// measurements change the cut too).
inline constexpr uint64_t kLookEveryBlocks = 8;
// Rows whose blocks collect_rows takes from the ring in one pass.
inline constexpr uint64_t kCollectRows = 64;

}  // namespace grundy::strip
