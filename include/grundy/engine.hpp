// The table engine: fills g(x, y) for rows 0..Y-1 and columns 0..X-1 by a tiled anti-diagonal
// wavefront in parallel, keeping the row, column and diagonal sets as bit windows, and hands
// finished tiles to a TileSink.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "grundy/tile_sink.hpp"

namespace grundy {

// The mex kernel: the scan over the union of a row, a column and a diagonal window. Flat scans
// read every word from the highest low-water mark to the mex (Portable one word a step, Avx2
// four, Avx512 eight); Summary skips words full in any one window using per-window summaries.
// All give the same tables; Auto takes the fastest this CPU runs.
enum class MexKernel { Auto, Portable, Avx2, Avx512, Summary };

bool mex_kernel_supported(MexKernel kernel);
MexKernel best_mex_kernel();
const char* mex_kernel_name(MexKernel kernel);
// The kernel of that name (mex_kernel_name's: auto, summary, avx512, avx2, portable). Throws
// grundy::ArgumentError naming {kernel} for any other name, and grundy::Error when this CPU
// cannot run the kernel named.
MexKernel parse_mex_kernel(std::string_view name);

struct EngineOptions {
    uint64_t rows = 0;  // Y
    uint64_t cols = 0;  // X
    int threads = 0;    // 0: OpenMP's default (OMP_NUM_THREADS, else all cores)
    uint32_t tile = 0;  // side of the square tiles; 0: chosen from the table size
    MexKernel kernel = MexKernel::Auto;
    // Optional: counts finished cells, so another thread can report progress.
    std::atomic<uint64_t>* cells_done = nullptr;
    // Optional: when it becomes true, the engine stops after the tiles in flight.
    const std::atomic<bool>* cancel = nullptr;
    // Optional: resume a stopped run. Its stored tiles are replayed into the sets (read one
    // tile per worker at a time, never the whole table) and only the rest is computed and
    // given to the sink. Needs `tile` set to the stored run's tile side.
    StoredTiles* resume = nullptr;
};

struct EngineStats {
    uint64_t cells = 0;                  // cells computed
    double seconds = 0.0;                // wall time of the computation
    int threads = 0;                     // threads actually used
    uint32_t tile = 0;                   // tile side actually used
    MexKernel kernel = MexKernel::Auto;  // kernel actually used
    uint64_t peak_state_bytes = 0;       // largest total size of the set windows at any time
    bool cancelled = false;              // stopped early: EngineOptions::cancel or sink stop
    uint64_t tiles = 0;                  // tiles of the table, mirrored ones included
    uint64_t tiles_done = 0;             // tiles finished: replayed plus computed
    uint64_t cells_resumed = 0;          // cells replayed from EngineOptions::resume
    double replay_seconds = 0.0;         // wall time of the replay (part of `seconds`)
};

// The tile side the engine uses for a table when none is given, for `threads` workers.
uint32_t default_tile(uint64_t rows, uint64_t cols, int threads);

// The engine's state (set windows) for a table at its widest, in bytes: the windows the tiled
// wavefront holds open around its widest anti-diagonal of tiles, with their room to spare; a
// little above the peak a run measures (EngineStats::peak_state_bytes). tile 0: the default
// tile for `threads` workers (0: OpenMP's default).
uint64_t estimate_state_bytes(uint64_t rows, uint64_t cols, uint32_t tile = 0, int threads = 0);

// What a run of compute_table takes in all, in bytes: the state at its widest, the workers' tile
// buffers, the program itself, and with `output` the chunk buffers and the writer's queue (a
// pyramid, where one is built, comes on top: view/pyramid.hpp). tile 0 and threads 0: the
// defaults.
uint64_t estimate_compute_bytes(uint64_t rows, uint64_t cols, uint32_t tile, int threads,
                                bool output);

// The largest N such that an N x N table fits in `budget` bytes by estimate_compute_bytes (with
// `extra(N)` on top, e.g. a pyramid); 0 if none does.
uint64_t largest_square(uint64_t budget, uint32_t tile, int threads, bool output,
                        uint64_t (*extra)(uint64_t side) = nullptr);

// Throws grundy::Error for nonsense sizes. Fills the table and delivers every tile to `sink`.
EngineStats compute_table(const EngineOptions& options, TileSink& sink);

}  // namespace grundy
