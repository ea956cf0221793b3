#include "io/zlib_planes.hpp"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
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

// The most bytes deflate_final writes for n bytes.
size_t deflate_bound(int level, size_t n) {
    return level == 1 ? rle_deflate_bound(n)
                      : libdeflate_deflate_compress_bound(compressor_for(level), n);
}

// Writes n > 0 bytes at `out` (room for deflate_bound) as the deflate blocks that end a stream;
// returns past them. Level 1 is grundy's run-length encoder (io/rle_deflate.hpp), the others
// libdeflate's. Level 1 used to be libdeflate's too: the run-length encoder makes the high byte
// planes a little smaller at more than twice the speed. It cannot shrink the low bytes of some
// chunks where libdeflate finds repeats at a distance, so the file grows slightly; sending those
// chunks to libdeflate instead, as found on a sample, cost more time than it saved bytes.
uint8_t* deflate_final(int level, const uint8_t* p, size_t n, uint8_t* out) {
    if (level == 1) return rle_deflate_into(p, n, out);
    // Never 0 (did not fit): the room is libdeflate's own bound.
    libdeflate_compressor* c = compressor_for(level);
    return out + libdeflate_deflate_compress(c, p, n, out, deflate_bound(level, n));
}

uint8_t* zlib_header(uint8_t* out) {
    out[0] = 0x78;  // deflate, 32 KiB window, (0x78 << 8 | 0x01) % 31 == 0
    out[1] = 0x01;
    return out + 2;
}

uint8_t* adler_trailer(uint32_t adler, uint8_t* out) {
    for (int k = 0; k < 4; ++k) out[k] = static_cast<uint8_t>(adler >> (24 - 8 * k));
    return out + 4;
}

// The header of a stored block of len <= 65535 bytes, not final: BFINAL = 0, BTYPE = 00, padded
// to the byte, then the length and its complement.
void stored_header(size_t len, uint8_t* out) {
    out[0] = 0x00;
    out[1] = static_cast<uint8_t>(len);
    out[2] = static_cast<uint8_t>(len >> 8);
    out[3] = static_cast<uint8_t>(~len);
    out[4] = static_cast<uint8_t>(~len >> 8);
}

// Bytes of n bytes in stored blocks, headers included.
uint64_t stored_size(uint64_t n) {
    constexpr uint64_t kBlock = StoredLowStream::kStoredBlock;
    return n + (n + kBlock - 1) / kBlock * 5;
}

// Writes n bytes as stored blocks (not final), which a decoder copies as they are.
uint8_t* append_stored(const uint8_t* p, size_t n, uint8_t* out) {
    while (n > 0) {
        const size_t len = std::min<size_t>(n, StoredLowStream::kStoredBlock);
        stored_header(len, out);
        std::copy(p, p + len, out + 5);
        out += 5 + len;
        p += len;
        n -= len;
    }
    return out;
}

// The stream's room: the header, the stored planes, the deflated ones and the trailer.
uint8_t* room(ChunkBytes& out, uint64_t stored, uint64_t deflated, int level) {
    out.resize(2 + stored_size(stored) + deflate_bound(level, deflated) + 4);
    return out.data();
}

}  // namespace

// In these tables the low bytes of the values look random and deflate spends most of its time
// failing to shrink them. Trying 4 KiB costs a sixty-fourth of compressing a 256 KiB plane.
bool deflate_shrinks(int level, const uint8_t* sample, size_t n) {
    constexpr double kMinGain = 0.03;
    thread_local ChunkBytes scratch;
    if (scratch.size() < deflate_bound(level, n)) scratch.resize(deflate_bound(level, n));
    const size_t size =
        static_cast<size_t>(deflate_final(level, sample, n, scratch.data()) - scratch.data());
    return static_cast<double>(size) < (1.0 - kMinGain) * static_cast<double>(n);
}

// The shuffled chunk is a sequence of byte planes: in these tables the low bytes of the values
// look random (entropy near 8 bits) and the high bytes are smooth. Deflating the random planes
// costs most of the compression time and gains nothing, so the leading planes that would not
// shrink go into stored blocks and only the rest is compressed: one zlib stream, decoded by
// any inflate (HDF5's deflate filter included), at about half the cost.
size_t zlib_stream_of_planes(const uint8_t* data, size_t values, unsigned planes, int level,
                             ChunkBytes& out) {
    // Leading planes to store. The last plane is never sampled: if every plane before it is
    // random it is compressed anyway, and a chunk that does not shrink at all is stored whole
    // by the caller.
    const size_t sample = std::min(values, kPlaneSample), at = plane_sample_begin(values);
    unsigned stored = 0;
    while (stored + 1 < planes && !deflate_shrinks(level, data + stored * values + at, sample))
        ++stored;
    const size_t total = values * planes, head = values * stored, tail = total - head;
    uint8_t* p = zlib_header(room(out, head, tail, level));
    p = append_stored(data, head, p);
    p = deflate_final(level, data + head, tail, p);  // tail > 0: the last plane is not stored
    p = adler_trailer(libdeflate_adler32(1, data, total), p);
    out.resize(static_cast<size_t>(p - out.data()));
    return out.size();
}

StoredLowStream::StoredLowStream(uint64_t values, ChunkBytes& out)
    : out_(out),
      values_(values),
      band_(std::min<uint64_t>(values, kRleBlockBytes)),
      high_(nullptr),
      blocks_(room(out, values, values, 1) + 2 + stored_size(values)) {
    zlib_header(out_.data());
    for (uint64_t i = 0; i < values; i += kStoredBlock)
        stored_header(std::min(kStoredBlock, values - i), out_.data() + stored_at(i) - 5);
    // A band's high bytes follow the byte before them, which a run at its start repeats.
    thread_local std::vector<uint8_t> high;
    high.resize(64 + band_);
    high_ = high.data() + 64;
}

void StoredLowStream::end_band(uint64_t begin, uint64_t end) {
    low_pieces(begin, end, [&](uint64_t, uint64_t len, const uint8_t* low) {
        adler_low_ = libdeflate_adler32(adler_low_, low, len);
    });
    adler_high_ = libdeflate_adler32(adler_high_, high_, end - begin);
    blocks_.add(high_, end - begin, begin == 0, end == values_);
    high_[-1] = high_[end - begin - 1];
}

size_t StoredLowStream::finish() {
    const uint32_t adler = static_cast<uint32_t>(
        adler32_combine(adler_low_, adler_high_, static_cast<z_off_t>(values_)));
    uint8_t* end = adler_trailer(adler, blocks_.finish());
    out_.resize(static_cast<size_t>(end - out_.data()));
    return out_.size();
}

}  // namespace grundy::io
