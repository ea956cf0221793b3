// The tile and strip sweeps with the scalar mex kernels (sweep_scalar.hpp), for any CPU.
#include "engine/mex_kernel.hpp"
#include "engine/strip_windows.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {
namespace any_cpu {
#include "engine/sweep_scalar.hpp"
}  // namespace any_cpu

int64_t sweep_tile_portable(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                            uint32_t* out, bool lower_half) {
    return any_cpu::flat::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

int64_t sweep_tile_summary(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                           uint32_t* out, bool lower_half) {
    return any_cpu::summary::sweep_tile_body(s, x0, x1, y0, y1, out, lower_half);
}

void sweep_strip_column_portable(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                 uint64_t* g) {
    any_cpu::flat::sweep_strip_column_body(s, x, y0, y1, g);
}

void sweep_strip_column_summary(StripWindows& s, uint64_t x, uint64_t y0, uint64_t y1,
                                uint64_t* g) {
    any_cpu::summary::sweep_strip_column_body(s, x, y0, y1, g);
}

}  // namespace grundy::engine
