// The strip's sweeps with the scalar mex kernels (strip_sweep_scalar.hpp), compiled for
// CPUs with BMI1 and BMI2; isolated like the table's engine/sweep_bmi2.cpp and handed out by
// select_strip_sweep only where the CPU reports both.
#include "engine/mex_kernel.hpp"
#include "strip/sweep/strip_sweep.hpp"

namespace grundy::strip {

// Clang has no GCC target pragma (the fuzz build, tests/fuzz, is clang's): the same attribute
// on every function.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
#endif
namespace with_bmi2 {
using namespace grundy::engine;
#include "strip/sweep/strip_sweep_scalar.hpp"
}  // namespace with_bmi2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const ScalarStripSweeps kBmi2StripSweeps = with_bmi2::kSweeps;

}  // namespace grundy::strip
