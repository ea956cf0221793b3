// Inputs that fuzzing found to break a parser (tests/fuzz/corpus/*/regress-*), each checked
// here as well through the library's own call, so that the normal suite keeps them refused
// with a clear error. scripts/fuzz runs the same files through the harnesses.
#include <gtest/gtest.h>

#include <string>

#include "grundy/error.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy {
namespace {

std::string regression(const std::string& target, const std::string& name) {
    return std::string(GRUNDY_SOURCE_DIR) + "/tests/fuzz/corpus/" + target + "/regress-" + name;
}

// A checkpoint of 6 rows whose ring length, times the rows, wraps around 2^64 to the number of
// ring values the file claims, and whose byte count (twice that) wraps to the bytes the file
// has: it once reached an allocation of 2^64 bytes instead of being refused.
TEST(FuzzRegressions, CheckpointWithAWrappingRingSizeIsRefused) {
    const uint64_t rows = 6, words = strip::Strip(rows, MexKernel::Auto).state_words();
    const std::string path = regression("checkpoint", "ring-size-overflow");
    try {
        strip::load_checkpoint(path, rows, words, 0, rows);
        FAIL() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is corrupt (sizes)"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace grundy
