// The strip's sweeps with the AVX-512 mex kernels (engine/mex_kernel_avx512.hpp): the flat one and
// the summary kernel's, a line of each window at once. Only this file's functions are compiled
// for it (internal linkage); select_strip_sweep hands them out only where the CPU has the
// instructions.
#include <immintrin.h>

#include "engine/mex_kernel.hpp"
#include "strip/sweep/strip_sweep.hpp"

namespace grundy::strip {

// Clang has no GCC target pragma (the fuzz build, tests/fuzz, is clang's): the same attribute
// on every function.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,bmi,bmi2")
#endif
namespace {
using namespace grundy::engine;

#include "engine/mex_kernel_avx512.hpp"

namespace flat {
#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_avx512
#include "engine/sweep_cell_template.hpp"  // first: the strip sweep below uses it

#include "strip/sweep/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace flat

namespace lines {
#define MEX_PROBE mex_probe_lines_avx512
#define MEX_FINISH mex_finish_lines_avx512
#include "engine/sweep_cell_template.hpp"  // first: the strip sweep below uses it

#include "strip/sweep/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace lines

}  // namespace

void sweep_strip_avx512(StripWindows& s, const StripBatch& b) {
    flat::sweep_strip_body(s, b);
}

void sweep_strip_lines_avx512(StripWindows& s, const StripBatch& b) {
    lines::sweep_strip_body(s, b);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

}  // namespace grundy::strip
