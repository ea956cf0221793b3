// Complete tables damaged on disk after they were written: every reader of the program (verify,
// analyze, the library's reader) refuses a chunk that no longer decodes with one line and exit
// status 2, never a crash, never values from the damaged bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "support/cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/table_files.hpp"

namespace grundy {
namespace {

using namespace testing;

// Stores a 1000 x 1000 table in `f` with `compression` and damages its chunk at (64, 64).
void damaged_table(const std::string& f, const std::string& compression) {
    ASSERT_EQ(run_grundy("compute --rows 1000 --cols 1000 --tile 64 --no-pyramid -q "
                         "--compression " +
                         compression + " -o " + f)
                  .status,
              0);
    ASSERT_FALSE(damage_chunk(f, 64, 64).empty());
}

// Deflate streams carry a checksum (zlib's Adler-32): the damaged chunk is refused.
TEST(CliDamagedFiles, DeflateChunkOfACompleteTableIsRefused) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    damaged_table(f, "deflate");
    for (const std::string command : {"verify ", "analyze "}) {
        const auto r = run_grundy(command + f);
        EXPECT_EQ(r.status, 2) << command << r.output;
        EXPECT_NE(r.output.find("damaged file?"), std::string::npos) << command << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    }
    // The reader opens the file (the damage is inside a chunk) and refuses the chunk's cells;
    // the others still read.
    Hdf5TableReader reader(f);
    std::vector<uint32_t> cells(64 * 64);
    EXPECT_THROW(reader.read(64, 64, 64, 64, cells.data()), Error);
    EXPECT_NO_THROW(reader.read(0, 0, 64, 64, cells.data()));
}

// Blosc's LZ4 chunks carry no checksum: damaged bytes may decode into other values. verify
// still finds them (exit status 1, the first wrong cell named), and never crashes.
TEST(CliDamagedFiles, BloscChunkOfACompleteTableFailsVerify) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    damaged_table(f, "blosc");
    const auto r = run_grundy("verify " + f);
    EXPECT_TRUE(r.status == 1 || r.status == 2) << r.output;
    EXPECT_TRUE(r.output.find("is WRONG") != std::string::npos ||
                r.output.find("damaged file?") != std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace grundy
