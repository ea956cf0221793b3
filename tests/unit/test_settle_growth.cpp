// SettleGrowth: the fitted growth behind the progress line's expected certificate column
// (strip/certify/search_progress.hpp), on settle points made from known power laws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

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

TEST(SettleGrowth, NoEstimateFromTooFewPoints) {
    strip::SettleGrowth g;
    EXPECT_EQ(g.predict(4096), 0u);
    g.add(100, 1000);
    g.add(120, 1500);
    EXPECT_EQ(g.predict(4096), 0u);  // two points are not a fit
    g.add(10, 10);                   // below 16 rows: before the growth law holds
    EXPECT_EQ(g.predict(4096), 0u);
}

}  // namespace
}  // namespace grundy
