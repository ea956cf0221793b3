// Run-time choice of the mex kernel from what the CPU reports.
#include <atomic>
#include <string>

#include "base/simd_clones.hpp"
#include "engine/sweep.hpp"
#include "grundy/error.hpp"

namespace grundy {

bool mex_kernel_supported(MexKernel kernel) {
    switch (kernel) {
        case MexKernel::Auto:
        case MexKernel::Portable:
        case MexKernel::Summary:
            return true;
        case MexKernel::Avx2:
            return base::cpu_has_avx2() && base::cpu_has_bmi1_bmi2();
        case MexKernel::Avx512:
            return base::cpu_has_avx512f() && base::cpu_has_bmi1_bmi2();
    }
    return false;
}

// The two-level scan beats the flat vector scans wherever the scans are long (1.6x against
// AVX-512 on a 16384 square, one thread) and costs no more where they are short, so it is the
// default on every CPU; the flat kernels stay for comparison and for the tests.
MexKernel best_mex_kernel() {
    return MexKernel::Summary;
}

const char* mex_kernel_name(MexKernel kernel) {
    switch (kernel) {
        case MexKernel::Auto:
            return "auto";
        case MexKernel::Portable:
            return "portable";
        case MexKernel::Avx2:
            return "avx2";
        case MexKernel::Avx512:
            return "avx512";
        case MexKernel::Summary:
            return "summary";
    }
    return "?";
}

MexKernel parse_mex_kernel(std::string_view name) {
    for (MexKernel k : {MexKernel::Auto, MexKernel::Summary, MexKernel::Avx512, MexKernel::Avx2,
                        MexKernel::Portable})
        if (name == mex_kernel_name(k)) {
            if (!mex_kernel_supported(k))
                throw Error("this CPU cannot run the " + std::string(name) + " kernel");
            return k;
        }
    throw ArgumentError("{kernel} must be auto, summary, avx512, avx2 or portable, got '" +
                        ArgumentError::literal(std::string(name)) + "'");
}

namespace engine {

namespace {
std::atomic<Build> build_limit{Build::Avx512};

// The vector builds are compiled for BMI1 and BMI2 too (tzcnt, shlx: 3% of a 16384^2 run).
Build cpu_build() {
    if (!base::cpu_has_bmi1_bmi2()) return Build::AnyCpu;
    if (base::cpu_has_avx512f()) return Build::Avx512;
    if (base::cpu_has_avx2()) return Build::Avx2;
    return Build::Bmi2;
}
}  // namespace

Build best_build() {
    static const Build cpu = cpu_build();
    const Build limit = build_limit.load(std::memory_order_relaxed);
    return cpu < limit ? cpu : limit;
}

void limit_builds(Build most) {
    build_limit.store(most, std::memory_order_relaxed);
}

bool use_bmi2_builds() {
    return best_build() >= Build::Bmi2;
}

const ScalarSweeps& scalar_sweeps() {
    return use_bmi2_builds() ? kBmi2Sweeps : kAnyCpuSweeps;
}

MexKernel resolve_mex_kernel(MexKernel kernel) {
    if (kernel == MexKernel::Auto) kernel = best_mex_kernel();
    if (!mex_kernel_supported(kernel))
        throw Error(std::string("this CPU cannot run the ") + mex_kernel_name(kernel) +
                    " mex kernel");
    return kernel;
}

SweepFn select_sweep(MexKernel kernel) {
    switch (resolve_mex_kernel(kernel)) {
        case MexKernel::Avx512:
            return sweep_tile_avx512;
        case MexKernel::Avx2:
            return sweep_tile_avx2;
        case MexKernel::Summary:
            if (best_build() == Build::Avx512) return sweep_tile_lines_avx512;
            if (best_build() == Build::Avx2) return sweep_tile_lines_avx2;
            return scalar_sweeps().summary_tile;
        default:
            return scalar_sweeps().portable_tile;
    }
}

}  // namespace engine
}  // namespace grundy
