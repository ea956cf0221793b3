// Choosing, for one test, whether the portable and summary kernels run their BMI2 builds
// (engine/sweep.hpp), so that the tests compare both builds on a CPU that has BMI2.
#pragma once

#include "engine/sweep.hpp"

namespace grundy::testing {

// Allows or forbids the BMI2 builds until it goes out of scope; then allows them again.
class Bmi2Builds {
  public:
    explicit Bmi2Builds(bool allowed) { engine::allow_bmi2_builds(allowed); }
    ~Bmi2Builds() { engine::allow_bmi2_builds(true); }
    Bmi2Builds(const Bmi2Builds&) = delete;
    Bmi2Builds& operator=(const Bmi2Builds&) = delete;
};

}  // namespace grundy::testing
