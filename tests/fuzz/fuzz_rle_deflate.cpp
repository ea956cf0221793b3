// Fuzzes the run-length deflate encoder (src/io/rle_deflate.cpp), which writes the high byte
// planes of every stored chunk: any input must give a deflate stream that zlib and libdeflate
// both inflate back to exactly the input, ending where the stream ends. The first input byte
// repeats the rest in runs (byte planes of tables are runs), so long streams of several blocks
// are reached with short inputs. Both parsers must find the same tokens.
#include <libdeflate.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "io/rle_deflate.hpp"

namespace {

void fail(const char* why) {
    std::fprintf(stderr, "rle_deflate: %s\n", why);
    std::abort();
}

std::vector<uint8_t> zlib_inflate(const std::vector<uint8_t>& s, size_t size) {
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) fail("inflateInit2");
    std::vector<uint8_t> out(size + 1);
    z.next_in = const_cast<Bytef*>(s.data());
    z.avail_in = static_cast<uInt>(s.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.avail_in != 0)
        fail("zlib does not inflate the stream to its end");
    out.resize(z.total_out);
    inflateEnd(&z);
    return out;
}

std::vector<uint8_t> libdeflate_inflate(const std::vector<uint8_t>& s, size_t size) {
    static libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::vector<uint8_t> out(size + 1);
    size_t in_used = 0, got = 0;
    if (libdeflate_deflate_decompress_ex(d, s.data(), s.size(), out.data(), out.size(), &in_used,
                                         &got) != LIBDEFLATE_SUCCESS ||
        in_used != s.size())
        fail("libdeflate does not inflate the stream to its end");
    out.resize(got);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const unsigned repeat = 1 + data[0] % 64;
    std::vector<uint8_t> input;
    input.reserve((size - 1) * repeat);
    for (size_t i = 1; i < size; ++i) input.insert(input.end(), repeat, data[i]);
    std::vector<uint8_t> stream;
    grundy::io::rle_deflate(input.data(), input.size(), stream);
    if (zlib_inflate(stream, input.size()) != input) fail("zlib inflates other bytes");
    if (libdeflate_inflate(stream, input.size()) != input) fail("libdeflate inflates other bytes");
    // The CPU's parser (AVX-512 VBMI2 where there is one) and the portable one agree, from the
    // start and from inside the data.
    using grundy::io::RleParser;
    for (const size_t start : {size_t{0}, input.size() / 3}) {
        if (grundy::io::rle_parse(input.data(), start, input.size(), RleParser::Best) !=
            grundy::io::rle_parse(input.data(), start, input.size(), RleParser::Portable))
            fail("the parsers disagree");
    }
    return 0;
}
