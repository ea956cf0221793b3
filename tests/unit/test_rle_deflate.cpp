// grundy's run-length deflate encoder, decoded by zlib's inflate and by libdeflate (two
// independent decoders), on inputs chosen to reach every part of the format it writes.
#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/memory_table.hpp"
#include "io/rle_deflate.hpp"

namespace grundy::io {
namespace {

// The raw deflate stream `s` inflated by zlib; fails the test unless it ends exactly where the
// stream does and gives `size` bytes.
std::vector<uint8_t> zlib_inflate(const std::vector<uint8_t>& s, size_t size) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, -15), Z_OK);
    std::vector<uint8_t> out(size + 1);
    z.next_in = const_cast<Bytef*>(s.data());
    z.avail_in = static_cast<uInt>(s.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    EXPECT_EQ(z.avail_in, 0u) << "bytes after the final block";
    out.resize(z.total_out);
    inflateEnd(&z);
    return out;
}

std::vector<uint8_t> libdeflate_inflate(const std::vector<uint8_t>& s, size_t size) {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::vector<uint8_t> out(size);
    size_t in_used = 0, got = 0;
    EXPECT_EQ(
        libdeflate_deflate_decompress_ex(d, s.data(), s.size(), out.data(), size, &in_used, &got),
        LIBDEFLATE_SUCCESS);
    EXPECT_EQ(in_used, s.size());
    out.resize(got);
    libdeflate_free_decompressor(d);
    return out;
}

void expect_round_trip(const std::vector<uint8_t>& data, const std::string& what) {
    std::vector<uint8_t> s = {0xAB};  // appended to: what is there stays
    rle_deflate(data.data(), data.size(), s);
    ASSERT_EQ(s[0], 0xAB) << what;
    s.erase(s.begin());
    EXPECT_EQ(zlib_inflate(s, data.size()), data) << what << ", zlib";
    EXPECT_EQ(libdeflate_inflate(s, data.size()), data) << what << ", libdeflate";
}

TEST(RleDeflate, RandomBytesOfEveryBlockBoundary) {
    std::mt19937 rng(3);
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{17}, size_t{4096},
          kRleBlockBytes - 1, kRleBlockBytes, kRleBlockBytes + 1, 3 * kRleBlockBytes + 5}) {
        std::vector<uint8_t> data(n);
        for (auto& b : data) b = static_cast<uint8_t>(rng());
        expect_round_trip(data, "random, " + std::to_string(n));
    }
}

// The greedy parse, one byte at a time: a run of the byte before starts wherever that byte
// comes three more times, and takes every repeat of it, up to 258.
std::vector<uint16_t> slow_parse(const std::vector<uint8_t>& d, size_t start, size_t end) {
    std::vector<uint16_t> tokens;
    size_t i = start;
    if (start == 0 && end > 0) tokens.push_back(d[i++]);
    while (i < end) {
        if (i + 2 < end && d[i - 1] == d[i] && d[i] == d[i + 1] && d[i] == d[i + 2]) {
            size_t len = 0;
            while (i + len < end && len < 258 && d[i + len] == d[i - 1]) ++len;
            tokens.push_back(static_cast<uint16_t>(256 + len));
            i += len;
        } else {
            tokens.push_back(d[i++]);
        }
    }
    return tokens;
}

// Runs of 1 to 300 bytes at every offset from the 64-byte windows the encoder looks at, among
// random bytes, among a few values (as in the high planes) and of one value throughout (runs cut
// at 258 bytes, anywhere in a window), from the start of the data and from inside it, with ends
// at every distance from the last window. Both parsers: the portable one, and the AVX-512 VBMI2
// one where the CPU has it (else Best is the portable one again).
void expect_greedy_parse(RleParser parser) {
    std::mt19937 rng(11);
    for (const int values : {256, 3, 1}) {
        for (int round = 0; round < 40; ++round) {
            std::vector<uint8_t> d;
            while (d.size() < 5000) {
                if (rng() % 3 == 0)
                    d.insert(d.end(), 1 + rng() % (rng() % 4 == 0 ? 300 : 12),
                             static_cast<uint8_t>(rng() % values));
                else
                    d.push_back(static_cast<uint8_t>(rng() % values));
            }
            for (const size_t start : {size_t{0}, size_t{1 + rng() % 200}}) {
                const size_t end = start + rng() % (d.size() - start);
                ASSERT_EQ(rle_parse(d.data(), start, end, parser), slow_parse(d, start, end))
                    << values << " values, round " << round << ", [" << start << ", " << end << ")";
            }
        }
    }
}

TEST(RleDeflate, ParseIsTheGreedyOne) {
    expect_greedy_parse(RleParser::Portable);
    expect_greedy_parse(RleParser::Best);
    if (!rle_parser_has_vbmi2()) std::printf("(no AVX-512 VBMI2 here: one parser tested)\n");
}

TEST(RleDeflate, RunsOfEveryLength) {
    // Runs of 1 to 300 bytes, each value different from the one before: every length code and
    // extra-bits value, runs longer than 258 split in two, runs crossing block boundaries.
    std::vector<uint8_t> data;
    for (int rep = 0; rep < 6; ++rep)
        for (int len = 1; len <= 300; ++len)
            data.insert(data.end(), len, static_cast<uint8_t>(len + rep));
    expect_round_trip(data, "runs");
    std::vector<uint8_t> s;
    rle_deflate(data.data(), data.size(), s);
    EXPECT_LT(s.size(), data.size() / 20) << "runs are repeats, not literals";
}

