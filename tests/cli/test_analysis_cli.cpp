// grundy analyze and grundy verify as a user runs them: exit statuses 0 / 1 / 2, the CSV
// contract, the JSON summary, the /analysis group in the file, and one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "grundy/analysis.hpp"
#include "grundy/hdf5_reader.hpp"
#include "io/h5_attributes.hpp"
#include "support/analysis_fixtures.hpp"
#include "support/cli.hpp"

namespace grundy {
namespace {

using testing::ScratchDir;

using Result = testing::RunResult;
Result run(const std::string& args) {
    return testing::run_grundy(args);
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream s(line);
        std::string f;
        while (std::getline(s, f, ',')) fields.push_back(f);
        if (!line.empty() && line.back() == ',') fields.push_back("");
        rows.push_back(fields);
    }
    return rows;
}

TEST(AnalysisCli, AnalyzeWritesCsvJsonAndTheAnalysisGroup) {
    ScratchDir dir;
    const std::string h5 = dir.file("t.h5"), csv = dir.file("t.csv");
    testing::write_table(h5, 6, 2048);
    const Result r = run("analyze " + h5 + " --csv " + csv + " --json --threads 2");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("\"ok\":true"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\"block\":[8,9,4,2,9,4]"), std::string::npos) << r.output;
    // 6 rows x 2048 columns: the mirrored columns and diagonals were left to symmetry.
    EXPECT_NE(r.output.find("\"method\":\"columns x < rows and diagonals x < y by symmetry"),
              std::string::npos)
        << r.output;

    const auto rows = read_csv(csv);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"row", "preperiod", "period", "periods_observed",
                                                 "certified", "block"}));
    const char* periods[] = {"1", "3", "3", "6", "12"};  // OEIS A004482-A004485
    for (int y = 0; y < 5; ++y) {
        EXPECT_EQ(rows[y + 1][0], std::to_string(y));
        EXPECT_EQ(rows[y + 1][2], periods[y]) << "row " << y;
    }
    EXPECT_EQ(rows[2][4], "0");  // found in the stored columns, not certified
    EXPECT_EQ(rows[2][5], "3 3 0");

    // The file still reads as complete, and /analysis records how the periods were found.
    EXPECT_TRUE(Hdf5TableReader(h5).complete());
    const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t group = H5Gopen2(file, "analysis/row_periods", H5P_DEFAULT);
    ASSERT_GE(group, 0);
    EXPECT_EQ(io::read_string_attribute(group, "criterion").value_or(""), kRowPeriodCriterion);
    const hid_t d = H5Dopen2(group, "period", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    int64_t values[6];
    H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    EXPECT_EQ(values[4], 12);
    const hid_t g = H5Gopen2(file, "analysis", H5P_DEFAULT);
    EXPECT_EQ(io::read_int_attribute(g, "verify_ok").value_or(-1), 1);
    EXPECT_EQ(io::read_int_attribute(g, "ppositions_ok").value_or(-1), 1);
    EXPECT_NE(io::read_string_attribute(g, "properties_method").value_or("").find("by symmetry"),
              std::string::npos);
    H5Gclose(g);
    H5Dclose(d);
    H5Gclose(group);
    H5Fclose(file);

    // Analysing again replaces the results instead of failing on existing datasets.
    EXPECT_EQ(run("analyze " + h5 + " --passes periodicity").status, 0);
}

TEST(AnalysisCli, UndeterminedRowsHaveEmptyFields) {
    ScratchDir dir;
    const std::string h5 = dir.file("t.h5"), csv = dir.file("t.csv");
    testing::write_table(h5, 40, 64);
    ASSERT_EQ(run("analyze " + h5 + " --passes periodicity --no-store --csv " + csv).status, 0);
    const auto rows = read_csv(csv);
    ASSERT_EQ(rows.size(), 41u);
    const auto& last = rows.back();  // row 39: no period fits in 64 columns
    ASSERT_GE(last.size(), 3u);
    EXPECT_EQ(last[0], "39");
    EXPECT_EQ(last[1], "");
    EXPECT_EQ(last[2], "");
}

TEST(AnalysisCli, WrongCellGivesStatusOneAndItsName) {
    ScratchDir dir;
    const std::string h5 = dir.file("t.h5");
    testing::write_table(h5, 300, 400, 64);
    EXPECT_EQ(run("verify " + h5).status, 0);
    EXPECT_EQ(run("verify " + h5 + " --sample 50 --seed 3").status, 0);
    const uint32_t original = Hdf5TableReader(h5).at(150, 97);
    testing::corrupt_cell(h5, 150, 97, original + 3);
    const Result v = run("verify " + h5);
    EXPECT_EQ(v.status, 1) << v.output;
    EXPECT_NE(v.output.find("(150, 97) holds " + std::to_string(original + 3) +
                            ", but the mex of its options is " + std::to_string(original)),
              std::string::npos)
        << v.output;
    const Result a = run("analyze " + h5 + " --passes verify,properties --no-store");
    EXPECT_EQ(a.status, 1) << a.output;
    EXPECT_NE(a.output.find("(150, 97)"), std::string::npos) << a.output;
}

TEST(AnalysisCli, BadFilesAndBadOptionsGiveStatusTwo) {
    ScratchDir dir;
    const std::string good = dir.file("good.h5");
    testing::write_table(good, 64, 300, 32);
    for (const auto& [path, needle] : testing::bad_files(dir, good))
        for (const char* command : {"analyze ", "verify "}) {
            const Result r = run(command + path);
            EXPECT_EQ(r.status, 2) << command << path << ": " << r.output;
            EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
            EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
        }
    EXPECT_EQ(run("analyze " + dir.file("incomplete.h5") + " --allow-incomplete --no-store").status,
              0);
    EXPECT_EQ(run("verify " + dir.file("incomplete.h5") + " --allow-incomplete").status, 0);
    EXPECT_EQ(run("analyze " + good + " --passes periodicity,nonsense").status, 2);
    EXPECT_EQ(run("analyze " + good + " --passes verify --csv " + dir.file("x.csv")).status, 2);
    EXPECT_EQ(run("verify " + good + " --sample 0").status, 2);
    EXPECT_EQ(run("verify").status, 2);
}

}  // namespace
}  // namespace grundy
