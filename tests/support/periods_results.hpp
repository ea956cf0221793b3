// Comparing two results of certify_row_periods in tests: a stopped and resumed run, or one on
// other threads, must give the certificate and the rows of a run that never stopped.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "grundy/periods.hpp"

namespace grundy::testing {

// The same certificate and the same rows, blocks included.
inline void expect_same_certificate(const PeriodsResult& r, const PeriodsResult& ref) {
    EXPECT_EQ(r.x0, ref.x0);
    EXPECT_EQ(r.period, ref.period);
    ASSERT_EQ(r.rows.size(), ref.rows.size());
    for (size_t y = 0; y < ref.rows.size(); ++y) {
        ASSERT_TRUE(r.rows[y].periodicity && ref.rows[y].periodicity) << y;
        EXPECT_EQ(r.rows[y].periodicity->preperiod, ref.rows[y].periodicity->preperiod) << y;
        EXPECT_EQ(r.rows[y].periodicity->period, ref.rows[y].periodicity->period) << y;
        EXPECT_EQ(r.rows[y].block, ref.rows[y].block) << y;
    }
}

}  // namespace grundy::testing
