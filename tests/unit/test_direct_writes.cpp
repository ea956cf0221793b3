// The direct-write file driver (io/direct_writes.hpp): the same file, byte for byte, as HDF5's
// own sec2 driver writes, with the whole pages of large raw data writes going past the page
// cache where the file system allows it; read back coherently in the same open file.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/direct_writes.hpp"
#include "support/direct_io.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::io {
namespace {

using grundy::testing::direct_io_works;
using grundy::testing::file_bytes;
using grundy::testing::ScratchDir;

// Values that differ from byte to byte and from one dataset to the next.
std::vector<uint8_t> pattern(size_t n, unsigned seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 13);
    return v;
}

struct Written {
    DirectWriteCounts counts;
    std::vector<std::vector<uint8_t>> read_back;  // each dataset, read in the same open file
};

// Chunks of odd sizes (a head and a tail off the page boundaries in every write), a small
// dataset (metadata-sized writes), a contiguous one, then each read back before closing.
Written write_file(const std::string& path, bool direct) {
    Written w;
    const H5Handle access = table_file_access(direct);
    EXPECT_TRUE(access.valid());
    H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    EXPECT_TRUE(file.valid());
    EXPECT_EQ(uses_direct_writes(file.get()), direct);
    const struct {
        const char* name;
        hsize_t size, chunk;  // chunk 0: contiguous
    } sets[] = {{"chunked", 1'500'007, 300'001}, {"small", 1000, 100}, {"contiguous", 777'777, 0}};
    for (unsigned k = 0; k < std::size(sets); ++k) {
        H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_obj_track_times(dcpl.get(), false);  // no clock in the bytes compared
        if (sets[k].chunk) H5Pset_chunk(dcpl.get(), 1, &sets[k].chunk);
        H5Handle space(H5Screate_simple(1, &sets[k].size, nullptr), H5Sclose);
        H5Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
        H5Pset_chunk_cache(dapl.get(), 0, 0, 1.0);  // read from the file, not HDF5's cache
        H5Handle set(H5Dcreate2(file.get(), sets[k].name, H5T_NATIVE_UINT8, space.get(),
                                H5P_DEFAULT, dcpl.get(), dapl.get()),
                     H5Dclose);
        const std::vector<uint8_t> v = pattern(sets[k].size, k);
        EXPECT_GE(H5Dwrite(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
                  0);
        H5Fflush(file.get(), H5F_SCOPE_LOCAL);
        std::vector<uint8_t> back(sets[k].size);
        EXPECT_GE(H5Dread(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()),
                  0);
        w.read_back.push_back(std::move(back));
    }
    w.counts = direct_write_counts(file.get());
    EXPECT_TRUE(file.reset());
    return w;
}

TEST(DirectWrites, TheFileIsSec2sByteForByte) {
    ScratchDir dir;
    const Written plain = write_file(dir / "sec2.h5", false);
    const Written direct = write_file(dir / "direct.h5", true);
    const std::string a = file_bytes(dir / "sec2.h5"), b = file_bytes(dir / "direct.h5");
    ASSERT_GT(a.size(), 2'000'000u);
    EXPECT_TRUE(a == b) << "the files differ (" << a.size() << " and " << b.size() << " bytes)";
    for (unsigned k = 0; k < 3; ++k) {
        EXPECT_TRUE(plain.read_back[k] == pattern(plain.read_back[k].size(), k)) << k;
        EXPECT_TRUE(direct.read_back[k] == pattern(direct.read_back[k].size(), k)) << k;
    }
    EXPECT_EQ(plain.counts.direct + plain.counts.buffered, 0u);  // not the driver's file
    // Every raw byte went one way or the other; where the file system takes direct writes,
    // the bulk of them went directly.
    const uint64_t raw = 1'500'007 + 1000 + 777'777;
    EXPECT_GE(direct.counts.direct + direct.counts.buffered, raw);
    if (direct_io_works(dir)) {
        EXPECT_FALSE(direct.counts.direct_refused);
        EXPECT_GT(direct.counts.direct, raw * 9 / 10);
        EXPECT_EQ(direct.counts.direct % 4096, 0u);
    } else {
        EXPECT_EQ(direct.counts.direct, 0u);
    }
}

// Chunks that follow one another in the file go to the disk together, a buffer of 2 MiB at a
// time, and are read back before anything is flushed: a read of gathered bytes writes them
// first.
TEST(DirectWrites, ChunksThatFollowOneAnotherAreWrittenTogether) {
    ScratchDir dir;
    const std::string path = dir / "gathered.h5";
    const H5Handle access = table_file_access(true);
    H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    ASSERT_TRUE(file.valid());
    const hsize_t size = 8 * 300'001, chunk = 300'001;
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl.get(), 1, &chunk);
    H5Handle space(H5Screate_simple(1, &size, nullptr), H5Sclose);
    H5Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    H5Pset_chunk_cache(dapl.get(), 0, 0, 1.0);  // read from the file, not HDF5's cache
    H5Handle set(H5Dcreate2(file.get(), "chunked", H5T_NATIVE_UINT8, space.get(), H5P_DEFAULT,
                            dcpl.get(), dapl.get()),
                 H5Dclose);
    const std::vector<uint8_t> v = pattern(size, 3);
    ASSERT_GE(H5Dwrite(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    std::vector<uint8_t> back(size);
    ASSERT_GE(H5Dread(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0);
    EXPECT_TRUE(back == v);
    const DirectWriteCounts counts = direct_write_counts(file.get());
    if (direct_io_works(dir)) {
        EXPECT_GE(counts.direct, size - 3 * 4096);
        EXPECT_GE(counts.direct_writes, 2u);
        EXPECT_LE(counts.direct_writes, 4u) << "one write a chunk: the chunks were not gathered";
        EXPECT_LE(counts.buffered, 2 * 4096u);
    } else {
        EXPECT_EQ(counts.direct_writes, 0u);
        EXPECT_GE(counts.buffered, size);
    }
    set.reset();
    EXPECT_TRUE(file.reset());
    H5Handle again(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5Handle stored(H5Dopen2(again.get(), "chunked", H5P_DEFAULT), H5Dclose);
    std::fill(back.begin(), back.end(), 0);
    ASSERT_GE(H5Dread(stored.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()),
              0);
    EXPECT_TRUE(back == v);
}

TEST(DirectWrites, ReopenedForWritingTheFileGrowsAsWithSec2) {
    ScratchDir dir;
    for (const bool direct : {false, true}) {
        const std::string path = dir / (direct ? "direct.h5" : "sec2.h5");
        write_file(path, direct);
        const H5Handle access = table_file_access(direct);
        H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, access.get()), H5Fclose);
        ASSERT_TRUE(file.valid());
        H5Handle set(H5Dopen2(file.get(), "chunked", H5P_DEFAULT), H5Dclose);
        const std::vector<uint8_t> v = pattern(1'500'007, 7);
        EXPECT_GE(H5Dwrite(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
                  0);
        EXPECT_TRUE(file.reset());
    }
    EXPECT_TRUE(file_bytes(dir / "sec2.h5") == file_bytes(dir / "direct.h5"));
    H5Handle file(H5Fopen((dir / "direct.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5Handle set(H5Dopen2(file.get(), "chunked", H5P_DEFAULT), H5Dclose);
    std::vector<uint8_t> back(1'500'007);
    ASSERT_GE(H5Dread(set.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0);
    EXPECT_TRUE(back == pattern(back.size(), 7));
}

}  // namespace
}  // namespace grundy::io
