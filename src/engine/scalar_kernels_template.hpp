// Template, included once per build of the two scalar mex kernels; no include guard.
// Parameters: SWEEP_TEMPLATE, the sweep to compile with each kernel (a file name in quotes: the
// table's "engine/tile_sweep_template.hpp" or the strip's "strip/sweep/strip_sweep_template.hpp"),
// and, as for sweep_cell_template.hpp, the enclosing namespace with the engine's names in sight
// and the target pragma around it. Defines namespace flat (the word-by-word scan) and namespace
// summary (the two-level scan over the windows' summaries of full words), each holding that
// sweep built with its kernel, with internal linkage.

namespace flat {
namespace {
#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_portable
#include "engine/sweep_cell_template.hpp"  // first: the sweep below uses it

#include SWEEP_TEMPLATE
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace flat

namespace summary {
namespace {
#define MEX_PROBE mex_probe_summary
#define MEX_FINISH mex_finish_summary
#include "engine/sweep_cell_template.hpp"  // first: the sweep below uses it

#include SWEEP_TEMPLATE
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace summary
