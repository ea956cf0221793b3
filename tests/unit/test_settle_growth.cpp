// SettleGrowth: the fitted growth behind the progress line's expected certificate column
// (strip/certify/search_progress.hpp), on settle points made from known power laws; work_left,
// the sweep's work left behind its ETA; and the progress line of rows that cannot settle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "strip/certify/search_progress.hpp"

namespace grundy {
namespace {

// Sub-strips of rows m settling at column c * m^b, for m = from, 1.1 from, ... up to `last`.
void add_law(strip::SettleGrowth& g, double c, double b, uint64_t from, uint64_t last) {
    for (double m = static_cast<double>(from); m <= static_cast<double>(last); m *= 1.1)
        g.add(static_cast<uint64_t>(m), static_cast<uint64_t>(c * std::pow(std::floor(m), b)));
}

TEST(SettleGrowth, ExtrapolatesAPowerLaw) {
    strip::SettleGrowth g;
    add_law(g, 3.0, 1.5, 20, 4000);
    const double want = 3.0 * std::pow(8192.0, 1.5);
    EXPECT_NEAR(static_cast<double>(g.predict(8192)), want, 1e-4 * want);
}

TEST(SettleGrowth, FollowsTheLatestOctaveOnly) {
    // Steep growth (x ~ m^2.8) up to 1800 rows, then x ~ m^1.5 continuing from there: the
    // estimate for 8192 rows is the new law's; a fit over two octaves (from 1000 rows) would
    // take in old points and overshoot.
    strip::SettleGrowth g;
    add_law(g, 1.0, 2.8, 20, 1799);
    const double c = std::pow(1800.0, 2.8 - 1.5);
    add_law(g, c, 1.5, 1800, 4000);
    const double want = c * std::pow(8192.0, 1.5);
    EXPECT_NEAR(static_cast<double>(g.predict(8192)), want, 1e-3 * want);
}

TEST(SettleGrowth, FitsTheLawItself) {
    strip::SettleGrowth g;
    add_law(g, 3.0, 1.5, 20, 4000);
    const auto law = g.fit();
    ASSERT_TRUE(law.has_value());
    EXPECT_NEAR(law->b, 1.5, 1e-5);
    EXPECT_NEAR(law->c, 3.0, 1e-3);
}

// Two rows, the second settling at the expected column and the first where a linear law puts
// the sub-strip of one row: half way.
TEST(WorkLeft, RowsSweptUntilTheyAreExpectedToSettle) {
    const auto w = strip::work_left(2, 0, 0, 1000, 1.0);
    EXPECT_DOUBLE_EQ(w.per_column, 640.0 + 641.0);
    EXPECT_DOUBLE_EQ(w.units, 500.0 * 640.0 + 1000.0 * 641.0);
    // 600 columns on, row 0 is past its column: only row 1's 400 columns are left.
    const auto later = strip::work_left(2, 0, 600, 1000, 1.0);
    EXPECT_DOUBLE_EQ(later.units, 400.0 * 641.0);
    // Row 0 settled: it costs nothing per column any more.
    const auto settled = strip::work_left(2, 1, 600, 1000, 1.0);
    EXPECT_DOUBLE_EQ(settled.per_column, 641.0);
    EXPECT_DOUBLE_EQ(settled.units, 400.0 * 641.0);
}

TEST(WorkLeft, NothingLeftPastTheCertificateOrWithoutAnEstimate) {
    EXPECT_DOUBLE_EQ(strip::work_left(100, 10, 5000, 5000, 1.4).units, 0.0);
    EXPECT_DOUBLE_EQ(strip::work_left(100, 10, 5000, 0, 0.0).units, 0.0);
    // The cost of a column is the unsettled rows' whatever the estimate: 640 + y each.
    EXPECT_DOUBLE_EQ(strip::work_left(100, 10, 5000, 0, 0.0).per_column, 90 * 640.0 + 4905.0);
}

TEST(WorkLeft, EveryRowAtTheEndWhenTheGrowthIsFlat) {
    // b = 0: every sub-strip settles at the certificate's column.
    const auto w = strip::work_left(8, 3, 100, 1100, 0.0);
    EXPECT_DOUBLE_EQ(w.units, 1000.0 * w.per_column);
}

TEST(WorkLeft, EveryRowToTheEndOnceNoMoreCanSettle) {
    // Rows that repeat with a period the ring cannot hold: row 0 is swept to the certificate
    // too, where the law had it settle at column 500.
    const auto w = strip::work_left(2, 0, 0, 1000, 1.0, false);
    EXPECT_DOUBLE_EQ(w.per_column, 640.0 + 641.0);
    EXPECT_DOUBLE_EQ(w.units, 1000.0 * (640.0 + 641.0));
}

// The progress line of a strip of 8 rows, 3 settled, at column 1200 after 100 columns per 10 s,
// with rows 0..repeating-1 seen to repeat past the ring (0: none).
std::string line_at_1200(uint64_t repeating) {
    PeriodsProgress p;
    p.phase = 1;
    p.settled_rows = 3;
    p.expected_x0 = 2000;
    p.settle_exponent = 1.0;
    strip::PeriodsLine line(p, 8);
    p.column = 1000;
    (void)line(10.0);
    p.column = 1100;
    (void)line(20.0);
    p.repeating_rows = repeating;
    p.repeating_period = repeating ? 1572864 : 0;
    p.column = 1200;
    return line(30.0);
}

// Rows that repeat past the ring are named with their period, and the ETA counts every row left
// to the end: rows 3..7 from column 1200 to 2000, 2.35 times the work of the law that has them
// settle at 1000, 1250, ..., 2000.
TEST(PeriodsLine, NamesRowsThatRepeatPastTheRing) {
    const std::string settling = line_at_1200(0), repeating = line_at_1200(5);
    EXPECT_EQ(settling.find("repeat"), std::string::npos) << settling;
    EXPECT_NE(repeating.find("rows 0..2 settled, rows 0..4 repeat with period 1572864, which the "
                             "ring cannot hold (phase 2 gives their preperiods), certificate "
                             "expected near column "),
              std::string::npos)
        << repeating;
    const auto eta = [](const std::string& s) { return s.substr(s.find("ETA ")); };
    EXPECT_EQ(eta(settling), "ETA 34 s") << settling;
    EXPECT_EQ(eta(repeating), "ETA 80 s") << repeating;
}

// Phase 2 settles nothing: its ETA is the columns left at the columns per second so far.
TEST(PeriodsLine, PhaseTwoHasAnEtaFromItsColumns) {
    PeriodsProgress p;
    p.phase = 2;
    p.target = 1000;
    strip::PeriodsLine line(p, 8);
    p.column = 100;
    EXPECT_NE(line(5.0).find("ETA unknown"), std::string::npos);
    p.column = 300;  // 200 columns in 10 s: 700 left take 35 s
    const std::string now = line(15.0);
    EXPECT_NE(now.find("phase 2/2 exact preperiods: column 300 of 1.00 k (30.0%), 20 col/s, "
                       "ETA 35 s"),
              std::string::npos)
        << now;
}

TEST(SettleGrowth, NoEstimateFromTooFewPoints) {
    strip::SettleGrowth g;
    EXPECT_EQ(g.predict(4096), 0u);
    g.add(100, 1000);
    g.add(120, 1500);
    EXPECT_EQ(g.predict(4096), 0u);  // two points are not a fit
    g.add(10, 10);                   // below 16 rows: before the growth law holds
    EXPECT_EQ(g.predict(4096), 0u);
    EXPECT_FALSE(g.fit().has_value());
}

}  // namespace
}  // namespace grundy
