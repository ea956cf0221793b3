// The chunk codec's zlib streams decoded by zlib itself (an independent inflate); chunks with
// and without their checksum decoded back, and damaged ones refused; the pipelines the decoder
// takes.
#include <blosc.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "io/chunk_codec.hpp"

namespace grundy::io {
namespace {

std::vector<uint8_t> inflate_all(const ChunkBytes& stream, size_t size) {
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
            ChunkBytes stream;
            zlib_stream_of_planes(data.data(), values, planes, 1, stream);
            EXPECT_EQ(inflate_all(stream, data.size()), data) << planes << " planes of " << values;
        }
    }
}

TEST(ChunkCodec, AllCompressiblePlanes) {
    std::vector<uint8_t> data(2 * 65536);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i / 300);
    ChunkBytes stream;
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
        encode_chunk(tile, false, 64, 64, 2, blosc, false, chunk);
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

// A mirrored tile's chunk encoded from its source (TileSink::consume_transpose) is the chunk of
// the transpose made beforehand, byte for byte: every compression and value size, whole and
// edge tiles (padded to the chunk), sides that are no multiple of the transpose's strips.
TEST(ChunkCodec, TransposeEncodedFromItsSourceIsTheTransposesChunk) {
    std::mt19937 rng(3);
    for (const char* option : {"none", "deflate", "blosc"})
        for (const unsigned value_bytes : {2u, 4u})
            for (const auto& [w, h] : {std::pair{64u, 64u}, {64u, 40u}, {23u, 64u}, {7u, 5u}}) {
                std::vector<uint32_t> source(w * h), mirror(w * h);
                for (uint32_t j = 0; j < h; ++j)
                    for (uint32_t i = 0; i < w; ++i)
                        source[j * w + i] =
                            3 * (i + j) + (rng() & 0x3F) + (value_bytes == 4) * 70000;
                for (uint32_t j = 0; j < h; ++j)
                    for (uint32_t i = 0; i < w; ++i) mirror[i * h + j] = source[j * w + i];
                const Compression compression = Compression::parse(option);
                EncodedChunk direct, expected;
                encode_chunk(TileView{100, 200, w, h, source.data()}, true, 64, 64, value_bytes,
                             compression, true, direct);
                encode_chunk(TileView{200, 100, h, w, mirror.data()}, false, 64, 64, value_bytes,
                             compression, true, expected);
                EXPECT_EQ(direct.bytes, expected.bytes) << option << ", " << w << " x " << h;
                EXPECT_EQ(direct.filter_mask, expected.filter_mask) << option;
            }
}

