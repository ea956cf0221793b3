// The tile sweep with the portable mex kernel (any x86-64 or other CPU).
#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/strip_windows.hpp"

namespace grundy::engine {
namespace {
#define MEX_SCAN mex_scan_portable
#include "engine/tile_sweep.hpp"
#include "engine/strip_sweep.hpp"
#undef MEX_SCAN
}  // namespace

int64_t sweep_tile_portable(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                            uint32_t* out) {
    return sweep_tile_body(s, x0, x1, y0, y1, out);
}

// The strip column sweep (grundy periods) with the same kernel.
void sweep_strip_column_portable(StripWindows& s, uint64_t x, uint64_t* g) {
    sweep_strip_column_body(s, x, g);
}

}  // namespace grundy::engine
