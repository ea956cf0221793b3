#include "io/chunk_codec.hpp"

#include <libdeflate.h>

#include <cstring>
#include <memory>
#include <new>

namespace grundy::io {
namespace {

struct CompressorDeleter {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

// One compressor per thread and level: allocating one costs more than compressing a chunk.
libdeflate_compressor* compressor_for(int level) {
    thread_local std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor;
    thread_local int compressor_level = -1;
    if (!compressor || compressor_level != level) {
        compressor.reset(libdeflate_alloc_compressor(level));
        if (!compressor) throw std::bad_alloc();
        compressor_level = level;
    }
    return compressor.get();
}

// Lays the tile out as a full chunk of little-endian values, byte-shuffled when `shuffle`:
// byte k of every value goes to plane k, which is what H5Z's shuffle filter writes.
template <typename T>
void layout(const TileView& tile, uint32_t chunk_rows, uint32_t chunk_cols, bool shuffle,
            uint8_t* dst) {
    const uint64_t n = uint64_t{chunk_rows} * chunk_cols;
    std::memset(dst, 0, n * sizeof(T));
    for (uint32_t j = 0; j < tile.height; ++j) {
        const uint32_t* src = tile.values + uint64_t{j} * tile.width;
        const uint64_t row = uint64_t{j} * chunk_cols;
        if (!shuffle) {
            T* out = reinterpret_cast<T*>(dst) + row;
            for (uint32_t i = 0; i < tile.width; ++i) out[i] = static_cast<T>(src[i]);
            continue;
        }
        for (uint32_t i = 0; i < tile.width; ++i) {
            const uint32_t v = src[i];
            for (unsigned k = 0; k < sizeof(T); ++k)
                dst[k * n + row + i] = static_cast<uint8_t>(v >> (8 * k));
        }
    }
}

}  // namespace

void encode_chunk(const TileView& tile, uint32_t chunk_rows, uint32_t chunk_cols,
                  unsigned value_bytes, const Compression& compression, EncodedChunk& out) {
    const uint64_t raw = uint64_t{chunk_rows} * chunk_cols * value_bytes;
    const bool deflate = compression.kind == Compression::Kind::Deflate;
    thread_local std::vector<uint8_t> scratch;
    scratch.resize(raw);
    if (value_bytes == 2)
        layout<uint16_t>(tile, chunk_rows, chunk_cols, deflate, scratch.data());
    else
        layout<uint32_t>(tile, chunk_rows, chunk_cols, deflate, scratch.data());

    if (deflate) {
        libdeflate_compressor* c = compressor_for(compression.level);
        out.bytes.resize(libdeflate_zlib_compress_bound(c, raw));
        const size_t n = libdeflate_zlib_compress(c, scratch.data(), raw, out.bytes.data(),
                                                  out.bytes.size());
        if (n != 0 && n < raw) {
            out.bytes.resize(n);
            out.filter_mask = 0;
            return;
        }
        // Did not shrink: store the values unfiltered, marking shuffle and deflate as skipped.
        if (value_bytes == 2)
            layout<uint16_t>(tile, chunk_rows, chunk_cols, false, scratch.data());
        else
            layout<uint32_t>(tile, chunk_rows, chunk_cols, false, scratch.data());
        out.bytes.assign(scratch.begin(), scratch.end());
        out.filter_mask = 0x3;
        return;
    }
    out.bytes.assign(scratch.begin(), scratch.end());
    out.filter_mask = 0;
}

}  // namespace grundy::io
