// Template, included twice; no include guard. Parameters: the enclosing namespace (one per
// build: any_cpu, with_bmi2) and the target pragma around it (none, or "bmi,bmi2"). Defines
// MEX_PROBE and MEX_FINISH itself, for each of its two kernels, and kSweeps, that build's
// ScalarSweeps (sweep.hpp).
//
// The tile sweeps with the two scalar mex kernels: the flat word-by-word scan
// (namespace flat) and the two-level scan over the windows' summaries of full words (namespace
// summary). Included twice, each time inside a namespace of its own: by sweep_portable.cpp,
// compiled for any x86-64, and by sweep_bmi2.cpp inside a region compiled for BMI1 and BMI2,
// whose instructions (tzcnt, andn, blsr, shlx, shrx: shifts by a register other than cl, no
// flags) take 6% fewer instructions per cell (cachegrind, 4096^2) and 3% off 16384^2 on two
// threads. Everything here has internal linkage, so a build for one instruction set is never
// handed to a caller of the other.

#define SWEEP_TEMPLATE "engine/tile_sweep_template.hpp"
#include "engine/scalar_kernels_template.hpp"
#undef SWEEP_TEMPLATE

// This build's sweeps, for the dispatch (sweep.hpp).
inline constexpr ScalarSweeps kSweeps{&flat::sweep_tile_body, &summary::sweep_tile_body};
