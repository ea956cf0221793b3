// Choosing, for one test, whether the portable and summary kernels run their BMI2 builds
// (engine/sweep.hpp), so that the tests compare both builds on a CPU that has BMI2; and the
// builds of every kernel as test parameters, a build this CPU cannot run being a visible skip
// (GTEST_SKIP with its reason), never a silent pass.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/sweep.hpp"
#include "grundy/engine.hpp"

namespace grundy::testing {

// Allows or forbids the BMI2 builds until it goes out of scope; then allows them again.
class Bmi2Builds {
  public:
    explicit Bmi2Builds(bool allowed) { engine::allow_bmi2_builds(allowed); }
    ~Bmi2Builds() { engine::allow_bmi2_builds(true); }
    Bmi2Builds(const Bmi2Builds&) = delete;
    Bmi2Builds& operator=(const Bmi2Builds&) = delete;
};

// One build of one kernel: the portable and summary kernels in their any-CPU and BMI2 builds,
// the AVX kernels in their one build.
struct KernelBuild {
    MexKernel kernel;
    bool bmi2;
};

inline const KernelBuild kKernelBuilds[] = {
    {MexKernel::Portable, false}, {MexKernel::Portable, true}, {MexKernel::Summary, false},
    {MexKernel::Summary, true},   {MexKernel::Avx2, false},    {MexKernel::Avx512, false},
};

// "portable", "summary_bmi2", ...: the test's name suffix.
inline std::string kernel_build_name(const ::testing::TestParamInfo<KernelBuild>& info) {
    return std::string(mex_kernel_name(info.param.kernel)) + (info.param.bmi2 ? "_bmi2" : "");
}

// A test of every kernel build: SetUp skips, with the reason, a build this CPU cannot run, and
// otherwise selects it (Bmi2Builds) for the test's body.
class EachKernelBuild : public ::testing::TestWithParam<KernelBuild> {
  protected:
    void SetUp() override {
        const KernelBuild& b = GetParam();
        if (!mex_kernel_supported(b.kernel))
            GTEST_SKIP() << "this CPU lacks the instructions of the " << mex_kernel_name(b.kernel)
                         << " kernel";
        // With the builds allowed, use_bmi2_builds() says whether the CPU has BMI1 and BMI2.
        engine::allow_bmi2_builds(true);
        if (b.bmi2 && !engine::use_bmi2_builds())
            GTEST_SKIP() << "this CPU lacks BMI1/BMI2: the BMI2 build of the "
                         << mex_kernel_name(b.kernel) << " kernel cannot run";
        engine::allow_bmi2_builds(b.bmi2);
    }
    void TearDown() override { engine::allow_bmi2_builds(true); }
    MexKernel kernel() const { return GetParam().kernel; }
};

}  // namespace grundy::testing