// The chunks grundy compute writes most (two-byte values at level 1, a low plane that does not
// shrink) are encoded a band of rows at a time, the low plane stored as it is split: the bytes
// must be those of the stream made from both planes laid out whole, on chunks of one band and of
// several, square and not, direct and transposed, with high planes whose runs cross the bands,
// and on the chunks left to the general path (a low plane that shrinks, an edge tile, rows that
// do not fill a band).
TEST(ChunkCodec, ChunksEncodedByBandsAreTheStreamOfTheirPlanes) {
    std::mt19937 rng(11);
    const Compression deflate = Compression::parse("deflate");
    ASSERT_EQ(deflate.level, 1);
    enum Values { Grundy, ConstantHigh, Small };
    struct Case {
        uint32_t chunk_cols, chunk_rows, width, height;  // the chunk, and the values in it
        Values values;
        bool by_bands;  // encodes_by_bands (a low plane that shrinks then takes the general path)
    };
    for (const Case c : {Case{512, 512, 512, 512, Grundy, true},
                         {512, 512, 512, 512, ConstantHigh, true},
                         {128, 128, 128, 128, Grundy, true},
                         {1024, 256, 1024, 256, Grundy, true},
                         {256, 1024, 256, 1024, ConstantHigh, true},
                         {48, 48, 48, 48, Grundy, true},
                         {512, 512, 512, 512, Small, true},
                         {512, 512, 300, 512, Grundy, false},
                         {80, 1000, 80, 1000, Grundy, false}})
        for (const bool transposed : {false, true}) {
            // The chunk's values, row-major, then the planes a reader finds (zeros padding).
            std::vector<uint32_t> values(uint64_t{c.width} * c.height);
            for (uint32_t j = 0; j < c.height; ++j)
                for (uint32_t i = 0; i < c.width; ++i) {
                    const uint32_t high = c.values == ConstantHigh ? 0x45
                                          : c.values == Small
                                              ? 0
                                              : ((i + 3 * j) / 37 + (rng() % 7 == 0)) & 0x7F;
                    const uint32_t low = c.values == Small ? (i + j) / 16 & 0xFF : rng() & 0xFF;
                    values[uint64_t{j} * c.width + i] = high << 8 | low;
                }
            const uint64_t n = uint64_t{c.chunk_cols} * c.chunk_rows;
            std::vector<uint8_t> planes(2 * n, 0);
            for (uint32_t j = 0; j < c.height; ++j)
                for (uint32_t i = 0; i < c.width; ++i) {
                    const uint32_t v = values[uint64_t{j} * c.width + i];
                    planes[uint64_t{j} * c.chunk_cols + i] = static_cast<uint8_t>(v);
                    planes[n + uint64_t{j} * c.chunk_cols + i] = static_cast<uint8_t>(v >> 8);
                }
            ChunkBytes expected;
            zlib_stream_of_planes(planes.data(), n, 2, 1, expected);
            ASSERT_LT(expected.size(), 2 * n);

            std::vector<uint32_t> source = values;  // with `transposed`, the chunk's transpose
            TileView tile{0, 0, c.width, c.height, source.data()};
            if (transposed) {
                for (uint32_t j = 0; j < c.height; ++j)
                    for (uint32_t i = 0; i < c.width; ++i)
                        source[uint64_t{i} * c.height + j] = values[uint64_t{j} * c.width + i];
                tile = TileView{0, 0, c.height, c.width, source.data()};
            }
            EncodedChunk chunk;
            encode_chunk(tile, transposed, c.chunk_rows, c.chunk_cols, 2, deflate, false, chunk);
            const std::string what = std::to_string(c.chunk_cols) + " x " +
                                     std::to_string(c.chunk_rows) + ", values " +
                                     std::to_string(c.values) + (transposed ? ", transposed" : "");
            EXPECT_EQ(encodes_by_bands(tile, transposed, c.chunk_rows, c.chunk_cols, 2, deflate),
                      c.by_bands)
                << what;
            EXPECT_FALSE(encodes_by_bands(tile, transposed, c.chunk_rows, c.chunk_cols, 4, deflate))
                << what;
            EXPECT_FALSE(encodes_by_bands(tile, transposed, c.chunk_rows, c.chunk_cols, 2,
                                          Compression::parse("deflate:2")))
                << what;
            EXPECT_EQ(chunk.filter_mask, 0u) << what;
            EXPECT_TRUE(chunk.bytes == expected) << what;
            EXPECT_EQ(inflate_all(chunk.bytes, 2 * n), planes) << what;
        }
}

// The format of a dataset that `compression` writes, with the checksum last when `checksum`.
ChunkFormat format_for(const Compression& compression, bool checksum, unsigned value_bytes) {
    ChunkFormat f;
    f.rows = f.cols = 64;
    f.value_size = value_bytes;
    int next = 0;
    if (compression.kind == Compression::Kind::Deflate) {
        f.shuffle = next++;
        f.deflate = next++;
    } else if (compression.kind == Compression::Kind::Blosc) {
        f.blosc = next++;
    }
    if (checksum) f.fletcher32 = next;
    return f;
}

