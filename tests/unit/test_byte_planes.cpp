// A tile's columns as the byte planes of its mirror's chunk (base/byte_planes.hpp), against the
// planes made one value at a time: the AVX-512 VBMI code and the AVX2 code where the CPU has them,
// and the portable code everywhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "base/byte_planes.hpp"

namespace grundy::base {
namespace {

struct Planes {
    std::vector<uint8_t> low, high;
};

// Columns [x0, x1) of a w x h tile, one value at a time; every byte 0xEE first, so that a byte
// left unwritten shows.
Planes slow_planes(const std::vector<uint32_t>& v, uint64_t w, uint64_t h, uint64_t x0,
                   uint64_t x1) {
    Planes p{std::vector<uint8_t>((x1 - x0) * h, 0xEE), std::vector<uint8_t>((x1 - x0) * h, 0xEE)};
    for (uint64_t x = x0; x < x1; ++x)
        for (uint64_t y = 0; y < h; ++y) {
            p.low[(x - x0) * h + y] = static_cast<uint8_t>(v[y * w + x]);
            p.high[(x - x0) * h + y] = static_cast<uint8_t>(v[y * w + x] >> 8);
        }
    return p;
}

Planes fast_planes(const std::vector<uint32_t>& v, uint64_t w, uint64_t h, uint64_t x0, uint64_t x1,
                   PlanesCode code) {
    // Room after the planes, which must stay as it is.
    Planes p{std::vector<uint8_t>((x1 - x0) * h + 64, 0xEE),
             std::vector<uint8_t>((x1 - x0) * h + 64, 0xEE)};
    transpose_columns_to_planes(v.data(), w, h, x0, x1, p.low.data(), p.high.data(), code);
    for (size_t i = (x1 - x0) * h; i < p.low.size(); ++i) {
        EXPECT_EQ(p.low[i], 0xEE) << "written past the low plane";
        EXPECT_EQ(p.high[i], 0xEE) << "written past the high plane";
    }
    p.low.resize((x1 - x0) * h);
    p.high.resize((x1 - x0) * h);
    return p;
}

const char* code_name(PlanesCode code) {
    switch (code) {
        case PlanesCode::best:
            return "best";
        case PlanesCode::avx2:
            return "AVX2";
        case PlanesCode::portable:
            return "portable";
    }
    return "?";
}

// Every byte of every value distinct from its neighbours' (random 32-bit values), on tiles whose
// sides are and are not multiples of the blocks (16 x 64, 16 x 16), from strips at and off block
// edges.
TEST(BytePlanes, ColumnsAreTheMirrorsPlanes) {
    std::mt19937 rng(5);
    struct Case {
        uint64_t w, h, x0, x1;
    };
    const Case cases[] = {{512, 512, 0, 16},      {512, 512, 48, 64}, {512, 512, 0, 512},
                          {512, 512, 7, 40},      {128, 128, 0, 128}, {256, 1024, 16, 32},
                          {1024, 256, 992, 1024}, {80, 1000, 0, 80},  {48, 48, 0, 48},
                          {17, 65, 0, 17},        {16, 64, 0, 16},    {5, 3, 1, 4},
                          {16, 16, 0, 16},        {33, 31, 0, 33},    {512, 17, 3, 35}};
    for (const PlanesCode code : {PlanesCode::best, PlanesCode::avx2, PlanesCode::portable}) {
        const char* name = code_name(code);
        for (const Case& c : cases) {
            std::vector<uint32_t> v(c.w * c.h);
            for (auto& x : v) x = static_cast<uint32_t>(rng());
            const Planes want = slow_planes(v, c.w, c.h, c.x0, c.x1);
            const Planes got = fast_planes(v, c.w, c.h, c.x0, c.x1, code);
            EXPECT_EQ(got.low, want.low)
                << c.w << " x " << c.h << ", columns " << c.x0 << ".." << c.x1 << ", " << name;
            EXPECT_EQ(got.high, want.high)
                << c.w << " x " << c.h << ", columns " << c.x0 << ".." << c.x1 << ", " << name;
        }
    }
    if (!planes_transpose_has_vbmi())
        std::printf("(no AVX-512 VBMI here: \"best\" is the AVX2 or the portable code)\n");
    if (!planes_transpose_has_avx2())
        std::printf("(no AVX2 here: \"AVX2\" is the portable code)\n");
}

TEST(BytePlanes, SplitRowTakesBytesZeroAndOne) {
    const std::vector<uint32_t> v = {0x04030201u, 0xFFFFFFFFu, 0, 0x0000ABCDu, 0x12345678u};
    std::vector<uint8_t> b0(v.size()), b1(v.size());
    split_row_2(v.data(), v.size(), b0.data(), b1.data());
    EXPECT_EQ(b0, (std::vector<uint8_t>{0x01, 0xFF, 0x00, 0xCD, 0x78}));
    EXPECT_EQ(b1, (std::vector<uint8_t>{0x02, 0xFF, 0x00, 0xAB, 0x56}));
}

}  // namespace
}  // namespace grundy::base
