// The cold positions (a_n, b_n = a_n + n), a_n = floor(n phi), one after another and exactly.
// wythoff_a(n) takes an integer square root (Newton's iteration on 128-bit divisions); the next
// n only moves floor(n sqrt 5) on by 2 or 3, which one 128-bit square decides. For the loops
// over the cold positions of a range (the pyramid's P-positions, a tile at a time).
#pragma once

#include <cstdint>

#include "grundy/error.hpp"
#include "play/exact_sqrt.hpp"

namespace grundy {

class ColdPositions {
  public:
    // Squares of floor(n sqrt 5) + 1 stay below 2^128 up to here.
    static constexpr uint64_t kLimit = uint64_t{1} << 61;

    explicit ColdPositions(uint64_t n) : n_(n) {
        if (n >= kLimit) throw Error("cold positions are stepped only below 2^61");
        f_ = floor_sqrt5_times(n);
    }
    uint64_t n() const { return n_; }
    uint64_t a() const { return static_cast<uint64_t>((uint128{n_} + f_) / 2); }
    uint64_t b() const { return a() + n_; }
    // n + 1: sqrt 5 lies between 2 and 3, so floor((n + 1) sqrt 5) is f + 2 or f + 3.
    void next() {
        if (++n_ >= kLimit) throw Error("cold positions are stepped only below 2^61");
        f_ += 2;
        const uint128 up = f_ + 1;
        if (up * up <= uint128{5} * n_ * n_) f_ = up;
    }

  private:
    uint64_t n_;
    uint128 f_;  // floor(n sqrt 5)
};

}  // namespace grundy
