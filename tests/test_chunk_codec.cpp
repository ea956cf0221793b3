// The chunk codec's zlib streams decoded by zlib itself (an independent inflate).
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>

#include "io/chunk_codec.hpp"

namespace grundy::io {
namespace {

std::vector<uint8_t> inflate_all(const std::vector<uint8_t>& stream, size_t size) {
    std::vector<uint8_t> out(size);
    uLongf n = size;
    EXPECT_EQ(uncompress(out.data(), &n, stream.data(), stream.size()), Z_OK);
    EXPECT_EQ(n, size);
    return out;
}

TEST(ChunkCodec, MixedStoredAndCompressedPlanesInflate) {
    std::mt19937 rng(1);
    for (unsigned planes : {1u, 2u, 4u}) {
        for (size_t values : {1u, 1000u, 65536u, 70000u}) {
            // Random leading planes, smooth trailing ones: both paths of the encoder.
            std::vector<uint8_t> data(values * planes);
            for (unsigned p = 0; p < planes; ++p)
                for (size_t i = 0; i < values; ++i)
                    data[p * values + i] = p + 1 < planes || planes == 1
                                               ? static_cast<uint8_t>(rng())
                                               : static_cast<uint8_t>(i / 4096);
            std::vector<uint8_t> stream;
            zlib_stream_of_planes(data.data(), values, planes, 1, stream);
            EXPECT_EQ(inflate_all(stream, data.size()), data) << planes << " planes of " << values;
        }
    }
}

TEST(ChunkCodec, AllCompressiblePlanes) {
    std::vector<uint8_t> data(2 * 65536);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i / 300);
    std::vector<uint8_t> stream;
    zlib_stream_of_planes(data.data(), 65536, 2, 4, stream);
    EXPECT_LT(stream.size(), data.size() / 10);
    EXPECT_EQ(inflate_all(stream, data.size()), data);
}

}  // namespace
}  // namespace grundy::io
