// The chunk codec's zlib streams decoded by zlib itself (an independent inflate).
#include <blosc.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
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

// Blosc chunks: a smooth tile shrinks and Blosc's own decoder gives back the plain values; a
// random one does not shrink and is stored plain with the filter marked skipped (mask bit 0).
TEST(ChunkCodec, BloscChunksShrinkOrAreStoredPlain) {
    std::mt19937 rng(5);
    Compression blosc = Compression::parse("blosc");
    for (bool smooth : {true, false}) {
        std::vector<uint32_t> values(64 * 64);
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = smooth ? static_cast<uint32_t>(1000 + i / 7) : rng() & 0xFFFF;
        const TileView tile{0, 0, 64, 64, values.data()};
        EncodedChunk chunk;
        encode_chunk(tile, 64, 64, 2, blosc, chunk);
        std::vector<uint16_t> plain(values.begin(), values.end());
        std::vector<uint16_t> decoded(plain.size());
        if (smooth) {
            EXPECT_EQ(chunk.filter_mask, 0u);
            EXPECT_LT(chunk.bytes.size(), plain.size());
            ASSERT_EQ(
                blosc_decompress_ctx(chunk.bytes.data(), decoded.data(), 2 * decoded.size(), 1),
                static_cast<int>(2 * decoded.size()));
        } else {
            EXPECT_EQ(chunk.filter_mask, 1u);
            ASSERT_EQ(chunk.bytes.size(), 2 * plain.size());
            std::memcpy(decoded.data(), chunk.bytes.data(), chunk.bytes.size());
        }
        EXPECT_EQ(decoded, plain) << (smooth ? "smooth" : "random");
    }
}

}  // namespace
}  // namespace grundy::io
