// A shuffled chunk's byte planes as one zlib stream (RFC 1950), which HDF5's deflate filter and
// any inflate decode: the leading planes that would not shrink in stored blocks, the rest
// deflated. Made whole from the planes (zlib_stream_of_planes), or, for two-byte values whose
// low plane is stored, band by band as the chunk is laid out (StoredLowStream), so that neither
// plane is ever whole outside the stream.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "io/rle_deflate.hpp"

namespace grundy::io {

// A vector whose resize leaves new bytes as they are: a chunk's buffer is grown to a bound,
// written and cut to what was written, and zeroing the bound first would cost as much as the
// writing.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using ChunkBytes = std::vector<uint8_t, UninitialisedAllocator<uint8_t>>;

// Whether deflate at `level` shrinks these `n` bytes (a sample of a plane) by 3% or more.
bool deflate_shrinks(int level, const uint8_t* sample, size_t n);

// The bytes of a plane that deflate_shrinks judges: the 4 KiB in its middle, or all of it.
inline constexpr size_t kPlaneSample = 4096;
inline size_t plane_sample_begin(size_t values) {
    return values > kPlaneSample ? (values - kPlaneSample) / 2 : 0;
}

// A zlib stream of `planes` byte planes of `values` bytes each (a shuffled chunk), with the
// leading planes that would not shrink stored rather than compressed. `out` becomes the stream;
// returns its size.
size_t zlib_stream_of_planes(const uint8_t* data, size_t values, unsigned planes, int level,
                             ChunkBytes& out);

// The stream zlib_stream_of_planes makes of two planes of `values` bytes when the first is
// stored, at level 1 (rle_deflate), made a band of values at a time: for each band in order,
// its low bytes written into the stream where low_pieces says and its high bytes into high(),
// then end_band. The high plane is deflated band by band, so a band is kRleBlockBytes values
// (all of them when fewer). One stream at a time on a thread: high() is the thread's.
class StoredLowStream {
  public:
    StoredLowStream(uint64_t values, ChunkBytes& out);
    uint64_t band() const { return band_; }
    // Where the current band's high bytes go, band() of them (fewer in the last band).
    uint8_t* high() { return high_; }
    // The low bytes [begin, end) as runs that lie whole in one stored block: f(i, len, dst), the
    // bytes i..i+len-1 going to dst.
    template <typename F>
    void low_pieces(uint64_t begin, uint64_t end, F&& f) {
        for (uint64_t i = begin; i < end;) {
            const uint64_t len = std::min(end - i, kStoredBlock - i % kStoredBlock);
            f(i, len, low_at(i));
            i += len;
        }
    }
    // Where low byte i goes in the stream: the bytes from i to the end of its stored block lie
    // there one after another.
    uint8_t* low_at(uint64_t i) { return out_.data() + stored_at(i); }
    // The band [begin, end) is written: its bytes are checksummed and its high bytes deflated.
    void end_band(uint64_t begin, uint64_t end);
    // Ends the stream once every band is in; `out` becomes the stream and its size is returned.
    size_t finish();

    static constexpr uint64_t kStoredBlock = 65535;  // deflate's largest stored block
    // Where low byte i lies: after the zlib header and the headers of the stored blocks to it.
    static uint64_t stored_at(uint64_t i) { return 2 + i + (i / kStoredBlock + 1) * 5; }

  private:
    ChunkBytes& out_;
    uint64_t values_, band_;
    uint8_t* high_;
    RleDeflateBlocks blocks_;
    uint32_t adler_low_ = 1, adler_high_ = 1;
};

}  // namespace grundy::io
