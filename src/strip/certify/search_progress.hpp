// What a certification tells a progress printer (PeriodsProgress, include/grundy/periods.hpp):
// the phase and column, and where the certificate is expected, from a fit of where sub-strips
// of the lowest rows settled so far.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "grundy/periods.hpp"
#include "strip/sweep/strip.hpp"

namespace grundy::strip {

void report(PeriodsProgress* progress, int phase, uint64_t column, uint64_t target, uint64_t saved,
            const Strip& s);

// Where sub-strips settled (rows m by column x), for the progress line's estimate of the
// certificate's column: a least-squares fit of log x against log m over the sub-strips of at
// least half the rows seen so far. The growth's exponent drifts with the rows (from 2.8 to 1.4
// and back up to 1.9 over rows 255..4095), so the last octave says most about the next; two
// octaves had lagged, ending 14% low on rows 0..4095.
class SettleGrowth {
  public:
    static constexpr uint64_t kFitSpan = 2;  // fits the sub-strips of >= the latest / this rows
    void add(uint64_t rows, uint64_t column) { points_.emplace_back(rows, column); }
    uint64_t predict(uint64_t rows) const;  // 0: too few points to fit

  private:
    std::vector<std::pair<uint64_t, uint64_t>> points_;
};

}  // namespace grundy::strip
