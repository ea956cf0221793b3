// The engine against an independent direct-mex table, published values and known properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/transpose.hpp"
#include "engine/config.hpp"
#include "engine/tile_fill.hpp"
#include "engine/tile_grid.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/memory_table.hpp"
#include "support/kernel_builds.hpp"
#include "support/reference.hpp"

namespace grundy {
namespace {

MemoryTable compute(uint64_t rows, uint64_t cols, int threads = 1, uint32_t tile = 0,
                    MexKernel kernel = MexKernel::Auto) {
    MemoryTable table;
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    o.threads = threads;
    o.tile = tile;
    o.kernel = kernel;
    const EngineStats stats = compute_table(o, table);
    EXPECT_EQ(stats.cells, rows * cols);
    EXPECT_FALSE(stats.cancelled);
    return table;
}

void expect_equal_to_direct_mex(const MemoryTable& t) {
    const auto expected = testing::direct_mex_table(t.rows(), t.cols());
    for (uint64_t y = 0; y < t.rows(); ++y)
        for (uint64_t x = 0; x < t.cols(); ++x)
            ASSERT_EQ(t(x, y), expected[y * t.cols() + x])
                << "at (x, y) = (" << x << ", " << y << ")";
}

// Rectangles not multiples of the tile, thin strips, several threads and tiles.
using Shape = std::tuple<uint64_t, uint64_t, int, uint32_t>;  // rows, cols, threads, tile
class EngineVsDirectMex : public ::testing::TestWithParam<Shape> {};

TEST_P(EngineVsDirectMex, SameTable) {
    const auto [rows, cols, threads, tile] = GetParam();
    expect_equal_to_direct_mex(compute(rows, cols, threads, tile));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, EngineVsDirectMex,
    ::testing::Values(Shape{1, 1, 1, 8}, Shape{1, 300, 1, 16}, Shape{300, 1, 2, 16},
                      Shape{1, 257, 3, 8}, Shape{257, 1, 1, 0}, Shape{37, 53, 1, 8},
                      Shape{53, 37, 2, 8}, Shape{100, 100, 1, 0}, Shape{100, 100, 4, 16},
                      Shape{129, 70, 3, 32}, Shape{70, 129, 2, 24}, Shape{200, 150, 2, 64},
                      Shape{150, 333, 4, 8}, Shape{12, 400, 2, 8}, Shape{400, 12, 2, 8},
                      // Symmetric mode (every tile above the diagonal mirrored) in wide tables:
                      Shape{64, 150, 2, 16}, Shape{48, 203, 3, 8}, Shape{96, 96, 3, 32},
                      // One tile, taller than wide: not symmetric.
                      Shape{21, 20, 1, 64},
                      // Band order (symmetric, at least two bands of 4 tile rows a thread):
                      Shape{300, 300, 1, 8}, Shape{300, 300, 2, 8}, Shape{256, 400, 3, 8},
                      Shape{304, 304, 4, 8}));

// Mirrored tiles are transposed in 4 x 4 squares along strips of 16 columns: every shape of
// leftover, against the definition.
TEST(Engine, TransposeTileOfEveryShape) {
    for (uint64_t w : {1u, 3u, 4u, 5u, 16u, 17u, 20u, 35u, 64u})
        for (uint64_t h : {1u, 2u, 4u, 7u, 16u, 33u, 64u}) {
            std::vector<uint32_t> values(w * h), mirror(w * h, 0xDEADBEEF);
            for (uint64_t i = 0; i < values.size(); ++i)
                values[i] = static_cast<uint32_t>(i * 7 + 1);
            base::transpose_tile(values.data(), w, h, mirror.data());
            for (uint64_t y = 0; y < h; ++y)
                for (uint64_t x = 0; x < w; ++x)
                    ASSERT_EQ(mirror[x * h + y], values[y * w + x])
                        << w << " x " << h << " at " << x << ", " << y;
        }
}

// Every kernel build gives the same table as the portable kernel built for any CPU (a build
// this CPU cannot run is skipped, with the reason).
class EngineKernel : public testing::EachKernelBuild {};

TEST_P(EngineKernel, AgreesWithThePortableAnyCpuBuild) {
    static const MemoryTable reference = [] {
        testing::BuildLimit any_cpu(engine::Build::AnyCpu);
        return compute(300, 517, 2, 64, MexKernel::Portable);
    }();
    engine::limit_builds(GetParam().build);  // the reference's scope lifted the limit
    const MemoryTable t = compute(300, 517, 2, 64, kernel());
    EXPECT_EQ(t.values(), reference.values());
}

INSTANTIATE_TEST_SUITE_P(EachBuild, EngineKernel, ::testing::ValuesIn(testing::kKernelBuilds),
                         testing::kernel_build_name);

// Every kernel's name parses back to it; any other name is refused with a message that names
// the argument as each front end spells it and lists the names.
TEST(Engine, KernelNamesParse) {
    for (MexKernel k : {MexKernel::Auto, MexKernel::Portable, MexKernel::Avx2, MexKernel::Avx512,
                        MexKernel::Summary}) {
        if (mex_kernel_supported(k))
            EXPECT_EQ(parse_mex_kernel(mex_kernel_name(k)), k) << mex_kernel_name(k);
        else
            EXPECT_THROW(parse_mex_kernel(mex_kernel_name(k)), Error) << mex_kernel_name(k);
    }
    for (const char* bad : {"fast", "", "AVX2", "auto ", "summary,avx2"}) {
        try {
            parse_mex_kernel(bad);
            ADD_FAILURE() << "'" << bad << "' parsed";
        } catch (const ArgumentError& e) {
            const std::string names =
                "must be auto, summary, avx512, avx2 or portable, got '" + std::string(bad) + "'";
            EXPECT_EQ(std::string(e.what()), "kernel " + names);
            EXPECT_EQ(e.render([](std::string_view n) { return "--" + std::string(n); }),
                      "--kernel " + names);
        }
    }
}

// The default tile: 512 while each side keeps 4 tiles per thread, halving down to 64; beyond 8
// threads, 8 tiles per thread down to 256 (engine/config.hpp: the model's idle corners on 16
// threads, against the cost of smaller tiles).
TEST(Engine, DefaultTileByThreads) {
    EXPECT_EQ(default_tile(32768, 32768, 2), 512u);
    EXPECT_EQ(default_tile(4096, 4096, 2), 512u);
    EXPECT_EQ(default_tile(2048, 4096, 2), 256u);
    EXPECT_EQ(default_tile(32768, 32768, 8), 512u);
    EXPECT_EQ(default_tile(32768, 32768, 16), 256u);
    EXPECT_EQ(default_tile(65536, 65536, 16), 512u);
    EXPECT_EQ(default_tile(16384, 16384, 16), 256u);
    EXPECT_EQ(default_tile(4096, 4096, 16), 64u);
    EXPECT_EQ(default_tile(262144, 262144, 64), 512u);
    EXPECT_EQ(default_tile(100, 100000, 64), 64u);
}

// OEIS A004481 (the table) as published in its lower-triangle form A317205 (Winning Ways,
// p. 76): row n of the triangle is g(n, 0), g(n, 1), ..., g(n, n).
TEST(Engine, OeisA004481Triangle) {
    const std::vector<uint32_t> a317205 = {
        0,  1, 2,  2,  0,  1,  3,  4,  5,  6, 4,  5,  3,  2,  7,  5,  3,  4, 0, 6,
        8,  6, 7,  8,  1,  9,  10, 3,  7,  8, 6,  9,  0,  1,  4,  5,  8,  6, 7, 10,
        1,  2, 5,  3,  4,  9,  10, 11, 12, 8, 7,  13, 14, 15, 16, 10, 11, 9, 8, 13,
        12, 0, 15, 16, 17, 14, 11, 9,  10, 7, 12, 14, 2,  13, 17, 6,  18, 15};
    const MemoryTable t = compute(12, 12, 2, 8);
    size_t k = 0;
    for (uint64_t n = 0; k < a317205.size(); ++n)
        for (uint64_t m = 0; m <= n; ++m, ++k) {
            ASSERT_EQ(t(n, m), a317205[k]) << "term " << k << ": g(" << n << ", " << m << ")";
            ASSERT_EQ(t(m, n), a317205[k]) << "term " << k << ": g(" << m << ", " << n << ")";
        }
}

// The first anti-diagonals of A004481: g(0, s), g(1, s - 1), ..., g(s, 0).
TEST(Engine, OeisA004481Antidiagonals) {
    const std::vector<std::vector<uint32_t>> antidiagonals = {
        {0},
        {1, 1},
        {2, 2, 2},
        {3, 0, 0, 3},
        {4, 4, 1, 4, 4},
        {5, 5, 5, 5, 5, 5},
        {6, 3, 3, 6, 3, 3, 6},
        {7, 7, 4, 2, 2, 4, 7, 7},
        {8, 8, 8, 0, 7, 0, 8, 8, 8},
        {9, 6, 6, 1, 6, 6, 1, 6, 6, 9},
        {10, 10, 7, 9, 9, 8, 9, 9, 7, 10, 10},
        {11, 11, 11, 10, 0, 10, 10, 0, 10, 11, 11, 11}};
    const MemoryTable t = compute(12, 12, 1, 8);
    for (uint64_t s = 0; s < antidiagonals.size(); ++s)
        for (uint64_t x = 0; x <= s; ++x)
            EXPECT_EQ(t(x, s - x), antidiagonals[s][x]) << "g(" << x << ", " << s - x << ")";
}

// Rows 1..4 are OEIS A004482..A004485: g(x, 1), g(x, 2), ...
TEST(Engine, OeisRows) {
    const std::map<uint64_t, std::vector<uint32_t>> rows = {
        {1, {1, 2, 0, 4, 5, 3, 7, 8, 6, 10, 11, 9}},
        {2, {2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10}},
        {3, {3, 4, 5, 6, 2, 0, 1, 9, 10, 12, 8, 7}},
        {4, {4, 5, 3, 2, 7, 6, 9, 0, 1, 8, 13, 12}},
    };
    const MemoryTable t = compute(5, 12, 1, 8);
    for (const auto& [y, values] : rows)
        for (uint64_t x = 0; x < values.size(); ++x)
            EXPECT_EQ(t(x, y), values[x]) << "row " << y << " column " << x;
}

// Tables one to three cells thick, in both orientations, long enough that memory growing faster
// than the cells shows: each row and column against rows 0, 1 and 2 of OEIS (A004481-A004483,
// seed 001's blocks: g(x, 1) = x - 2 + [3, 3, 0][x % 3], g(x, 2) = x - 4 + [6, 3, 3][x % 3]).
// Once, rows opened with floor 0 (each row of an N x 1 table cleared about y bits: quadratic in
// N): the windows' peak size shows it, whatever the machine's load. (The other quadratic cost
// such tables once had, task creation, is checked without a clock by TileTokensAreNotShared;
// their time is a benchmark's: `grundy compute --rows 1 --cols 4194304 --no-output`.)
TEST(Engine, ThinTablesTakeLinearMemory) {
    auto expected = [](uint64_t x, uint64_t y) -> uint64_t {
        static constexpr uint64_t kRow1[] = {3, 3, 0}, kRow2[] = {6, 3, 3};
        if (y == 0) return x;
        if (y == 1) return x + kRow1[x % 3] - 2;
        return x + kRow2[x % 3] - 4;
    };
    for (const uint64_t thick : {1, 2, 3})
        for (const bool tall : {false, true}) {
            const uint64_t kLong = uint64_t{1} << 20;
            const uint64_t rows = tall ? kLong : thick, cols = tall ? thick : kLong;
            MemoryTable table;
            const EngineStats stats =
                compute_table(EngineOptions{.rows = rows, .cols = cols, .threads = 2}, table);
            EXPECT_LT(stats.peak_state_bytes, uint64_t{1} << 20) << rows << " x " << cols;
            for (uint64_t k = 0; k < kLong; ++k)
                for (uint64_t t = 0; t < thick; ++t) {
                    const uint64_t x = tall ? t : k, y = tall ? k : t;
                    ASSERT_EQ(table(x, y), expected(std::max(x, y), std::min(x, y)))
                        << "g(" << x << ", " << y << ") in " << rows << " x " << cols;
                }
        }
}

// Every OpenMP dependency token of the wavefront is waited on by at most four tasks (those to
// the right of and above the two tiles a task finishes, its own and its mirror), whatever the
// grid's shape: libgomp walks a token's list of waiting tasks for every new one, so a token
// shared by all the tiles of an edge (as once the table's left and bottom edges did) made task
// creation quadratic in the edge's length.
TEST(Engine, TileTokensAreNotShared) {
    struct GridShape {
        uint64_t rows, cols, tile;
    };
    for (const GridShape s :
         {GridShape{1, 1 << 16, 16}, GridShape{1 << 16, 1, 16}, GridShape{40, 5000, 16},
          GridShape{5000, 40, 16}, GridShape{300, 300, 16}, GridShape{300, 290, 16}}) {
        engine::TileGrid grid(s.rows, s.cols, s.tile);
        std::map<const char*, std::set<std::pair<uint64_t, uint64_t>>> readers;
        for (const auto [i, j] : grid.tasks()) {
            readers[grid.left_token(i, j)].insert({i, j});
            readers[grid.below_token(i, j)].insert({i, j});
        }
        size_t most = 0;
        for (const auto& [token, tasks] : readers) most = std::max(most, tasks.size());
        EXPECT_LE(most, 4u) << s.rows << " x " << s.cols << ", tile " << s.tile;
    }
}

// The lead tokens that keep the front from getting ragged (TileGrid::row_lead_token): each
// names the tile kFrontSlack anti-diagonals back in the band min(kLeadSpan, bands left) above
// (or to the right), a task created before the tile's own, or where there is none the tile's
// own token that no task writes; and no token gains more than a bounded number of readers.
TEST(Engine, LeadTokensComeFirstAndStayFew) {
    struct GridShape {
        uint64_t rows, cols, tile;
    };
    for (const GridShape s :
         {GridShape{1, 1 << 12, 16}, GridShape{1 << 12, 1, 16}, GridShape{40, 5000, 16},
          GridShape{5000, 40, 16}, GridShape{300, 300, 16}, GridShape{300, 290, 16},
          GridShape{1000, 3000, 8}}) {
        engine::TileGrid grid(s.rows, s.cols, s.tile);
        const std::vector<engine::TileIndex> tasks = grid.tasks();
        std::map<const char*, size_t> written_by;  // token -> position in tasks()
        for (size_t p = 0; p < tasks.size(); ++p)
            written_by[grid.token(tasks[p].i, tasks[p].j)] = p;
        std::map<const char*, size_t> readers;
        const uint64_t slack = engine::kFrontSlack;
        for (size_t p = 0; p < tasks.size(); ++p) {
            const auto [i, j] = tasks[p];
            const uint64_t up = std::min(engine::kLeadSpan, grid.tiles_y - 1 - j);
            const uint64_t right = std::min(engine::kLeadSpan, grid.tiles_x - 1 - i);
            const char* row_lead = grid.row_lead_token(i, j);
            const char* column_lead = grid.column_lead_token(i, j);
            if (up && i >= up + slack) {
                EXPECT_EQ(row_lead, grid.token(i - up - slack, j + up));
            }
            if (right && j >= right + slack) {
                EXPECT_EQ(column_lead, grid.token(i + right, j - right - slack));
            }
            for (const char* token : {row_lead, column_lead}) {
                const auto w = written_by.find(token);
                if (w != written_by.end()) {
                    EXPECT_LT(w->second, p) << i << ", " << j;
                }
                ++readers[token];
            }
            ++readers[grid.left_token(i, j)];
            ++readers[grid.below_token(i, j)];
        }
        size_t most = 0;
        for (const auto& [token, n] : readers) most = std::max(most, n);
        EXPECT_LE(most, 2 * engine::kLeadSpan + 4)
            << s.rows << " x " << s.cols << ", tile " << s.tile;
    }
}

// Band order (TileGrid::band): symmetric tables on up to kBandMostThreads threads are swept band
// of tile rows after band, every task after the tasks it waits for, and a band's first task (its
// tile on the diagonal) waits for the band below to reach its last `band` tiles.
TEST(Engine, BandOrderTasksComeAfterWhatTheyWaitFor) {
    struct GridShape {
        uint64_t rows, cols, tile;
        int threads;
    };
    for (const GridShape s : {GridShape{300, 300, 8, 1}, GridShape{300, 300, 8, 2},
                              GridShape{256, 400, 8, 3}, GridShape{304, 304, 8, 4}}) {
        engine::TileGrid grid(s.rows, s.cols, s.tile, s.threads);
        ASSERT_TRUE(grid.symmetric);
        ASSERT_EQ(grid.band, engine::kBandTilesPerThread * static_cast<uint64_t>(s.threads));
        const std::vector<engine::TileIndex> tasks = grid.tasks();
        std::map<const char*, size_t> written_by;
        for (size_t p = 0; p < tasks.size(); ++p)
            written_by[grid.token(tasks[p].i, tasks[p].j)] = p;
        ASSERT_EQ(written_by.size(), tasks.size());  // each tile's task once
        uint64_t band_of_last = 0;
        for (size_t p = 0; p < tasks.size(); ++p) {
            const auto [i, j] = tasks[p];
            EXPECT_GE(j / grid.band, band_of_last) << "bands one after another";
            band_of_last = j / grid.band;
            for (const char* token :
                 {grid.left_token(i, j), grid.below_token(i, j), grid.band_token(i, j),
                  grid.row_lead_token(i, j), grid.column_lead_token(i, j)}) {
                const auto w = written_by.find(token);
                if (w != written_by.end()) {
                    EXPECT_LT(w->second, p) << i << ", " << j;
                }
            }
            const char* band = grid.band_token(i, j);
            if (j > 0 && j % grid.band == 0 && i == j) {
                EXPECT_EQ(band, grid.token(std::max(j, grid.tiles_x - 1 - grid.band), j - 1)) << j;
            } else {
                EXPECT_EQ(written_by.count(band), 0u) << i << ", " << j;
            }
        }
    }
    // Not symmetric, too few tile rows, or more threads: the anti-diagonal order.
    EXPECT_EQ(engine::TileGrid(300, 290, 8, 2).band, 0u);
    EXPECT_EQ(engine::TileGrid(100, 100, 8, 2).band, 0u);
    EXPECT_EQ(engine::TileGrid(300, 300, 8, engine::kBandMostThreads + 1).band, 0u);
    EXPECT_EQ(engine::TileGrid(300, 300, 8).band, 0u);
}

TEST(Engine, SymmetryBoundsAndPermutations) {
    const uint64_t n = 700;
    const MemoryTable t = compute(n, n, 2, 64);
    for (uint64_t y = 0; y < n; ++y)
        for (uint64_t x = 0; x < n; ++x) {
            const int64_t g = t(x, y);
            ASSERT_EQ(t(x, y), t(y, x)) << x << "," << y;
            ASSERT_LE(g, static_cast<int64_t>(x + y));
            ASSERT_GE(g, static_cast<int64_t>(x) - 2 * static_cast<int64_t>(y));
        }
    // No value twice in a row; row y of length n holds every value below n - 2y.
    for (uint64_t y = 0; y < n; ++y) {
        std::vector<bool> seen(2 * n);
        for (uint64_t x = 0; x < n; ++x) {
            ASSERT_FALSE(seen[t(x, y)]) << "value twice in row " << y;
            seen[t(x, y)] = true;
        }
        for (uint64_t v = 0; v + 2 * y < n; ++v)
            ASSERT_TRUE(seen[v]) << "row " << y << " lacks " << v;
    }
}

// Zeros exactly at (a_n, b_n) and (b_n, a_n), a_n = floor(n phi), b_n = a_n + n.
TEST(Engine, ZerosAtWythoffPairs) {
    const uint64_t n = 1000;
    const MemoryTable t = compute(n, n, 2, 0);
    std::vector<std::vector<bool>> p(n, std::vector<bool>(n));
    const double phi = (1.0 + std::sqrt(5.0)) / 2.0;  // exact enough for n < 10^6
    for (uint64_t k = 0;; ++k) {
        const auto a = static_cast<uint64_t>(std::floor(k * phi)), b = a + k;
        if (a >= n) break;
        if (b < n) p[a][b] = p[b][a] = true;
    }
    for (uint64_t y = 0; y < n; ++y)
        for (uint64_t x = 0; x < n; ++x)
            ASSERT_EQ(t(x, y) == 0, p[x][y]) << "at (" << x << ", " << y << ")";
}

TEST(Engine, RejectsNonsenseSizes) {
    NullSink sink;
    EngineOptions o;
    o.rows = 0;
    o.cols = 10;
    // Bad sizes are the caller's arguments, named as the library names them (docs/library.md).
    const auto message = [&] {
        try {
            compute_table(o, sink);
        } catch (const ArgumentError& e) {
            return std::string(e.what());
        }
        return std::string("no ArgumentError");
    };
    EXPECT_EQ(message(), "rows must be between 1 and 2^31, got 0");
    o.rows = 10;
    o.cols = uint64_t{1} << 32;
    EXPECT_EQ(message(), "cols must be between 1 and 2^31, got 4294967296");
    o.cols = 10;
    o.tile = 3;
    EXPECT_THROW(compute_table(o, sink), ArgumentError);
}

TEST(Engine, CancelStopsEarly) {
    std::atomic<bool> cancel{true};
    NullSink sink;
    EngineOptions o;
    o.rows = o.cols = 512;
    o.tile = 64;
    o.cancel = &cancel;
    const EngineStats stats = compute_table(o, sink);
    EXPECT_TRUE(stats.cancelled);
    EXPECT_LT(stats.cells, 512u * 512u);
}

// A sink that reads no values (the engine then makes no mirrors for it) still gets every tile
// of a square table once, mirrors included, from several threads. (Sinks that read values get
// the direct mex's: EngineVsDirectMex.)
class CountingSink final : public TileSink {
  public:
    explicit CountingSink(uint64_t n) : n_(n), seen_(n * n, 0) {}
    void consume(const TileView& t) override { count(t.x0, t.y0, t.width, t.height); }
    void consume_transpose(const TileView& t) override { count(t.y0, t.x0, t.height, t.width); }
    const std::vector<int>& seen() const { return seen_; }

  private:
    void count(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (uint64_t y = y0; y < y0 + height; ++y)
            for (uint64_t x = x0; x < x0 + width; ++x) ++seen_[y * n_ + x];
    }
    uint64_t n_;
    std::vector<int> seen_;
    std::mutex mutex_;
};

TEST(Engine, SinkWithoutValuesGetsEveryTileOnce) {
    const uint64_t n = 300;
    CountingSink sink(n);
    EngineOptions o;
    o.rows = o.cols = n;
    o.tile = 64;
    o.threads = 2;
    const EngineStats stats = compute_table(o, sink);
    EXPECT_EQ(stats.cells, n * n);
    EXPECT_FALSE(stats.cancelled);
    EXPECT_EQ(std::count(sink.seen().begin(), sink.seen().end(), 1), static_cast<long>(n * n));
}

}  // namespace
}  // namespace grundy
