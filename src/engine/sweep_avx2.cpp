// The tile sweep with an AVX2 mex kernel: four words of each window per step. Only this file's
// functions are compiled for AVX2 (internal linkage, so the linker can never hand them to a
// caller on a CPU without it); kernel_dispatch.cpp calls them only where the CPU has AVX2.
#include <immintrin.h>

#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {

// Clang has no GCC target pragma (the fuzz build, tests/fuzz, is clang's): the same attribute
// on every function.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi")
#endif
namespace {

#include "engine/mex_kernel_avx2.hpp"

#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_avx2
#include "engine/sweep_cell_template.hpp"  // first: the tile sweep below uses it

#include "engine/tile_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH

}  // namespace

int64_t sweep_tile_avx2(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                        uint32_t* out, bool lower_half) {
    return sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

}  // namespace grundy::engine