// Every compression, on a smooth tile (compressed) and a random one (stored, its filters marked
// skipped), of 2- and 4-byte values: decoded back whole, with the checksum or without (a file
// written before chunks carried one); with it, a byte changed anywhere is refused.
TEST(ChunkCodec, ChecksummedChunksDecodeAndDamagedOnesAreRefused) {
    std::mt19937 rng(11);
    int refused = 0;
    for (const char* option : {"none", "deflate", "deflate:6", "blosc", "blosc:zstd:3"}) {
        const Compression compression = Compression::parse(option);
        for (const unsigned value_bytes : {2u, 4u})
            for (const bool smooth : {true, false}) {
                std::vector<uint32_t> values(64 * 64);
                for (size_t i = 0; i < values.size(); ++i)
                    values[i] = smooth ? static_cast<uint32_t>(1000 + i / 7) : rng() & 0xFFFF;
                const TileView tile{0, 0, 64, 64, values.data()};
                const std::string what = std::string(option) + (smooth ? " smooth " : " random ") +
                                         std::to_string(value_bytes) + " bytes";
                for (const bool checksum : {false, true}) {
                    EncodedChunk chunk;
                    encode_chunk(tile, false, 64, 64, value_bytes, compression, checksum, chunk);
                    const ChunkFormat f = format_for(compression, checksum, value_bytes);
                    std::vector<uint32_t> out(values.size());
                    ASSERT_TRUE(decode_chunk(f, chunk.bytes.data(), chunk.bytes.size(),
                                             chunk.filter_mask, 0, 0, 64, 64, out.data(), 64))
                        << what << (checksum ? ", checksum" : "");
                    EXPECT_EQ(out, values) << what;
                    if (!checksum) continue;
                    const size_t n = chunk.bytes.size();
                    for (const size_t at : {size_t{0}, n / 3, n / 2, n - 5, n - 1}) {
                        ChunkBytes damaged = chunk.bytes;
                        damaged[at] ^= 0x5A;
                        EXPECT_FALSE(decode_chunk(f, damaged.data(), n, chunk.filter_mask, 0, 0, 64,
                                                  64, out.data(), 64))
                            << what << ", byte " << at << " of " << n;
                        ++refused;
                    }
                }
            }
    }
    EXPECT_EQ(refused, 5 * 2 * 2 * 5);
}

// The pipelines decode_chunk takes: grundy's (shuffle + deflate, Blosc, none), each with the
// checksum last or without it; the checksum anywhere else, or another filter, is for H5Dread.
TEST(ChunkCodec, FormatsOfPipelines) {
    struct Case {
        std::vector<H5Z_filter_t> filters;
        bool known;
        int shuffle, deflate, blosc, fletcher32;
    };
    const H5Z_filter_t shuffle = H5Z_FILTER_SHUFFLE, deflate = H5Z_FILTER_DEFLATE,
                       blosc = kBloscFilter, fletcher = H5Z_FILTER_FLETCHER32;
    for (const Case& c :
         {Case{{}, true, -1, -1, -1, -1}, Case{{fletcher}, true, -1, -1, -1, 0},
          Case{{shuffle, deflate}, true, 0, 1, -1, -1},
          Case{{shuffle, deflate, fletcher}, true, 0, 1, -1, 2},
          Case{{deflate, fletcher}, true, -1, 0, -1, 1}, Case{{blosc}, true, -1, -1, 0, -1},
          Case{{blosc, fletcher}, true, -1, -1, 0, 1}, Case{{fletcher, deflate}, false, 0, 0, 0, 0},
          Case{{shuffle, deflate, fletcher, fletcher}, false, 0, 0, 0, 0},
          Case{{blosc, deflate, fletcher}, false, 0, 0, 0, 0},
          Case{{H5Z_FILTER_NBIT, fletcher}, false, 0, 0, 0, 0}}) {
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        const hsize_t chunk[2] = {64, 32};
        H5Pset_chunk(dcpl, 2, chunk);
        for (const H5Z_filter_t id : c.filters)
            H5Pset_filter(dcpl, id, id == blosc ? H5Z_FLAG_OPTIONAL : 0, 0, nullptr);
        ChunkFormat f;
        const bool known = chunk_format_of(dcpl, H5T_STD_U16LE, f);
        H5Pclose(dcpl);
        std::string pipeline;
        for (const H5Z_filter_t id : c.filters) pipeline += std::to_string(id) + " ";
        ASSERT_EQ(known, c.known) << pipeline;
        if (!known) continue;
        EXPECT_EQ(f.rows, 64u);
        EXPECT_EQ(f.cols, 32u);
        EXPECT_EQ(f.value_size, 2u);
        EXPECT_EQ(f.shuffle, c.shuffle) << pipeline;
        EXPECT_EQ(f.deflate, c.deflate) << pipeline;
        EXPECT_EQ(f.blosc, c.blosc) << pipeline;
        EXPECT_EQ(f.fletcher32, c.fletcher32) << pipeline;
    }
}

}  // namespace
}  // namespace grundy::io
