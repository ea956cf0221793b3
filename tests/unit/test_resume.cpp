// Resuming a stopped run in the engine (EngineOptions::resume): whatever set of tiles is
// stored, replaying the ones a run could have finished and computing the rest gives the table
// of an uninterrupted run, and the sink gets exactly the tiles that were not replayed.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <ostream>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/memory_table.hpp"
#include "support/reference.hpp"

namespace grundy {
namespace {

using Corner = std::pair<uint64_t, uint64_t>;  // (x0, y0) of a tile

MemoryTable full_table(uint64_t rows, uint64_t cols, uint32_t tile) {
    MemoryTable t;
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    o.tile = tile;
    o.threads = 2;
    compute_table(o, t);
    return t;
}

// Stored tiles served from a full table, as a file would serve its chunks.
class StoreFromTable final : public StoredTiles {
  public:
    StoreFromTable(const MemoryTable& table, std::set<Corner> stored)
        : table_(table), stored_(std::move(stored)) {}
    bool has_tile(uint64_t x0, uint64_t y0) const override { return stored_.count({x0, y0}); }
    void read_tile(uint64_t x0, uint64_t y0, uint32_t width, uint32_t height,
                   uint32_t* values) override {
        EXPECT_TRUE(has_tile(x0, y0)) << x0 << ", " << y0;
        for (uint32_t j = 0; j < height; ++j)
            for (uint32_t i = 0; i < width; ++i) values[j * width + i] = table_(x0 + i, y0 + j);
        reads.fetch_add(1);
    }
    std::atomic<int> reads{0};

