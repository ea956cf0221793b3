// What a certification tells a progress printer (PeriodsProgress, include/grundy/periods.hpp):
// the phase and column, and where the certificate is expected, from a fit of where sub-strips
// of the lowest rows settled so far.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
    // Sub-strips of m rows settling near column c * m^b.
    struct Law {
        double c = 0, b = 0;
        double at(double rows) const;
    };
    void add(uint64_t rows, uint64_t column) { points_.emplace_back(rows, column); }
    std::optional<Law> fit() const;         // none: too few points
    uint64_t predict(uint64_t rows) const;  // 0: too few points to fit

  private:
    std::vector<std::pair<uint64_t, uint64_t>> points_;
};

// What is left of phase 1's sweep, in the strip's cost units (a cell of row y costs
// strip_row_cost(y), strip_config.hpp), if rows settled..rows-1 settle where the growth says:
// row y is swept until the sub-strip of y + 1 rows settles, at expected_x0 * ((y + 1) / rows)^b
// (the fit through the certificate's expected column). And the units of one column now.
// An ETA from columns per second alone assumes every column costs what the columns so far did;
// but a column costs less with every row that settles, and most rows settle late (the 400-row
// strip: ETAs 2 to 2.8 times the time that was left). Once rows repeat with a period the ring
// cannot hold (`settling` false), no more rows settle: every row left is swept to the end.
struct WorkLeft {
    double units = 0;       // from `column` to the certificate's
    double per_column = 0;  // of the column swept now (rows settled..rows-1)
};
WorkLeft work_left(uint64_t rows, uint64_t settled, uint64_t column, uint64_t expected_x0,
                   double exponent, bool settling = true);

// The progress line of a certification, for any printer (the CLI's, the Python module's):
// phase 1's columns, speed, settled rows, the certificate's expected column and an ETA from the
// work left, then the column of the last checkpoint; phase 2's share of its columns. Speeds are
// measured from the first line built (a resumed run starts at its checkpoint's column), each
// column counted at what it cost when it was swept: so build a line often (every tick of the
// printer), even when only some of them are shown.
class PeriodsLine {
  public:
    PeriodsLine(const PeriodsProgress& progress, uint64_t rows) : p_(&progress), rows_(rows) {}
    // The line after `seconds` since the printer started.
    std::string operator()(double seconds);
    // Of the last phase 1 line: "rows 0..k settled, certificate expected near column X, ETA Y",
    // with the rows that repeat past the ring after "settled, " where there are (empty before
    // any line), for a bar that shows the columns and their speed itself.
    const std::string& outlook() const { return outlook_; }

  private:
    const PeriodsProgress* p_;
    uint64_t rows_;
    double start_ = -1;              // seconds at the first phase 1 line
    uint64_t first_ = 0, last_ = 0;  // the column at the first line, at the last
    double units_ = 0;               // swept since the first line (strip_row_cost units)
    std::string phase_two(double seconds);
    double phase2_start_ = -1;   // seconds at the first phase 2 line
    uint64_t phase2_first_ = 0;  // the column at it
    std::string outlook_;
};

}  // namespace grundy::strip
