// Run-time choice of the strip's column sweep, by the same rules as the table's
// (engine/kernel_dispatch.cpp).
#include "engine/sweep.hpp"
#include "strip/sweep/strip_sweep.hpp"

namespace grundy::strip {

StripSweepFn select_strip_sweep(MexKernel kernel) {
    const ScalarStripSweeps& scalar =
        engine::use_bmi2_builds() ? kBmi2StripSweeps : kAnyCpuStripSweeps;
    switch (engine::resolve_mex_kernel(kernel)) {
        case MexKernel::Avx512:
            return sweep_strip_avx512;
        case MexKernel::Avx2:
            return sweep_strip_avx2;
        case MexKernel::Summary:
            if (engine::best_build() == engine::Build::Avx512) return sweep_strip_lines_avx512;
            if (engine::best_build() == engine::Build::Avx2) return sweep_strip_lines_avx2;
            return scalar.summary;
        default:
            return scalar.portable;
    }
}

}  // namespace grundy::strip
