// The tile sweeps with the portable mex kernels (any CPU): the flat word-by-word scan and the
// two-level scan over the windows' summaries of full words.
#include "engine/mex_kernel.hpp"
#include "engine/strip_windows.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {
namespace flat {
namespace {
#define MEX_PROBE probe_first_word
#define MEX_FINISH mex_finish_portable
#include "engine/sweep_cell.hpp"  // first: the two sweeps below use it

#include "engine/strip_sweep.hpp"
#include "engine/tile_sweep.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace flat

namespace summary {
namespace {
#define MEX_PROBE mex_probe_summary
#define MEX_FINISH mex_finish_summary
#include "engine/sweep_cell.hpp"  // first: the two sweeps below use it

#include "engine/strip_sweep.hpp"
#include "engine/tile_sweep.hpp"
#undef MEX_PROBE
#undef MEX_FINISH
}  // namespace
}  // namespace summary

int64_t sweep_tile_portable(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                            uint32_t* out, bool lower_half) {
    return flat::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

int64_t sweep_tile_summary(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                           uint32_t* out, bool lower_half) {
    return summary::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

// The strip column sweeps (grundy periods) with the same kernels.
void sweep_strip_column_portable(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                 uint64_t* g) {
    flat::sweep_strip_column_body(s, x, y0, y1, g);
}

void sweep_strip_column_summary(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                uint64_t* g) {
    summary::sweep_strip_column_body(s, x, y0, y1, g);
}

}  // namespace grundy::engine
