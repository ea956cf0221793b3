#include "io/chunk_codec.hpp"

#include <blosc.h>
#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "base/byte_planes.hpp"
#include "base/simd_clones.hpp"
#include "base/transpose.hpp"
#include "io/fletcher32.hpp"
#include "io/rle_deflate.hpp"

namespace grundy::io {
namespace {

struct DecompressorDeleter {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

libdeflate_decompressor* thread_decompressor() {
    thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(
        libdeflate_alloc_decompressor());
    if (!d) throw std::bad_alloc();
    return d.get();
}

// One row of a tile into a chunk: values narrowed to two bytes, or split into byte planes.
// Per row, through GRUNDY_SIMD_CLONES: built for any x86-64 these loops took 3.9 instructions
// per value (callgrind, 8192^2 with output), with AVX2 well under one.
GRUNDY_SIMD_CLONES void narrow_row(const uint32_t* __restrict src, uint32_t n,
                                   uint16_t* __restrict out) {
    for (uint32_t i = 0; i < n; ++i) out[i] = static_cast<uint16_t>(src[i]);
}

GRUNDY_SIMD_CLONES void split_row_4(const uint32_t* __restrict src, uint32_t n,
                                    uint8_t* __restrict b0, uint8_t* __restrict b1,
                                    uint8_t* __restrict b2, uint8_t* __restrict b3) {
    for (uint32_t i = 0; i < n; ++i) {
        b0[i] = static_cast<uint8_t>(src[i]);
        b1[i] = static_cast<uint8_t>(src[i] >> 8);
        b2[i] = static_cast<uint8_t>(src[i] >> 16);
        b3[i] = static_cast<uint8_t>(src[i] >> 24);
    }
}

// Row j of a chunk (`width` values of `src`) laid out as little-endian values at row j of
// `dst`, byte-shuffled when `shuffle`: byte k of every value goes to plane k (n values each),
// which is what H5Z's shuffle filter writes.
template <typename T>
void lay_row(const uint32_t* src, uint32_t width, uint32_t j, uint32_t chunk_cols, uint64_t n,
             bool shuffle, uint8_t* dst) {
    const uint64_t row = uint64_t{j} * chunk_cols;
    if constexpr (sizeof(T) == 2) {
        if (shuffle)
            base::split_row_2(src, width, dst + row, dst + n + row);
        else
            narrow_row(src, width, reinterpret_cast<uint16_t*>(dst) + row);
    } else if (shuffle) {
        split_row_4(src, width, dst + row, dst + n + row, dst + 2 * n + row, dst + 3 * n + row);
    } else {
        std::memcpy(dst + row * 4, src, uint64_t{width} * 4);
    }
}

// Rows j0..j1-1 of the tile's chunk, or with `transposed` of its transpose's (the tile's columns
// j0..j1-1), each as wide as the tile's (its transpose's) rows: the tile's own rows, or made in
// a buffer of the thread, a strip at a time, that stays in the first-level cache.
const uint32_t* chunk_rows_of(const TileView& tile, bool transposed, uint32_t j0, uint32_t j1) {
    if (!transposed) return tile.values + uint64_t{j0} * tile.width;
    thread_local std::vector<uint32_t> rows;
    rows.resize(uint64_t{j1 - j0} * tile.height);
    base::transpose_columns(tile.values, tile.width, tile.height, j0, j1, rows.data());
    return rows.data();
}

// Lays the tile out as a full chunk (lay_row), a strip of rows at a time. Only edge tiles need
// the zeros that pad them to the chunk.
template <typename T>
void layout(const TileView& tile, bool transposed, uint32_t chunk_rows, uint32_t chunk_cols,
            bool shuffle, uint8_t* dst) {
    const uint64_t n = uint64_t{chunk_rows} * chunk_cols;
    const uint32_t width = transposed ? tile.height : tile.width;
    const uint32_t height = transposed ? tile.width : tile.height;
    if (width != chunk_cols || height != chunk_rows) std::memset(dst, 0, n * sizeof(T));
    for (uint32_t j0 = 0; j0 < height; j0 += base::kTransposeStrip) {
        const uint32_t j1 = std::min<uint32_t>(height, j0 + base::kTransposeStrip);
        const uint32_t* rows = chunk_rows_of(tile, transposed, j0, j1);
        for (uint32_t j = j0; j < j1; ++j)
            lay_row<T>(rows + uint64_t{j - j0} * width, width, j, chunk_cols, n, shuffle, dst);
    }
}

// The tile's chunk, or with `transposed` its transpose's, laid out as above.
void lay_out(const TileView& tile, bool transposed, uint32_t chunk_rows, uint32_t chunk_cols,
             unsigned value_bytes, bool shuffle, uint8_t* dst) {
    (value_bytes == 2 ? layout<uint16_t> : layout<uint32_t>)(tile, transposed, chunk_rows,
                                                             chunk_cols, shuffle, dst);
}

// The mirror's rows j0..j1-1 (the tile's columns), values first..last-1 of its chunk, split
// straight from the tile into their planes (base::transpose_columns_to_planes): the high bytes at
// `high`, the low ones into the stream, through a buffer of the thread where they straddle two
// stored blocks (one strip in eight of a 512^2 tile).
void lay_mirror_strip(const TileView& tile, uint32_t j0, uint32_t j1, uint64_t first, uint64_t last,
                      uint8_t* high, StoredLowStream& stream) {
    constexpr uint64_t kBlock = StoredLowStream::kStoredBlock;
    if (first / kBlock == (last - 1) / kBlock) {
        base::transpose_columns_to_planes(tile.values, tile.width, tile.height, j0, j1,
                                          stream.low_at(first), high);
        return;
    }
    thread_local std::vector<uint8_t> low;
    low.resize(last - first);
    base::transpose_columns_to_planes(tile.values, tile.width, tile.height, j0, j1, low.data(),
                                      high);
    stream.low_pieces(first, last, [&](uint64_t i, uint64_t m, uint8_t* dst) {
        std::memcpy(dst, low.data() + (i - first), m);
    });
}

// Nearly every chunk grundy compute writes (two-byte values, level 1, a low plane that would not
// shrink), encoded as it is laid out: a band of rows at a time, the low bytes split straight
// into their stored blocks in the stream and the high ones deflated while they are in the
// first-level cache (StoredLowStream). The general path lays both planes out in a buffer of
// their own (512 KiB for a 512^2 tile) and then copies the low one into the stream. The same
// bytes. False when the low plane's sample would shrink or the stream would not (the general
// path then decides again).
bool encode_stored_low(const TileView& tile, bool transposed, uint32_t rows, uint32_t cols,
                       ChunkBytes& out) {
    const uint64_t n = uint64_t{rows} * cols;
    const uint64_t at = plane_sample_begin(n), len = std::min<uint64_t>(n, kPlaneSample);
    const auto s0 = static_cast<uint32_t>(at / cols);
    const auto s1 = static_cast<uint32_t>((at + len + cols - 1) / cols);
    const uint64_t sampled = uint64_t{s1 - s0} * cols;
    thread_local std::vector<uint8_t> sample;
    sample.resize(2 * sampled);
    base::split_row_2(chunk_rows_of(tile, transposed, s0, s1), sampled, sample.data(),
                      sample.data() + sampled);
    if (deflate_shrinks(1, sample.data() + (at - uint64_t{s0} * cols), len)) return false;

    StoredLowStream stream(n, out);
    const auto band_rows = static_cast<uint32_t>(stream.band() / cols);
    for (uint32_t b0 = 0; b0 < rows; b0 += band_rows) {
        const uint32_t b1 = std::min(rows, b0 + band_rows);
        const uint64_t band_first = uint64_t{b0} * cols;
        for (uint32_t j0 = b0; j0 < b1; j0 += base::kTransposeStrip) {
            const uint32_t j1 = std::min<uint32_t>(b1, j0 + base::kTransposeStrip);
            const uint64_t first = uint64_t{j0} * cols, last = uint64_t{j1} * cols;
            if (transposed) {
                lay_mirror_strip(tile, j0, j1, first, last, stream.high() + (first - band_first),
                                 stream);
                continue;
            }
            const uint32_t* values = chunk_rows_of(tile, false, j0, j1);
            stream.low_pieces(first, last, [&](uint64_t i, uint64_t m, uint8_t* low) {
                base::split_row_2(values + (i - first), m, low, stream.high() + (i - band_first));
            });
        }
        stream.end_band(band_first, uint64_t{b1} * cols);
    }
    return stream.finish() < 2 * n;
}

// Values of two bytes from their shuffled byte planes, widened (vectorised).
GRUNDY_SIMD_CLONES void unshuffle_2(uint32_t* dst, const uint8_t* lo, const uint8_t* hi,
                                    uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = uint32_t{lo[i]} | uint32_t{hi[i]} << 8;
}

}  // namespace

int blosc_codec_code(const std::string& name) {
    // Blosc would also take "snappy" where built with it; Debian's is not.
    for (const char* known : {BLOSC_BLOSCLZ_COMPNAME, BLOSC_LZ4_COMPNAME, BLOSC_LZ4HC_COMPNAME,
                              BLOSC_ZLIB_COMPNAME, BLOSC_ZSTD_COMPNAME})
        if (name == known) return blosc_compname_to_compcode(known);  // -1 if not built in
    return -1;
}

std::string blosc_codecs() {
    return blosc_list_compressors();
}

// encode_stored_low's chunks: the tile fills the chunk, and the bands of the high plane's
// deflate blocks are whole rows.
bool encodes_by_bands(const TileView& tile, bool transposed, uint32_t chunk_rows,
                      uint32_t chunk_cols, unsigned value_bytes, const Compression& compression) {
    const uint32_t width = transposed ? tile.height : tile.width;
    const uint32_t height = transposed ? tile.width : tile.height;
    const uint64_t n = uint64_t{chunk_rows} * chunk_cols;
    return compression.kind == Compression::Kind::Deflate && compression.level == 1 &&
           value_bytes == 2 && width == chunk_cols && height == chunk_rows &&
           (n <= kRleBlockBytes || kRleBlockBytes % chunk_cols == 0);
}

namespace {

// The chunk's bytes through the compression's filters (encode_chunk without the checksum).
void encode_filtered(const TileView& tile, bool transposed, uint32_t chunk_rows,
                     uint32_t chunk_cols, unsigned value_bytes, const Compression& compression,
                     EncodedChunk& out) {
    const uint64_t raw = uint64_t{chunk_rows} * chunk_cols * value_bytes;
    const bool deflate = compression.kind == Compression::Kind::Deflate;
    if (encodes_by_bands(tile, transposed, chunk_rows, chunk_cols, value_bytes, compression) &&
        encode_stored_low(tile, transposed, chunk_rows, chunk_cols, out.bytes)) {
        out.filter_mask = 0;
        return;
    }
    thread_local std::vector<uint8_t> scratch;
    scratch.resize(raw);
    lay_out(tile, transposed, chunk_rows, chunk_cols, value_bytes, deflate, scratch.data());

    if (compression.kind == Compression::Kind::Blosc) {
        // Blosc shuffles the bytes itself (typesize = value_bytes), so the values go in plain
        // (the layout above did not shuffle). The thread-safe entry point with one internal
        // thread: the engine's workers are the parallelism.
        out.bytes.resize(raw + BLOSC_MAX_OVERHEAD);
        const int n =
            blosc_compress_ctx(compression.level, BLOSC_SHUFFLE, value_bytes, raw, scratch.data(),
                               out.bytes.data(), out.bytes.size(), compression.codec.c_str(), 0, 1);
        if (n > 0 && static_cast<uint64_t>(n) < raw) {
            out.bytes.resize(static_cast<size_t>(n));
            out.filter_mask = 0;
            return;
        }
        out.bytes.assign(scratch.begin(), scratch.end());  // stored, the filter marked skipped
        out.filter_mask = 0x1;
        return;
    }
    if (deflate) {
        const size_t n = zlib_stream_of_planes(scratch.data(), raw / value_bytes, value_bytes,
                                               compression.level, out.bytes);
        if (n < raw) {
            out.bytes.resize(n);
            out.filter_mask = 0;
            return;
        }
        // Did not shrink: store the values unfiltered, marking shuffle and deflate as skipped.
        lay_out(tile, transposed, chunk_rows, chunk_cols, value_bytes, false, scratch.data());
        out.bytes.assign(scratch.begin(), scratch.end());
        out.filter_mask = 0x3;
        return;
    }
    out.bytes.reserve(raw + kFletcher32Bytes);  // room for the checksum: no reallocation
    out.bytes.assign(scratch.begin(), scratch.end());
    out.filter_mask = 0;
}

}  // namespace

// The checksum is the fletcher32 filter's, last in the pipeline: over the bytes as stored,
// compressed or not, never skipped (its bit of the filter mask stays clear).
void encode_chunk(const TileView& tile, bool transposed, uint32_t chunk_rows, uint32_t chunk_cols,
                  unsigned value_bytes, const Compression& compression, bool checksum,
                  EncodedChunk& out) {
    encode_filtered(tile, transposed, chunk_rows, chunk_cols, value_bytes, compression, out);
    if (!checksum) return;
    const uint32_t sum = fletcher32(out.bytes.data(), out.bytes.size());
    for (int shift = 0; shift < 32; shift += 8)
        out.bytes.push_back(static_cast<uint8_t>(sum >> shift));
}

bool chunk_format_of(hid_t dcpl, hid_t type, ChunkFormat& format) {
    ChunkFormat f;
    hsize_t chunk[2] = {0, 0};
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 2, chunk) != 2) return false;
    f.rows = chunk[0];
    f.cols = chunk[1];
    const size_t size = H5Tget_size(type);
    if ((size != 2 && size != 4) || H5Tget_order(type) != H5T_ORDER_LE) return false;
    int n = H5Pget_nfilters(dcpl);
    if (n < 0 || n > 3) return false;
    auto filter = [&](int i) {
        unsigned flags = 0, values[8];
        size_t count = 8;
        return H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &count, values, 0, nullptr,
                              nullptr);
    };
    // The checksum, where there is one, is the last filter: over the bytes as stored.
    if (n > 0 && filter(n - 1) == H5Z_FILTER_FLETCHER32) f.fletcher32 = --n;
    if (n > 2) return false;
    for (int i = 0; i < n; ++i) {
        const H5Z_filter_t id = filter(i);
        if (id == H5Z_FILTER_SHUFFLE && f.deflate < 0 && f.shuffle < 0)
            f.shuffle = i;
        else if (id == H5Z_FILTER_DEFLATE && f.deflate < 0)
            f.deflate = i;
        else if (id == kBloscFilter && n == 1)
            f.blosc = i;
        else
            return false;
    }
    f.value_size = static_cast<unsigned>(size);
    format = f;
    return true;
}

