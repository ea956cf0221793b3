// The tile and strip sweeps with the scalar mex kernels (sweep_scalar.hpp), compiled for CPUs
// with BMI1 and BMI2 (x86-64 since Haswell and Excavator). Same isolation as sweep_avx2.cpp:
// only this file's functions use those instructions, and the dispatch (kernel_dispatch.cpp,
// strip.cpp) calls them only where the CPU reports both.
#include "engine/mex_kernel.hpp"
#include "engine/strip_windows.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {

#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
namespace with_bmi2 {
#include "engine/sweep_scalar.hpp"
}  // namespace with_bmi2

int64_t sweep_tile_portable_bmi2(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                                 uint32_t* out, bool lower_half) {
    return with_bmi2::flat::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

int64_t sweep_tile_summary_bmi2(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                                uint32_t* out, bool lower_half) {
    return with_bmi2::summary::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

void sweep_strip_column_portable_bmi2(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                      uint64_t* g) {
    with_bmi2::flat::sweep_strip_column_body(s, x, y0, y1, g);
}

void sweep_strip_column_summary_bmi2(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                     uint64_t* g) {
    with_bmi2::summary::sweep_strip_column_body(s, x, y0, y1, g);
}
#pragma GCC pop_options

}  // namespace grundy::engine
