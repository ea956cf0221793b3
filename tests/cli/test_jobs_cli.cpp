// Job files (grundy run): the committed jobs/*.ini parsed and dry-run, several sections run in
// order with overrides reaching each, a failing section ending the job.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/table_files.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using namespace testing;

// The [section] names of a job file, in order.
std::vector<std::string> sections(const fs::path& job) {
    std::ifstream in(job);
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);)
        if (line.size() > 2 && line.front() == '[')
            names.push_back(line.substr(1, line.find(']') - 1));
    return names;
}

// Every committed job file parses: --dry-run prints one command per section, in order, with the
// file's options, and runs none of them (nothing is written).
TEST(CliJobs, CommittedJobFilesParse) {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(GRUNDY_SOURCE_DIR) / "jobs")) {
        if (entry.path().extension() != ".ini") continue;
        ++files;
        SCOPED_TRACE(entry.path().string());
        const auto r = run_grundy("run " + entry.path().string() + " --dry-run");
        ASSERT_EQ(r.status, 0) << r.output;
        std::string expected;
        for (const std::string& s : sections(entry.path())) expected += "grundy " + s + " ";
        std::istringstream lines(r.output);
        std::string got;
        for (std::string line; std::getline(lines, line);) {
            EXPECT_NE(line.find(" --rows "), std::string::npos) << line;  // the file's options
            got += line.substr(0, line.find(" --")) + " ";
        }
        EXPECT_EQ(got, expected) << r.output;
    }
    EXPECT_GE(files, 2);
}

// --dry-run prints the command a section makes (overrides included) and writes nothing; an
// option the section's command does not know is refused as in a real run.
TEST(CliJobs, DryRunPrintsTheCommandsAndRunsNone) {
    ScratchDir dir;
    const std::string job = dir.file("job.ini"), out = dir.file("a.h5");
    std::ofstream(job) << "[compute]\nrows = 40\ncols = 50\noutput = " << out << "\nforce = true\n";
    const auto r = run_grundy("run " + job + " --dry-run --cols 7");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output, "grundy compute --cols 7 --force --output " + out + " --rows 40\n");
    EXPECT_FALSE(fs::exists(out));
    std::ofstream(dir.file("bad.ini")) << "[compute]\nrows = 4\ncolour = red\n";
    const auto bad = run_grundy("run " + dir.file("bad.ini") + " --dry-run");
    EXPECT_EQ(bad.status, 2) << bad.output;
    EXPECT_NE(bad.output.find("colour"), std::string::npos) << bad.output;
}

// Text that Boost.Program_options would take for a placeholder of its messages once made
// them loop for ever (a job key "x%canonical_option%" found by fuzzing): now a key that is no
// option name, and an argument holding "%name%", get one line and status 2.
TEST(CliJobs, PlaceholderTextIsRefusedNotLoopedOn) {
    ScratchDir dir;
    const std::string job = dir.file("job.ini");
    std::ofstream(job) << "[periods]\r\n\tresum%canonical_option%\t= p.csv\r\n";
    const auto key = run_grundy("run " + job + " --dry-run");
    EXPECT_EQ(key.status, 2) << key.output;
    EXPECT_NE(key.output.find(job + ":2: 'resum%canonical_option%' is not an option name"),
              std::string::npos)
        << key.output;
    std::ofstream(job) << "[periods]\nrows = 4\ncsv = %value%.csv\n";
    const auto value = run_grundy("run " + job + " --dry-run");
    EXPECT_EQ(value.status, 2) << value.output;
    EXPECT_NE(value.output.find("'%value%' is not accepted"), std::string::npos) << value.output;
    for (const char* args : {"compute --x%canonical_option%", "periods --rows %option%"}) {
        const auto r = run_grundy(args);
        EXPECT_EQ(r.status, 2) << args << ": " << r.output;
        EXPECT_NE(r.output.find("is not accepted in options"), std::string::npos) << r.output;
    }
}

// Sections run in order, each with the overrides its command knows; a section that fails ends
// the job with its status, and the sections after it do not run.
TEST(CliJobs, SectionsRunInOrderUntilOneFails) {
    ScratchDir dir;
    const std::string job = dir.file("job.ini");
    std::ofstream(job) << "[compute]\nrows = 40\ncols = 50\nquiet = true\noutput = "
                       << dir.file("a.h5") << "\n\n[compute]\nrows = 30\ncols = 20\nquiet = true\n"
                       << "output = " << dir.file("b.h5")
                       << "\n\n[periods]\nrows = 9\nquiet = true\n"
                       << "csv = " << dir.file("p.csv") << "\n";
    const auto r = run_grundy("run " + job + " --cols 60");
    ASSERT_EQ(r.status, 0) << r.output;
    expect_file_equals(dir.file("a.h5"), table_in_memory(40, 60));
    expect_file_equals(dir.file("b.h5"), table_in_memory(30, 60));
    EXPECT_NE(slurp(dir.file("p.csv")).find("row"), std::string::npos);

    // --force reaches both [compute] sections (and periods, which has it too).
    const auto again = run_grundy("run " + job + " --force --rows 40");
    EXPECT_EQ(again.status, 0) << again.output;
    // Without it the first section refuses to overwrite a.h5: the others never run.
    fs::remove(dir.file("p.csv"));
    const auto refused = run_grundy("run " + job);
    EXPECT_EQ(refused.status, 2) << refused.output;
    EXPECT_NE(refused.output.find("exists"), std::string::npos) << refused.output;
    EXPECT_FALSE(fs::exists(dir.file("p.csv"))) << "the section after the failure ran";
}

}  // namespace
}  // namespace grundy
