// The chunk codec: a tile turned into the bytes HDF5 stores for its chunk. Byte-shuffled and
// zlib-compressed exactly as the shuffle and deflate filters would do, so stock readers decode
// it; chunks that do not shrink are stored raw with both filters marked as skipped. Then, in
// tables written since chunks carry one, the Fletcher-32 checksum that HDF5's fletcher32 filter
// appends (io/fletcher32.hpp), which every reader verifies.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grundy/hdf5_writer.hpp"
#include "grundy/tile_sink.hpp"
#include "io/zlib_planes.hpp"

namespace grundy {

// The level of --compression blosc without one, and Blosc's HDF5 filter.
inline constexpr int kDefaultBloscLevel = 5;
inline constexpr unsigned kBloscFilter = 32001;  // registered with The HDF Group

}  // namespace grundy

namespace grundy::io {

struct EncodedChunk {
    ChunkBytes bytes;
    uint32_t filter_mask = 0;  // H5Dwrite_chunk's mask: bit i set = filter i not applied
};

// Blosc's code for a compressor name (blosclz, lz4, lz4hc, zlib, zstd), or -1 when this
// Blosc does not have it; and the names it has, for messages.
int blosc_codec_code(const std::string& name);
std::string blosc_codecs();

// Encodes `tile`, or with `transposed` its transpose (TileSink::consume_transpose), as a chunk
// of chunk_rows x chunk_cols values of `value_bytes` bytes each (edge tiles are padded with
// zeros to the full chunk), its Fletcher-32 checksum appended when `checksum` (the dataset's
// pipeline ends with the fletcher32 filter).
void encode_chunk(const TileView& tile, bool transposed, uint32_t chunk_rows, uint32_t chunk_cols,
                  unsigned value_bytes, const Compression& compression, bool checksum,
                  EncodedChunk& out);

// Whether encode_chunk lays this chunk out a band of rows at a time, its low byte plane split
// straight into the stream (two-byte values, deflate at level 1, a tile that fills the chunk, rows
// that fill the high plane's 64 KiB deflate blocks), unless a sample of its low plane would
// shrink. The same bytes either way; for tests, which check both ways.
bool encodes_by_bands(const TileView& tile, bool transposed, uint32_t chunk_rows,
                      uint32_t chunk_cols, unsigned value_bytes, const Compression& compression);

// How a dataset's chunks are stored, when grundy's own decoder can read them: chunks filtered
// by nothing, deflate, shuffle + deflate, or Blosc alone (what grundy compute writes), each
// with or without the fletcher32 filter last. Each filter's position in the pipeline, -1 when
// absent (bit i of a chunk's filter mask set means filter i was skipped for that chunk).
struct ChunkFormat {
    uint64_t rows = 0, cols = 0;  // chunk shape
    unsigned value_size = 0;      // bytes per value, little-endian
    int shuffle = -1, deflate = -1, blosc = -1, fletcher32 = -1;
};

// The format of a chunked dataset's chunks, or false when its type or filters are not ones
// decode_chunk knows (such a dataset is read through H5Dread).
bool chunk_format_of(hid_t dcpl, hid_t type, ChunkFormat& format);

// Decodes one stored chunk (its bytes and filter mask as H5Dread_chunk gives them) and copies
// its rows j0..j0+height-1, columns i0..i0+width-1 into `out` (row-major, `stride` values a
// row). Thread-safe. Returns false when the chunk is damaged: its checksum does not match, or
// it does not decode to a whole chunk.
bool decode_chunk(const ChunkFormat& format, const uint8_t* data, size_t size, uint32_t mask,
                  uint64_t i0, uint64_t j0, uint64_t width, uint64_t height, uint32_t* out,
                  uint64_t stride);

}  // namespace grundy::io
