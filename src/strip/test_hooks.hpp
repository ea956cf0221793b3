// Test hooks of the strip, kept out of the public PeriodsOptions: set by the CLI's hidden
// --test-delay-us, read by the certification.
#pragma once

#include <atomic>
#include <cstdint>

namespace grundy::strip {

// A sleep per column of the strip (microseconds; 0: none), so that a test can stop a run in its
// middle, and blocks of 16 columns, so that it stops soon after.
inline std::atomic<uint64_t> test_delay_us{0};

}  // namespace grundy::strip
