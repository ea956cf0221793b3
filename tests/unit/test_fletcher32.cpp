// grundy's Fletcher-32 against HDF5's own fletcher32 filter: data written through the filter
// (H5Dwrite) and read back as stored (H5Dread_chunk) ends with the checksum grundy computes, at
// every length around the vectorised loops' blocks and runs (the AVX-512 one where the CPU has
// it, and the one for any x86-64), and for the contents where HDF5's
// folded sums differ from plain remainders (all zeros, all 0xFF).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "io/fletcher32.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::io {
namespace {

using testing::ScratchDir;

// The chunk HDF5 stores for `data` (one chunk of bytes) with the fletcher32 filter: the data
// and its checksum.
std::vector<uint8_t> stored_by_hdf5(const std::string& path, const std::vector<uint8_t>& data) {
    const hsize_t n = data.size();
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &n);
    H5Pset_fletcher32(dcpl);
    const hid_t d = H5Dcreate2(file, "d", H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    EXPECT_GE(H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
    H5Fflush(file, H5F_SCOPE_LOCAL);
    const hsize_t offset[1] = {0};
    hsize_t size = 0;
    H5Dget_chunk_storage_size(d, offset, &size);
    std::vector<uint8_t> chunk(size);
    uint32_t mask = 0;
    EXPECT_GE(H5Dread_chunk(d, H5P_DEFAULT, offset, &mask, chunk.data()), 0);
    EXPECT_EQ(mask, 0u);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    return chunk;
}

TEST(Fletcher32, EqualsHdf5sFilter) {
    ScratchDir dir;
    std::mt19937 rng(7);
    int cases = 0;
    // Blocks are 16 bytes, runs 256 blocks (4096 bytes); with AVX-512, steps of 64 bytes in runs
    // of 128 (8192 bytes), then the blocks. 1 MiB of 0xFF is the largest sums.
    for (const size_t n :
         {size_t{1}, size_t{2}, size_t{3}, size_t{31}, size_t{32}, size_t{33}, size_t{63},
          size_t{64}, size_t{65}, size_t{127}, size_t{1000}, size_t{4097}, size_t{8191},
          size_t{8192}, size_t{8193}, size_t{3 * 8192 + 17}, size_t{3 * 8192 + 64 + 48 + 1},
          size_t{1} << 20}) {
        // Random bytes (-1), zeros, 0xFF, and zeros but for a last byte of 1 (-2).
        for (const int fill : {-1, 0, 0xFF, -2}) {
            std::vector<uint8_t> data(n, fill == -2 ? 0 : static_cast<uint8_t>(fill));
            if (fill == -1)
                for (uint8_t& c : data) c = static_cast<uint8_t>(rng());
            if (fill == -2) data.back() = 1;
            const std::vector<uint8_t> chunk = stored_by_hdf5(dir.file("f.h5"), data);
            ASSERT_EQ(chunk.size(), n + kFletcher32Bytes);
            const uint32_t stored = chunk[n] | chunk[n + 1] << 8 | chunk[n + 2] << 16 |
                                    static_cast<uint32_t>(chunk[n + 3]) << 24;
            EXPECT_EQ(fletcher32(data.data(), n), stored) << n << " bytes of fill " << fill;
            EXPECT_EQ(fletcher32(data.data(), n, true), stored)
                << n << ", " << fill << ", portable";
            EXPECT_TRUE(fletcher32_matches(chunk.data(), chunk.size())) << n << ", " << fill;
            // Any byte changed, the data's or the checksum's, and it no longer matches.
            for (const size_t at : {size_t{0}, n / 2, n - 1, n + 2}) {
                std::vector<uint8_t> damaged = chunk;
                damaged[at] ^= 0x5A;
                EXPECT_FALSE(fletcher32_matches(damaged.data(), damaged.size()))
                    << n << " bytes of fill " << fill << ", byte " << at;
            }
            ++cases;
        }
    }
    EXPECT_EQ(cases, 72);
}

// HDF5 also takes the checksum with the two bytes of each half swapped (what HDF5 before 1.6.3
// wrote on little-endian machines); anything shorter than a checksum never matches.
TEST(Fletcher32, OldByteOrderAndShortChunks) {
    std::vector<uint8_t> chunk = {1, 2, 3, 4, 5};
    const uint32_t sum = fletcher32(chunk.data(), chunk.size());
    for (const int shift : {8, 0, 24, 16}) chunk.push_back(static_cast<uint8_t>(sum >> shift));
    EXPECT_TRUE(fletcher32_matches(chunk.data(), chunk.size()));
    EXPECT_EQ(fletcher32(chunk.data(), 0), 0u);
    EXPECT_FALSE(fletcher32_matches(chunk.data(), 3));
    const uint8_t zeros[4] = {0, 0, 0, 0};
    EXPECT_TRUE(fletcher32_matches(zeros, 4));  // no data, checksum 0
}

}  // namespace
}  // namespace grundy::io
