// The tile sweeps with the scalar mex kernels (sweep_scalar_template.hpp), for any CPU.
#include "engine/mex_kernel.hpp"
#include "engine/sweep.hpp"
#include "engine/tile_fill.hpp"

namespace grundy::engine {
namespace any_cpu {
#include "engine/sweep_scalar_template.hpp"
}  // namespace any_cpu

const ScalarSweeps kAnyCpuSweeps = any_cpu::kSweeps;

}  // namespace grundy::engine
