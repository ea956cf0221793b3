// Complete tables damaged on disk after they were written: every reader of the program (verify,
// analyze, the library's reader) refuses a chunk that no longer decodes with one line and exit
// status 2, never a crash, never values from the damaged bytes. And the files written before
// chunks carried their checksum still read, and still resume.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
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

// Whether /grundy's pipeline ends with the fletcher32 filter.
bool has_checksum(const std::string& path) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, "grundy", H5P_DEFAULT);
    const hid_t dcpl = H5Dget_create_plist(dataset);
    const int n = H5Pget_nfilters(dcpl);
    unsigned flags = 0;
    size_t count = 0;
    const bool last =
        n > 0 && H5Pget_filter2(dcpl, static_cast<unsigned>(n - 1), &flags, &count, nullptr, 0,
                                nullptr, nullptr) == H5Z_FILTER_FLETCHER32;
    H5Pclose(dcpl);
    H5Dclose(dataset);
    H5Fclose(file);
    return last;
}

class CliDamagedFiles : public ::testing::TestWithParam<const char*> {};

// Every compression's chunks carry the fletcher32 filter's checksum, LZ4's and stored ones too,
// which have none of their own: the damaged chunk is refused.
TEST_P(CliDamagedFiles, ChunkOfACompleteTableIsRefused) {
    ScratchDir dir;
    const std::string f = dir.file("t.h5");
    damaged_table(f, GetParam());
    EXPECT_TRUE(has_checksum(f));
    for (const std::string command : {"verify ", "analyze "}) {
        const auto r = run_grundy(command + f);
        EXPECT_EQ(r.status, 2) << command << r.output;
        EXPECT_NE(r.output.find("damaged file?"), std::string::npos) << command << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    }
    // The reader opens the file (the damage is inside a chunk) and refuses the chunk's cells,
    // whether it decodes the chunk itself (a whole chunk) or HDF5 does (a few cells); the others
    // still read.
    Hdf5TableReader reader(f);
    std::vector<uint32_t> cells(64 * 64);
    EXPECT_THROW(reader.read(64, 64, 64, 64, cells.data()), Error);
    EXPECT_THROW(reader.read(70, 70, 2, 2, cells.data()), Error);
    EXPECT_NO_THROW(reader.read(0, 0, 64, 64, cells.data()));
    EXPECT_NO_THROW(reader.read(0, 64, 2, 2, cells.data()));
}

INSTANTIATE_TEST_SUITE_P(Compressions, CliDamagedFiles,
                         ::testing::Values("deflate", "blosc", "blosc:zstd:3", "none"),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), ':', '_');
                             return name;
                         });

// tests/data holds files written before chunks carried a checksum (by be08040): a complete Blosc
// table reads and checks out, and a stopped deflate run resumes into a complete table whose new
// chunks, like its old ones, have none (its pipeline says so).
TEST(CliFilesWithoutChecksum, ReadAndResume) {
    ScratchDir dir;
    const std::string data = std::string(GRUNDY_SOURCE_DIR) + "/tests/data/";
    const std::string blosc = data + "table-64x96-blosc-be08040.h5";
    ASSERT_FALSE(has_checksum(blosc));
    expect_file_equals(blosc, table_in_memory(64, 96));
    const auto analyzed = run_grundy("verify " + blosc);
    EXPECT_EQ(analyzed.status, 0) << analyzed.output;

    const std::string stopped = dir.file("stopped.h5");
    std::filesystem::copy_file(data + "stopped-1024x1024-deflate-be08040.h5", stopped);
    ASSERT_FALSE(has_checksum(stopped));
    const auto r =
        run_grundy("compute --rows 1024 --cols 1024 --tile 32 --resume -q -o " + stopped);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_FALSE(has_checksum(stopped));
    expect_file_equals(stopped, table_in_memory(1024, 1024));
    const auto verified = run_grundy("verify " + stopped);
    EXPECT_EQ(verified.status, 0) << verified.output;
}

}  // namespace
}  // namespace grundy
