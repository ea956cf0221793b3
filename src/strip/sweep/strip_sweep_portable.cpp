// The strip's sweeps with the scalar mex kernels (strip_sweep_scalar.hpp), for any CPU.
#include "engine/mex_kernel.hpp"
#include "strip/sweep/strip_sweep.hpp"

namespace grundy::strip {
namespace any_cpu {
using namespace grundy::engine;
#include "strip/sweep/strip_sweep_scalar.hpp"
}  // namespace any_cpu

const ScalarStripSweeps kAnyCpuStripSweeps = any_cpu::kSweeps;

}  // namespace grundy::strip
