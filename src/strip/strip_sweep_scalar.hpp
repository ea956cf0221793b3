// Template, included twice; no include guard. Parameters: the enclosing namespace (one per build:
// any_cpu, with_bmi2, inside grundy::strip) and the target pragma around it (none, or
// "bmi,bmi2"), as for the table's engine/sweep_scalar_template.hpp. Defines kSweeps, that build's
// ScalarStripSweeps (strip_sweep.hpp): the sweep with the flat word-by-word scan and
// with the two-level scan over the windows' summaries. Internal linkage throughout.

namespace flat {
namespace {
#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_portable
#include "engine/sweep_cell_template.hpp"  // first: the strip sweep below uses it

#include "strip/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace flat

namespace summary {
namespace {
#define MEX_PROBE mex_probe_summary
#define MEX_FINISH mex_finish_summary
#include "engine/sweep_cell_template.hpp"  // first: the strip sweep below uses it

#include "strip/strip_sweep_template.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace summary

inline constexpr ScalarStripSweeps kSweeps{&flat::sweep_strip_body, &summary::sweep_strip_body};
