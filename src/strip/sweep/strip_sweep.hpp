// The strip's sweep of a band of rows over a few columns, for each instruction set, and the
// choice between them. The strip has its own builds of the mex kernels (strip_sweep_*.cpp, each
// compiling strip_sweep_template.hpp around the engine's cell), so engine/ knows nothing of
// strips.
#pragma once

#include <algorithm>
#include <cstdint>

#include "grundy/engine.hpp"
#include "strip/sweep/strip_windows.hpp"

namespace grundy::strip {

// Rows y0..y1-1 of columns x..x+n-1: one sweep call (Strip::run_tile cuts a tile into these).
// Needs rows 0..y0-1 of those columns and rows y0 - 1 .. y1 - 1 of column x - 1 done (a column's
// set grows from y = 0 up, the diagonals come from the cells below and to the left); y0 = 0
// starts the columns' sets. n must not exceed kStripBatchColumns nor the windows' lag
// (StripWindows: the columns and the diagonals they cross then all have slots of their own).
struct StripBatch {
    uint64_t x = 0, n = 0;
    uint64_t y0 = 0, y1 = 0;
    uint64_t* g = nullptr;  // receives g(x + j, y) at g[j * stride + y - y0]
    uint64_t stride = 0;
    // Scratch of at least n + y1 - y0 entries (the diagonals the batch crosses).
    BitWindow** diagonals = nullptr;
    // Optional: called right after cell (x', y) is swept, while the state of row y and of the
    // diagonal through (x', y) is still that after column x' (StripWindows: the next cells to
    // change them are (x' + 1, y) and (x' + 1, y + 1)), rows y0 up, one column's calls in row
    // order; a false return ends the calls for column x'. Strip::band_mismatch's per-row part.
    bool (*same_row)(void* context, uint64_t x, uint64_t y) = nullptr;
    void* context = nullptr;
};

using StripSweepFn = void (*)(StripWindows&, const StripBatch&);

// The sweeps of the two scalar kernels, one table per build: for any x86-64
// (strip_sweep_portable.cpp) and for BMI1 and BMI2 (strip_sweep_bmi2.cpp).
struct ScalarStripSweeps {
    StripSweepFn portable, summary;
};
extern const ScalarStripSweeps kAnyCpuStripSweeps;
extern const ScalarStripSweeps kBmi2StripSweeps;

void sweep_strip_avx2(StripWindows&, const StripBatch&);
void sweep_strip_avx512(StripWindows&, const StripBatch&);
// The summary kernel's sweeps with a line of each window in vector registers.
void sweep_strip_lines_avx2(StripWindows&, const StripBatch&);
void sweep_strip_lines_avx512(StripWindows&, const StripBatch&);

// The sweep for `kernel`, resolved as for tables (engine::resolve_mex_kernel: Auto is the best
// kernel, an unsupported one throws grundy::Error), in the same build as the table's
// (engine::best_build).
StripSweepFn select_strip_sweep(MexKernel kernel);

}  // namespace grundy::strip
