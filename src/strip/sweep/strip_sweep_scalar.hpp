// Template, included twice; no include guard. Parameters: the enclosing namespace (one per build:
// any_cpu, with_bmi2, inside grundy::strip) and the target pragma around it (none, or
// "bmi,bmi2"), as for the table's engine/sweep_scalar_template.hpp. Defines kSweeps, that build's
// ScalarStripSweeps (strip_sweep.hpp): the sweep with the flat word-by-word scan and
// with the two-level scan over the windows' summaries. Internal linkage throughout.

#define SWEEP_TEMPLATE "strip/sweep/strip_sweep_template.hpp"
#include "engine/scalar_kernels_template.hpp"
#undef SWEEP_TEMPLATE

inline constexpr ScalarStripSweeps kSweeps{&flat::sweep_strip_body, &summary::sweep_strip_body};