  private:
    const MemoryTable& table_;
    std::set<Corner> stored_;
};

// Keeps what it is given, and which tiles it was given.
class RecordingSink final : public TileSink {
  public:
    void begin(const TableShape& shape) override { table.begin(shape); }
    void consume(const TileView& tile) override {
        table.consume(tile);
        std::lock_guard<std::mutex> lock(mutex);
        EXPECT_TRUE(corners.insert({tile.x0, tile.y0}).second) << "tile given twice";
    }
    MemoryTable table;
    std::set<Corner> corners;
    std::mutex mutex;
};

struct Case {
    uint64_t rows, cols;
    uint32_t tile;
    int threads;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.rows << " x " << c.cols << ", tile " << c.tile << ", " << c.threads << " threads";
}

// The engine options of a case, resuming from `store`.
EngineOptions resume_options(const Case& c, StoredTiles& store) {
    EngineOptions o;
    o.rows = c.rows;
    o.cols = c.cols;
    o.tile = c.tile;
    o.threads = c.threads;
    o.resume = &store;
    return o;
}

// Resumes from `stored`: the sink's tiles plus the replayed ones must make up the whole
// table, equal to `full`. Returns the stats.
EngineStats resume_and_check(const Case& c, const MemoryTable& full,
                             const std::set<Corner>& stored) {
    StoreFromTable store(full, stored);
    RecordingSink sink;
    const EngineStats stats = compute_table(resume_options(c, store), sink);
    EXPECT_FALSE(stats.cancelled);
    EXPECT_EQ(stats.cells + stats.cells_resumed, c.rows * c.cols);
    EXPECT_EQ(stats.tiles_done, stats.tiles);
    // The replayed tiles were stored, and the sink did not get them again.
    uint64_t replayed_cells = 0;
    for (uint64_t y0 = 0; y0 < c.rows; y0 += c.tile)
        for (uint64_t x0 = 0; x0 < c.cols; x0 += c.tile) {
            if (sink.corners.count({x0, y0})) continue;
            EXPECT_TRUE(stored.count({x0, y0})) << "tile " << x0 << ", " << y0 << " lost";
            replayed_cells +=
                (std::min(c.cols, x0 + c.tile) - x0) * (std::min(c.rows, y0 + c.tile) - y0);
        }
    EXPECT_EQ(replayed_cells, stats.cells_resumed);
    // The computed tiles equal the uninterrupted run's.
    for (const auto& [x0, y0] : sink.corners)
        for (uint64_t y = y0; y < std::min(c.rows, y0 + c.tile); ++y)
            for (uint64_t x = x0; x < std::min(c.cols, x0 + c.tile); ++x)
                if (sink.table(x, y) != full(x, y)) {
                    ADD_FAILURE() << "g(" << x << ", " << y << ") = " << sink.table(x, y)
                                  << ", expected " << full(x, y);
                    return stats;
                }
    return stats;
}

// A random down-set of the tile grid: a staircase of column heights that never grow to the
// right, closed under mirroring (a tile and its transpose are finished together).
std::set<Corner> random_down_set(const Case& c, std::mt19937& rng) {
    const uint64_t tx = (c.cols + c.tile - 1) / c.tile, ty = (c.rows + c.tile - 1) / c.tile;
    std::vector<uint64_t> height(tx);
    uint64_t h = std::uniform_int_distribution<uint64_t>(0, ty)(rng);
    for (uint64_t i = 0; i < tx; ++i) {
        h = std::uniform_int_distribution<uint64_t>(0, h)(rng);
        height[i] = h;
        if (i == 0 && h == 0) height[i] = 1;  // never empty: at least tile (0, 0)
    }
    std::set<Corner> s;
    for (uint64_t i = 0; i < tx; ++i)
        for (uint64_t j = 0; j < height[i]; ++j) s.insert({i * c.tile, j * c.tile});
    // Mirrors: if (i, j) is in, (j, i) goes in too, which stays a down-set only if its own
    // left and lower neighbours are; enforce by closing downwards and leftwards again.
    for (bool changed = true; changed;) {
        changed = false;
        for (auto [x0, y0] : std::set<Corner>(s)) {
            std::vector<Corner> need = {{y0, x0}};
            if (x0) need.push_back({x0 - c.tile, y0});
            if (y0) need.push_back({x0, y0 - c.tile});
            for (const Corner& n : need)
                if (n.first < c.cols && n.second < c.rows && s.insert(n).second) changed = true;
        }
    }
    return s;
}

class ResumeEngine : public ::testing::TestWithParam<Case> {};

// Split at arbitrary down-sets: everything stored is replayed, the rest computed.
TEST_P(ResumeEngine, DownSetReplayedRestComputed) {
    const Case c = GetParam();
    const MemoryTable full = full_table(c.rows, c.cols, c.tile);
    std::mt19937 rng(static_cast<unsigned>(c.rows * 1000 + c.cols));
    for (int round = 0; round < 6; ++round) {
        const std::set<Corner> stored = random_down_set(c, rng);
        uint64_t stored_cells = 0;
        for (const auto& [x0, y0] : stored)
            stored_cells +=
                (std::min(c.cols, x0 + c.tile) - x0) * (std::min(c.rows, y0 + c.tile) - y0);
        const EngineStats stats = resume_and_check(c, full, stored);
        EXPECT_EQ(stats.cells_resumed, stored_cells) << "round " << round;
        if (::testing::Test::HasFailure()) return;
    }
}

// Arbitrary stored sets, as a hard kill may leave: only the part a run could have finished is
// replayed, and the table is still right.
TEST_P(ResumeEngine, ArbitraryStoredSets) {
    const Case c = GetParam();
    const MemoryTable full = full_table(c.rows, c.cols, c.tile);
    std::mt19937 rng(static_cast<unsigned>(c.rows * 7 + c.cols));
    for (double p : {0.5, 0.9, 1.0}) {
        std::set<Corner> stored;
        std::bernoulli_distribution keep(p);
        for (uint64_t y0 = 0; y0 < c.rows; y0 += c.tile)
            for (uint64_t x0 = 0; x0 < c.cols; x0 += c.tile)
                if (keep(rng)) stored.insert({x0, y0});
        const EngineStats stats = resume_and_check(c, full, stored);
        if (p == 1.0) {
            EXPECT_EQ(stats.cells, 0u);  // everything stored: nothing to compute
        }
        if (::testing::Test::HasFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ResumeEngine,
    ::testing::Values(Case{200, 200, 16, 2},  // square: symmetric mode
                      Case{100, 317, 32, 3},  // wide: symmetric mode, ragged right edge
                      Case{150, 333, 8, 1},   // many small tiles
                      Case{300, 130, 16, 2},  // tall: general mode, mirrored tiles filled
                      Case{130, 137, 16, 2},  // ragged: general mode
                      Case{21, 20, 64, 1},    // one tile
                      Case{256, 256, 8, 2},   // band order (TileGrid::band)
                      Case{200, 320, 8, 1}));

// The pieces of a split table against the independent direct mex, not only the engine.
TEST(ResumeEngine, AgainstDirectMex) {
    const Case c{90, 120, 16, 2};
    const auto direct = testing::direct_mex_table(c.rows, c.cols);
    const MemoryTable full = full_table(c.rows, c.cols, c.tile);
    ASSERT_EQ(full.values(), direct);
    std::set<Corner> stored;
    for (uint64_t y0 = 0; y0 < c.rows; y0 += c.tile)
        for (uint64_t x0 = 0; x0 < c.cols; x0 += c.tile)
            if (x0 + y0 <= 4 * c.tile) stored.insert({x0, y0});
    const EngineStats stats = resume_and_check(c, full, stored);
    EXPECT_GT(stats.cells_resumed, 0u);
    EXPECT_GT(stats.cells, 0u);
}

// A stored value that cannot be right (out of bounds, or already in its row) stops the run
// with grundy::Error before anything reaches the sink.
TEST(ResumeEngine, ImpossibleStoredValueIsAnError) {
    const Case c{64, 64, 16, 2};
    const MemoryTable full = full_table(c.rows, c.cols, c.tile);
    std::set<Corner> stored;
    for (uint64_t y0 = 0; y0 < 32; y0 += 16)
        for (uint64_t x0 = 0; x0 < 32; x0 += 16) stored.insert({x0, y0});
    for (int damage = 0; damage < 3; ++damage) {
        MemoryTable bad = full;
        uint32_t v = 0;
        uint64_t x = 20, y = 5;
        if (damage == 0) v = 1000;                          // above x + y
        if (damage == 1) v = full(19, 5);                   // the value left of it: twice in row 5
        if (damage == 2) x = 3, y = 9, v = full(9, 3) + 1;  // left of the diagonal, not g(y, x)
        bad.consume(TileView{x, y, 1, 1, &v});              // the only way to write a MemoryTable
        StoreFromTable store(bad, stored);
        RecordingSink sink;
        EXPECT_THROW(compute_table(resume_options(c, store), sink), Error) << "damage " << damage;
        EXPECT_TRUE(sink.corners.empty()) << "damage " << damage;
    }
}

TEST(ResumeEngine, NeedsTheStoredTileSide) {
    const MemoryTable full = full_table(40, 40, 8);
    StoreFromTable store(full, {});
    NullSink sink;
    EngineOptions o;
    o.rows = o.cols = 40;
    o.resume = &store;
    EXPECT_THROW(compute_table(o, sink), Error);
}

}  // namespace
}  // namespace grundy
