// grundy compute --estimate: what a run would take, printed instead of running it.
#pragma once

#include <string>

#include "grundy/engine.hpp"
#include "grundy/hdf5_writer.hpp"
#include "grundy/memory.hpp"

namespace grundy::app {

// The disk a table's file takes at most, as compute checks it before it starts: its values as
// stored, or with compression 80% of them, and with deflate no more than 1.6 bytes a cell
// (deflate wrote 1.20 bytes a cell at 16384^2 with 2-byte values, 1.24 and 1.27 at 65536^2 and
// 131072^2 with 4-byte ones).
double output_bytes(uint64_t rows, uint64_t cols, const Compression& compression);

// What compute checks against the budget for a run of rows x cols on `threads` threads with
// tiles of `tile` (0: the defaults): the windows at their widest, and everything (those, the
// buffers, with `output` what writing adds, with `pyramid` the pyramid being built, the program).
struct ComputeMemory {
    uint64_t state = 0, all = 0;
};
ComputeMemory compute_memory(uint64_t rows, uint64_t cols, uint32_t tile, int threads, bool output,
                             bool pyramid);
// The largest square whose compute_memory fits `budget` at these settings.
uint64_t largest_fitting_square(uint64_t budget, uint32_t tile, int threads, bool output,
                                bool pyramid);

// The memory of a run of `e` (the windows at their widest, the tile and chunk buffers, the
// writer's queue, the pyramid being built, the program), against `budget`, and the disk its
// output takes (`output` null: none): the same figures compute checks before it starts.
std::string compute_estimate(const EngineOptions& e, const std::string* output, bool pyramid,
                             const Compression& compression, const MemoryBudget& budget);

}  // namespace grundy::app
