// Reading the row-periods CSV of `grundy periods` in tests: a stopped run's file, whose
// certified rows must be exactly those of a finished run, and its other rows undetermined.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace grundy::testing {

// One data line of a row-periods CSV, split at its commas (the block column may be empty).
inline std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> f;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) f.push_back(field);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    return f;
}

// The data lines of a row-periods CSV (comment lines and the header left out).
inline std::vector<std::string> csv_rows(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> rows;
    std::string line;
    bool header = false;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0 && !header) continue;
        if (!header) {
            header = true;
            continue;
        }
        rows.push_back(line);
    }
    return rows;
}

// Checks that `path`, the CSV of a run of `rows` rows that may have stopped, lists every row in
// order, its certified rows first and each equal (row, preperiod, period) to row y of
// `reference` (a finished run's CSV, or a committed result with the header
// row,preperiod,period,certified,...), and the rest undetermined. Returns how many are
// certified.
inline uint64_t expect_certified_prefix(const std::string& path, const std::string& reference,
                                        uint64_t rows) {
    const std::vector<std::string> got = csv_rows(path), ref = csv_rows(reference);
    EXPECT_EQ(got.size(), rows) << path;
    uint64_t certified = 0;
    for (uint64_t y = 0; y < got.size(); ++y) {
        const std::vector<std::string> f = csv_fields(got[y]);
        if (f.size() < 5) {
            ADD_FAILURE() << path << ": malformed line " << got[y];
            return certified;
        }
        EXPECT_EQ(f[0], std::to_string(y)) << path;
        if (f[4] == "1") {
            EXPECT_EQ(certified, y) << path << ": certified row " << y << " after one that is not";
            ++certified;
            if (y >= ref.size()) {
                ADD_FAILURE() << reference << " has no row " << y;
                continue;
            }
            const std::vector<std::string> r = csv_fields(ref[y]);
            EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 3),
                      std::vector<std::string>(r.begin(), r.begin() + 3))
                << path << " row " << y;
        } else {
            EXPECT_EQ(f[4], "0") << path << " row " << y;
            EXPECT_TRUE(f[1].empty() && f[2].empty())
                << path << ": row " << y << " is not certified but has a period";
        }
    }
    return certified;
}

}  // namespace grundy::testing
