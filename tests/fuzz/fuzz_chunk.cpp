// Fuzzes the chunk decoder of stored tables (src/io/chunk_codec.cpp: decode_chunk), which
// checks every chunk's Fletcher-32 checksum (where the dataset has one), reads it through Blosc
// or libdeflate, then undoes the byte shuffle. The first two bytes of the input choose the
// dataset's format (filters, checksum, value size, chunk shape, the chunk's filter mask and the
// rectangle copied out); the rest is the stored chunk, as a damaged file would give it.
#include <algorithm>
#include <vector>

#include "io/chunk_codec.hpp"

namespace {

using namespace grundy;

io::ChunkFormat format_of(uint8_t pick) {
    io::ChunkFormat f;
    switch (pick & 3) {
        case 0:  // shuffle + deflate: grundy compute's default
            f.shuffle = 0;
            f.deflate = 1;
            break;
        case 1:  // deflate alone
            f.deflate = 0;
            break;
        case 2:  // Blosc (its own shuffle)
            f.blosc = 0;
            break;
        default:  // no filter
            break;
    }
    f.value_size = pick & 4 ? 4 : 2;
    f.rows = pick & 8 ? 16 : 8;
    f.cols = pick & 16 ? 32 : 8;
    // The fletcher32 filter last, after the others (what grundy compute writes).
    if (pick & 32) f.fletcher32 = std::max({f.shuffle, f.deflate, f.blosc}) + 1;
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    const io::ChunkFormat f = format_of(data[0]);
    const uint32_t mask = data[0] >> 6;  // the first two filters skipped or not
    // A rectangle inside the chunk, or (about one time in eight) one reaching past it, which
    // decode_chunk must refuse.
    const uint64_t i0 = data[1] & 7, j0 = (data[1] >> 3) & 7;
    const uint64_t width = data[1] >> 6 == 3 ? f.cols : f.cols - i0;
    const uint64_t height = f.rows - j0;
    std::vector<uint32_t> out(f.rows * f.cols);
    io::decode_chunk(f, data + 2, size - 2, mask, i0, j0, width, height, out.data(), f.cols);
    return 0;
}
