// The progress of compute and periods as a user sees it: at a terminal one line redrawn in place
// four times a second; in a log (a batch job's output, here a file) a line of its own every
// --progress-every seconds, each beginning with the time, and a last one at the end.
#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

using namespace testing;

// Whether `text` holds `pieces` one after another (anything between them).
bool contains_in_order(const std::string& text, std::initializer_list<const char*> pieces) {
    size_t at = 0;
    for (const char* piece : pieces) {
        at = text.find(piece, at);
        if (at == std::string::npos) return false;
        at += std::string(piece).size();
    }
    return true;
}

// Whether `line` begins with a time as 2026-11-29T12:34:56Z and a space.
bool stamped(const std::string& line) {
    if (line.size() < 21) return false;
    for (size_t i = 0; i < 20; ++i) {
        const char c = line[i];
        const char want = "0000-00-00T00:00:00Z"[i];
        if (want == '0' ? !(c >= '0' && c <= '9') : c != want) return false;
    }
    return line[20] == ' ';
}

// The lines of `output` that begin with a time stamp, the stamp taken off.
std::vector<std::string> stamped_lines(const std::string& output) {
    std::vector<std::string> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);)
        if (stamped(line)) lines.push_back(line.substr(21));
    return lines;
}

// How many of `lines` begin with `prefix`.
size_t begin_with(const std::vector<std::string>& lines, const std::string& prefix) {
    size_t n = 0;
    for (const auto& line : lines) n += line.compare(0, prefix.size(), prefix) == 0;
    return n;
}

// At a terminal: compute's share, cells and speed; periods' phase, column and settled rows. A
// run sleeping after every block (periods' --test-delay-us: 100 rows have four before the
// last, at columns 201, 65737, 131273 and 196809) or a table of a second or more on one thread
// (12000^2: 1.1 s on the 2-core machine of docs/benchmarks.md) lasts several redraws.
TEST(CliProgress, RedrawnInPlaceAtATerminal) {
    ScratchDir dir;
    const auto c =
        run_grundy_on_terminal("compute --rows 12000 --cols 12000 --threads 1 --no-output");
    ASSERT_EQ(c.status, 0) << c.output;
    // (Pieces of the line, not std::regex: GCC 12 warns inside it under the sanitizers.)
    EXPECT_TRUE(contains_in_order(c.output, {"\r[", "%] ", " cells, ", " cells/s, ETA "}))
        << c.output;
    EXPECT_TRUE(stamped_lines(c.output).empty()) << c.output;
    const auto p = run_grundy_on_terminal("periods --rows 100 --test-delay-us 300000 --csv " +
                                          dir.file("p.csv"));
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_TRUE(contains_in_order(p.output, {"\rphase 1/2: column ", " col/s), rows 0..",
                                             " settled, certificate expected near column "}))
        << p.output;
}

// In a log, --progress: no carriage return at all, a stamped line at the start, one per
// --progress-every, and the last at the end (compute's at 100%): at least two lines in a run
// of a second.
TEST(CliProgress, StampedLinesInALog) {
    ScratchDir dir;
    const auto c = run_grundy(
        "compute --rows 12000 --cols 12000 --threads 1 --progress --progress-every 0.25 "
        "--no-output");
    ASSERT_EQ(c.status, 0) << c.output;
    EXPECT_EQ(c.output.find('\r'), std::string::npos) << c.output;
    const auto lines = stamped_lines(c.output);
    ASSERT_GE(lines.size(), 2u) << c.output;
    EXPECT_EQ(begin_with(lines, "["), lines.size()) << c.output;
    EXPECT_TRUE(contains_in_order(lines.back(), {"[100.0%] 144.00 M cells, ", " cells/s"}))
        << c.output;
    const auto p = run_grundy(
        "periods --rows 100 --test-delay-us 300000 --progress "
        "--progress-every 0.25 --csv " +
        dir.file("p.csv"));
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_EQ(p.output.find('\r'), std::string::npos) << p.output;
    // (A slow start, as under a sanitizer, may show "starting (allocating, ...)" first.)
    const auto phases = stamped_lines(p.output);
    EXPECT_GE(begin_with(phases, "phase 1/2: column "), 3u) << p.output;
    EXPECT_EQ(begin_with(phases, "phase 1/2: column ") + begin_with(phases, "starting ("),
              phases.size())
        << p.output;
    EXPECT_TRUE(contains_in_order(phases.back(), {" col/s), rows 0..99 settled, "})) << p.output;
    // The default in a log: a line at the start and one at the end, none in between for a run
    // of a few seconds.
    const auto quiet = run_grundy("periods --rows 100 --test-delay-us 300000 --progress --csv " +
                                  dir.file("q.csv"));
    ASSERT_EQ(quiet.status, 0) << quiet.output;
    EXPECT_EQ(stamped_lines(quiet.output).size(), 2u) << quiet.output;
    // Without --progress a log gets no progress; a bad interval is refused.
    const auto none = run_grundy("periods --rows 20 --csv " + dir.file("n.csv"));
    EXPECT_EQ(none.status, 0) << none.output;
    EXPECT_TRUE(stamped_lines(none.output).empty()) << none.output;
    const auto bad = run_grundy("compute --rows 8 --cols 8 --no-output --progress-every -1");
    EXPECT_EQ(bad.status, 2) << bad.output;
    EXPECT_NE(bad.output.find("--progress-every must be a number of seconds"), std::string::npos)
        << bad.output;
}

// A run that writes checkpoints says where the last one is (what a job killed then would
// keep); a run without one says nothing of it. 100 rows, a checkpoint at every block (the
// first at column 201) and a line every quarter second.
TEST(CliProgress, TheLastCheckpointsColumn) {
    ScratchDir dir;
    const std::string run =
        "periods --rows 100 --test-delay-us 300000 --progress "
        "--progress-every 0.25 --csv " +
        dir.file("p.csv");
    const auto saved =
        run_grundy(run + " --checkpoint " + dir.file("c.ckpt") + " --checkpoint-every 0");
    ASSERT_EQ(saved.status, 0) << saved.output;
    const auto lines = stamped_lines(saved.output);
    ASSERT_FALSE(lines.empty()) << saved.output;
    EXPECT_TRUE(contains_in_order(lines.back(), {"phase 1/2: column ", ", checkpoint at column "}))
        << saved.output;
    const auto none = run_grundy(run);
    ASSERT_EQ(none.status, 0) << none.output;
    EXPECT_EQ(none.output.find("checkpoint at column"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace grundy
