// The strip's column sweep for each instruction set, and the choice between them. The strip has
// its own builds of the mex kernels (strip_sweep_*.cpp, each compiling strip_sweep_template.hpp
// around the engine's cell), so engine/ knows nothing of strips.
#pragma once

#include <cstdint>

#include "grundy/engine.hpp"
#include "strip/strip_windows.hpp"

namespace grundy::strip {

// Sweeps rows y0..y1-1 of column x, writing g(x, y) to g[y - y0]. Needs rows 0..y0-1 of column x
// and rows y0 - 1 .. y1 - 1 of column x - 1 done (the column's set grows from y = 0 up, the
// diagonals come from the cells below and to the left); y0 = 0 starts the column's set.
using StripColumnFn = void (*)(StripWindows&, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g);

// The column sweeps of the two scalar kernels, one table per build: for any x86-64
// (strip_sweep_portable.cpp) and for BMI1 and BMI2 (strip_sweep_bmi2.cpp).
struct ScalarStripSweeps {
    StripColumnFn portable, summary;
};
extern const ScalarStripSweeps kAnyCpuStripSweeps;
extern const ScalarStripSweeps kBmi2StripSweeps;

void sweep_strip_column_avx2(StripWindows&, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g);
void sweep_strip_column_avx512(StripWindows&, uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g);

// The column sweep for `kernel`, resolved as for tables (engine::resolve_mex_kernel: Auto is the
// best kernel, an unsupported one throws grundy::Error); the scalar ones in the same build as the
// table's (engine::use_bmi2_builds).
StripColumnFn select_strip_sweep(MexKernel kernel);

}  // namespace grundy::strip
