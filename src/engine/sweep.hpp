// The sweep of one tile for each instruction set, and the choice between them.
#pragma once

#include <cstdint>

#include "engine/table_state.hpp"
#include "grundy/engine.hpp"

namespace grundy::engine {

// Fills rows y0..y1-1, columns x0..x1-1 into `out` (row-major, stride x1 - x0). Returns the
// change in bytes of window storage. With `lower_half` (a tile on the main diagonal of a
// symmetric table, tile_fill.hpp) only the cells with x >= y are swept; the others are copied
// from their mirror images inside the tile.
using SweepFn = int64_t (*)(TableState&, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                            uint32_t* out, bool lower_half);

int64_t sweep_tile_avx2(TableState&, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t*, bool);
int64_t sweep_tile_avx512(TableState&, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t*, bool);

// The tile sweeps of the two scalar kernels (sweep_scalar_template.hpp), one table per build: for
// any x86-64 (sweep_portable.cpp) and for BMI1 and BMI2 (sweep_bmi2.cpp).
struct ScalarSweeps {
    SweepFn portable_tile, summary_tile;
};
extern const ScalarSweeps kAnyCpuSweeps;
extern const ScalarSweeps kBmi2Sweeps;

// The builds, by the instructions they use. The scalar kernels run the BMI2 build where the CPU
// has BMI1 and BMI2, and the summary kernel its AVX2 or AVX-512 build where the CPU has those
// too, unless limit_builds was called (the tests, to compare every build). The results are the
// same; only the instructions differ.
enum class Build { AnyCpu, Bmi2, Avx2, Avx512 };
Build best_build();  // the most this CPU runs, within the limit
void limit_builds(Build most);
const ScalarSweeps& scalar_sweeps();
bool use_bmi2_builds();

// The summary kernel's tile sweeps with a line of each window in vector registers
// (mex_kernel_avx2.hpp, mex_kernel_avx512.hpp).
int64_t sweep_tile_lines_avx2(TableState&, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t*, bool);
int64_t sweep_tile_lines_avx512(TableState&, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t*,
                                bool);
// The same kernels on one cell, probe then finish: the least value from `lo` in none of the three
// windows (the tests compare them with plain sets). Only where best_build() reaches them.
uint64_t mex_lines_avx2(WindowView a, WindowView b, WindowView c, uint64_t lo);
uint64_t mex_lines_avx512(WindowView a, WindowView b, WindowView c, uint64_t lo);

// `kernel` with Auto resolved to the best this CPU runs (best_mex_kernel). Throws grundy::Error if
// the CPU lacks the instructions of the kernel asked for. The table's and the strip's dispatch
// (strip/sweep/strip_sweep.hpp) both go through it.
MexKernel resolve_mex_kernel(MexKernel kernel);

// The tile sweep for `kernel` (resolve_mex_kernel).
SweepFn select_sweep(MexKernel kernel);

}  // namespace grundy::engine
