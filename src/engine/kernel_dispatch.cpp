// Run-time choice of the mex kernel from what the CPU reports.
#include <atomic>
#include <string>

#include "engine/sweep.hpp"
#include "grundy/error.hpp"

namespace grundy {

bool mex_kernel_supported(MexKernel kernel) {
    switch (kernel) {
        case MexKernel::Auto:
        case MexKernel::Portable:
        case MexKernel::Summary:
            return true;
#if defined(__x86_64__)
        case MexKernel::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
        case MexKernel::Avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("bmi");
#else
        default:
            return false;
#endif
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
std::atomic<bool> bmi2_allowed{true};
}  // namespace

bool use_bmi2_builds() {
#if defined(__x86_64__)
    return bmi2_allowed.load(std::memory_order_relaxed) && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2");
#else
    return false;
#endif
}

const ScalarSweeps& scalar_sweeps() {
    return use_bmi2_builds() ? kBmi2Sweeps : kAnyCpuSweeps;
}

void allow_bmi2_builds(bool allowed) {
    bmi2_allowed.store(allowed, std::memory_order_relaxed);
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
            return scalar_sweeps().summary_tile;
        default:
            return scalar_sweeps().portable_tile;
    }
}

}  // namespace engine
}  // namespace grundy
