// Choosing, for one test, which builds the kernels run (engine/sweep.hpp), so that the tests
// compare every build on a CPU that has the instructions; and the builds of every kernel as test
// parameters, a build this CPU cannot run being a visible skip (GTEST_SKIP with its reason),
// never a silent pass.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/sweep.hpp"
#include "grundy/engine.hpp"

namespace grundy::testing {

// Limits the builds to `most` until it goes out of scope; then lifts the limit.
class BuildLimit {
  public:
    explicit BuildLimit(engine::Build most) { engine::limit_builds(most); }
    ~BuildLimit() { engine::limit_builds(engine::Build::Avx512); }
    BuildLimit(const BuildLimit&) = delete;
    BuildLimit& operator=(const BuildLimit&) = delete;
};

// One build of one kernel: the portable kernel in its any-CPU and BMI2 builds, the summary
// kernel in those and its AVX2 and AVX-512 ones, the flat AVX kernels in their one build.
struct KernelBuild {
    MexKernel kernel;
    engine::Build build;
};

inline const KernelBuild kKernelBuilds[] = {
    {MexKernel::Portable, engine::Build::AnyCpu}, {MexKernel::Portable, engine::Build::Bmi2},
    {MexKernel::Summary, engine::Build::AnyCpu},  {MexKernel::Summary, engine::Build::Bmi2},
    {MexKernel::Summary, engine::Build::Avx2},    {MexKernel::Summary, engine::Build::Avx512},
    {MexKernel::Avx2, engine::Build::Avx2},       {MexKernel::Avx512, engine::Build::Avx512},
};

inline const char* build_name(engine::Build b) {
    switch (b) {
        case engine::Build::AnyCpu:
            return "any_cpu";
        case engine::Build::Bmi2:
            return "bmi2";
        case engine::Build::Avx2:
            return "avx2";
        case engine::Build::Avx512:
            return "avx512";
    }
    return "?";
}

// "portable_any_cpu", "summary_avx2", "avx512_avx512", ...: the test's name suffix.
inline std::string kernel_build_name(const ::testing::TestParamInfo<KernelBuild>& info) {
    return std::string(mex_kernel_name(info.param.kernel)) + "_" + build_name(info.param.build);
}

// A test of every kernel build: SetUp skips, with the reason, a build this CPU cannot run, and
// otherwise selects it (engine::limit_builds) for the test's body.
class EachKernelBuild : public ::testing::TestWithParam<KernelBuild> {
  protected:
    void SetUp() override {
        const KernelBuild& b = GetParam();
        if (!mex_kernel_supported(b.kernel))
            GTEST_SKIP() << "this CPU lacks the instructions of the " << mex_kernel_name(b.kernel)
                         << " kernel";
        // With no limit, best_build() is the most this CPU runs.
        engine::limit_builds(engine::Build::Avx512);
        if (engine::best_build() < b.build)
            GTEST_SKIP() << "this CPU cannot run the " << build_name(b.build) << " build of the "
                         << mex_kernel_name(b.kernel) << " kernel";
        engine::limit_builds(b.build);
    }
    void TearDown() override { engine::limit_builds(engine::Build::Avx512); }
    MexKernel kernel() const { return GetParam().kernel; }
};

}  // namespace grundy::testing
