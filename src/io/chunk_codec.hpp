// The chunk codec: a tile turned into the bytes HDF5 stores for its chunk. Byte-shuffled and
// zlib-compressed exactly as the shuffle and deflate filters would do, so stock readers decode
// it; chunks that do not shrink are stored raw with both filters marked as skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grundy/hdf5_writer.hpp"
#include "grundy/tile_sink.hpp"

namespace grundy::io {

struct EncodedChunk {
    std::vector<uint8_t> bytes;
    uint32_t filter_mask = 0;  // H5Dwrite_chunk's mask: bit i set = filter i not applied
};

// A zlib stream of `planes` byte planes of `values` bytes each (a shuffled chunk), with the
// leading planes that would not shrink stored rather than compressed. Returns its size.
size_t zlib_stream_of_planes(const uint8_t* data, size_t values, unsigned planes, int level,
                             std::vector<uint8_t>& out);

// Blosc's code for a compressor name (blosclz, lz4, lz4hc, zlib, zstd), or -1 when this
// Blosc does not have it; and the names it has, for messages.
int blosc_codec_code(const std::string& name);
std::string blosc_codecs();

// Encodes `tile` as a chunk of chunk_rows x chunk_cols values of `value_bytes` bytes each
// (edge tiles are padded with zeros to the full chunk).
void encode_chunk(const TileView& tile, uint32_t chunk_rows, uint32_t chunk_cols,
                  unsigned value_bytes, const Compression& compression, EncodedChunk& out);

}  // namespace grundy::io
