// The exact integer square roots behind the P-positions' closed form (wythoff_a), in 128-bit
// arithmetic. Internal to the library; the tests check them directly.
#pragma once

#include <cstdint>

namespace grundy {

// 128-bit intermediates; __extension__ keeps -Wpedantic quiet about the GCC/Clang type.
__extension__ typedef unsigned __int128 uint128;

// floor(sqrt(n)), exact for every 128-bit n.
uint64_t isqrt128(uint128 n);

// floor(n * sqrt(5)) for n <= kMaxCoordinate, exact although 5 n^2 may exceed 128 bits (and
// the result 64 bits).
uint128 floor_sqrt5_times(uint64_t n);

}  // namespace grundy
