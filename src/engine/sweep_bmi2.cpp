// The tile sweeps with the scalar mex kernels (sweep_scalar_template.hpp), compiled for
// CPUs with BMI1 and BMI2 (x86-64 since Haswell and Excavator). Same isolation as sweep_avx2.cpp:
// only this file's functions use those instructions (internal linkage), and the dispatch
// (scalar_sweeps(), kernel_dispatch.cpp) hands them out only where the CPU reports both.
#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {

// Clang has no GCC target pragma (the fuzz build, tests/fuzz, is clang's): the same attribute
// on every function.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
#endif
namespace with_bmi2 {
#include "engine/sweep_scalar_template.hpp"
}  // namespace with_bmi2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const ScalarSweeps kBmi2Sweeps = with_bmi2::kSweeps;

}  // namespace grundy::engine