TEST(RleDeflate, OneValueThroughout) {
    // One literal and runs only: a literal code of one used value (plus end of block), and a
    // code-length code with very few symbols.
    for (size_t n : {size_t{5}, size_t{259}, size_t{200000}}) {
        std::vector<uint8_t> data(n, 7);
        expect_round_trip(data, "constant, " + std::to_string(n));
    }
}

// Value k (k < values) `first`, `second`, ... times, each count the sum of the two before,
// most frequent first into every even place, then every odd one (none is more than half of
// all, so no byte is the same as the one before), then `run` copies of the last byte.
std::vector<uint8_t> fibonacci_bytes(int values, uint32_t first, uint32_t second, size_t run) {
    std::vector<uint8_t> by_count;
    uint32_t a = first, b = second;
    for (int k = 0; k < values; ++k) {
        by_count.insert(by_count.begin(), a, static_cast<uint8_t>(k * 11));
        a = std::exchange(b, a + b);
    }
    std::vector<uint8_t> data(by_count.size());
    for (size_t i = 0, place = 0; i < data.size(); ++i, place += 2) {
        if (place >= data.size()) place = 1;
        data[place] = by_count[i];
    }
    data.insert(data.end(), run, data.back());
    return data;
}

TEST(RleDeflate, SkewedCountsNeedLengthLimitedCodes) {
    // Value k appears fib(k + 2) times (1, 2, 3, 5, ...; k < 20): with the end-of-block symbol,
    // a plain Huffman code would give the rarest value 20 bits, over deflate's 15. Every byte
    // is a literal.
    const std::vector<uint8_t> data = fibonacci_bytes(20, 1, 2, 0);
    ASSERT_LE(data.size(), kRleBlockBytes) << "one block, one code";
    for (size_t i = 1; i < data.size(); ++i) ASSERT_NE(data[i], data[i - 1]) << i;
    expect_round_trip(data, "fibonacci counts");
}

// The token writer puts four tokens to a write where a block's longest token has at most 14
// bits, three where it has at most 18, else two, and the tokens left over one at a time: each
// width with every remainder, and at the end of a block.
TEST(RleDeflate, FourTokensAWriteWithEveryRemainder) {
    // Four values, never three alike in a row: literals only, codes of two or three bits.
    std::vector<uint8_t> data;
    for (size_t i = 0; i < 40; ++i) {
        data.push_back(static_cast<uint8_t>(i * 7 % 4));
        expect_round_trip(data, "four values, " + std::to_string(data.size()));
    }
    data.resize(kRleBlockBytes + 9);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 % 4);
    for (size_t cut = 0; cut < 5; ++cut) {
        const std::vector<uint8_t> part(data.begin(), data.end() - static_cast<long>(cut));
        expect_round_trip(part, "four values over a block boundary, " + std::to_string(cut));
    }
}

TEST(RleDeflate, ThreeAndTwoTokensAWriteWithEveryRemainder) {
    // A run of 230 has a length code with 5 extra bits: its token has 17 or 18 bits with 11
    // values (three a write), 21 with 14 (two a write).
    for (int values : {11, 14})
        for (size_t cut = 0; cut < 4; ++cut) {
            std::vector<uint8_t> data = fibonacci_bytes(values, 2, 3, 230);
            data.erase(data.begin(), data.begin() + static_cast<long>(cut));
            expect_round_trip(data, std::to_string(values) + " values, " + std::to_string(cut));
        }
}

// The high byte plane of a real table's chunk: grundy's run-length encoder is what level 1
// writes for it, so it must be no larger than what libdeflate's level 1 would write.
TEST(RleDeflate, GrundyHighBytesNoLargerThanLibdeflateLevelOne) {
    EngineOptions o;
    o.rows = o.cols = 1536;
    MemoryTable table;
    compute_table(o, table);
    libdeflate_compressor* c = libdeflate_alloc_compressor(1);
    size_t ours = 0, theirs = 0;
    for (uint64_t y0 = 0; y0 < 1536; y0 += 512)
        for (uint64_t x0 = 0; x0 < 1536; x0 += 512) {
            std::vector<uint8_t> plane;
            for (uint64_t y = y0; y < y0 + 512; ++y)
                for (uint64_t x = x0; x < x0 + 512; ++x)
                    plane.push_back(static_cast<uint8_t>(table(x, y) >> 8));
            std::vector<uint8_t> s;
            rle_deflate(plane.data(), plane.size(), s);
            EXPECT_EQ(zlib_inflate(s, plane.size()), plane);
            ours += s.size();
            std::vector<uint8_t> ld(libdeflate_deflate_compress_bound(c, plane.size()));
            theirs +=
                libdeflate_deflate_compress(c, plane.data(), plane.size(), ld.data(), ld.size());
        }
    libdeflate_free_compressor(c);
    EXPECT_LE(ours, theirs) << "ours " << ours << " bytes, libdeflate level 1 " << theirs;
    EXPECT_LT(ours, 9 * 512 * 512 / 3) << "compressed at least 3 to 1";
}

// The same bytes from any thread and any call: chunks must be identical from run to run (the
// resume tests compare them), which ISA-L's encoder once was not.
TEST(RleDeflate, SameStreamFromEveryThread) {
    std::vector<uint8_t> data(150000);
    std::mt19937 rng(4);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i / 97 + rng() % 3);
    std::vector<uint8_t> expected;
    rle_deflate(data.data(), data.size(), expected);
    std::atomic<int> differing{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            std::vector<uint8_t> got;
            for (int i = 0; i < 20; ++i) {
                got.clear();
                rle_deflate(data.data(), data.size(), got);
                if (got != expected) ++differing;
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(differing.load(), 0);
}

}  // namespace
}  // namespace grundy::io