bool decode_chunk(const ChunkFormat& f, const uint8_t* data, size_t size, uint32_t mask,
                  uint64_t i0, uint64_t j0, uint64_t width, uint64_t height, uint32_t* out,
                  uint64_t stride) {
    const uint64_t n = f.rows * f.cols, raw_size = n * f.value_size;
    // Reused across calls: fresh buffers cost more in page faults than the decoding.
    thread_local std::vector<uint8_t> inflated;
    if (inflated.size() < raw_size) inflated.resize(raw_size);
    if (f.fletcher32 >= 0 && !(mask >> f.fletcher32 & 1)) {
        // Checked first: no damaged byte reaches a decompressor, which might decode it into
        // other values without noticing (LZ4 has no checksum of its own).
        if (!fletcher32_matches(data, size)) return false;
        size -= kFletcher32Bytes;
    }
    if (f.blosc >= 0 && !(mask >> f.blosc & 1)) {
        // Blosc trusts the sizes in its 16-byte header, so they are checked against the chunk
        // first (a damaged file must not make it read past the buffer). It undoes its byte
        // shuffle itself.
        size_t nbytes = 0, cbytes = 0, block = 0;
        if (size >= BLOSC_MIN_HEADER_LENGTH) blosc_cbuffer_sizes(data, &nbytes, &cbytes, &block);
        const int got = nbytes == raw_size && cbytes == size
                            ? blosc_decompress_ctx(data, inflated.data(), raw_size, 1)
                            : -1;
        if (got < 0 || static_cast<size_t>(got) != raw_size) return false;
        data = inflated.data();
        size = raw_size;
    }
    if (f.deflate >= 0 && !(mask >> f.deflate & 1)) {
        size_t actual = 0;
        if (libdeflate_zlib_decompress(thread_decompressor(), data, size, inflated.data(), raw_size,
                                       &actual) != LIBDEFLATE_SUCCESS ||
            actual != raw_size)
            return false;
        data = inflated.data();
        size = actual;
    }
    if (size != raw_size || i0 + width > f.cols || j0 + height > f.rows) return false;
    const bool shuffled = f.shuffle >= 0 && !(mask >> f.shuffle & 1);
    for (uint64_t y = 0; y < height; ++y) {
        uint32_t* dst = out + y * stride;
        const uint64_t base = (j0 + y) * f.cols + i0;
        // Byte k of value i is at k * n + i: what H5Z's shuffle filter writes.
        if (shuffled && f.value_size == 2) {
            unshuffle_2(dst, data + base, data + n + base, width);
        } else if (shuffled) {
            for (uint64_t i = 0; i < width; ++i) {
                uint32_t v = 0;
                for (unsigned b = 0; b < f.value_size; ++b)
                    v |= uint32_t{data[b * n + base + i]} << (8 * b);
                dst[i] = v;
            }
        } else if (f.value_size == 2) {
            for (uint64_t i = 0; i < width; ++i) {
                uint16_t v;
                std::memcpy(&v, data + 2 * (base + i), 2);
                dst[i] = v;
            }
        } else {
            std::memcpy(dst, data + 4 * base, 4 * width);
        }
    }
    return true;
}

}  // namespace grundy::io
