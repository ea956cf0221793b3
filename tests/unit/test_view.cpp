// grundy view's library part (src/view): the pyramid against block statistics computed here
// from the direct-mex reference, tiles at every kind of zoom against the reference's cells, the
// bounds of the chunk cache and of the tiles. (The HTTP side and the browser: tests/python.)
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "support/analysis_fixtures.hpp"
#include "support/cli.hpp"
#include "support/scratch_dir.hpp"
#include "view/pyramid.hpp"
#include "view/tile_source.hpp"

namespace grundy::testing {
namespace {

constexpr uint64_t kRows = 40, kCols = 4200;  // levels 4 and 5 (4200 > 256 x 16)

// g by the definition, row by row: the least value in none of the row's, the column's and the
// diagonal's sets (as plain flags), searched from the row's least missing value. Quicker than
// direct_mex_table over every option at this width, and as independent of the engine.
std::vector<uint32_t> flag_table(uint64_t rows, uint64_t cols) {
    const uint64_t values = rows + cols + 1;
    std::vector<std::vector<char>> row(rows, std::vector<char>(values)),
        col(cols, std::vector<char>(values)), diag(rows + cols, std::vector<char>(values));
    std::vector<uint32_t> g(rows * cols);
    for (uint64_t y = 0; y < rows; ++y) {
        uint64_t low = 0;
        for (uint64_t x = 0; x < cols; ++x) {
            while (row[y][low]) ++low;
            uint64_t v = low;
            std::vector<char>& c = col[x];
            std::vector<char>& d = diag[x + rows - y];
            while (row[y][v] || c[v] || d[v]) ++v;
            row[y][v] = c[v] = d[v] = 1;
            g[y * cols + x] = static_cast<uint32_t>(v);
        }
    }
    return g;
}

struct Reference {
    std::vector<uint32_t> g = flag_table(kRows, kCols);
    uint32_t at(uint64_t x, uint64_t y) const { return g[y * kCols + x]; }
    // The block statistics by their definitions, cell by cell.
    view::BlockStats block(uint64_t x0, uint64_t y0, uint64_t side) const {
        view::BlockStats s;
        s.sample = at(x0, y0);
        double scaled = 0, diff = 0, p = 0, n = 0;
        for (uint64_t y = y0; y < std::min(kRows, y0 + side); ++y)
            for (uint64_t x = x0; x < std::min(kCols, x0 + side); ++x) {
                const double g = at(x, y);
                scaled += y ? (g - double(x) + 2.0 * double(y)) / (3.0 * double(y)) : 0.0;
                diff += double(x) + double(y) - g;
                p += g == 0;
                n += 1;
            }
        s.scaled = float(scaled / n);
        s.diff = float(diff / n);
        s.p_share = float(p / n);
        return s;
    }
};

const Reference& reference() {
    static const Reference r;
    return r;
}

void expect_near(const view::BlockStats& got, const view::BlockStats& want, const char* where) {
    EXPECT_EQ(got.sample, want.sample) << where;
    EXPECT_NEAR(got.scaled, want.scaled, 1e-5) << where;
    EXPECT_NEAR(got.diff, want.diff, 1e-3 * std::max(1.0f, want.diff)) << where;
    EXPECT_NEAR(got.p_share, want.p_share, 1e-7) << where;
}

TEST(ViewPyramid, SinkBuildsTheBlockStatisticsOfTheDefinition) {
    // 512: rows of 32 whole blocks, summed sixteen at a time; 24: tiles that share blocks.
    for (const uint32_t tile : {512u, 64u, 24u}) {
        NullSink discard;
        view::PyramidSink sink(discard);
        EngineOptions o;
        o.rows = kRows;
        o.cols = kCols;
        o.threads = 2;
        o.tile = tile;
        compute_table(o, sink);
        const view::Pyramid p = sink.finish();
        ASSERT_EQ(p.levels.size(), 2u);
        for (const view::PyramidLevel& level : p.levels) {
            const uint64_t side = uint64_t{1} << level.level;
            ASSERT_EQ(level.width, (kCols + side - 1) / side);
            ASSERT_EQ(level.height, (kRows + side - 1) / side);
            for (uint64_t by = 0; by < level.height; ++by)
                for (uint64_t bx = 0; bx < level.width; bx += 7)
                    expect_near(level.at(bx, by), reference().block(bx * side, by * side, side),
                                "pyramid");
        }
    }
}

// In a square table the engine hands the sink each mirrored tile as its source
// (consume_transpose), whose statistics the builder makes from the source's column sums: the
// same, bit for bit, as a builder given the whole table row by row, and the same values go on
// to the next sink. Tiles of 64 and 48 hold whole blocks (48: mirrors whose source is not
// square at the table's edge); tiles of 24 share blocks, whose sums may add up in another order.
TEST(ViewPyramid, MirroredTilesGiveTheStatisticsOfTheTable) {
    const uint64_t n = 300;
    EngineOptions o;
    o.rows = o.cols = n;
    o.threads = 2;
    MemoryTable whole;
    compute_table(o, whole);
    view::PyramidBuilder direct(n, n);
    direct.add(0, 0, n, n, whole.values().data(), n);
    const view::Pyramid want = direct.finish();
    for (const uint32_t tile : {64u, 48u, 24u}) {
        MemoryTable passed;
        view::PyramidSink sink(passed);
        o.tile = tile;
        compute_table(o, sink);
        EXPECT_EQ(passed.values(), whole.values()) << "tile " << tile;
        const view::Pyramid got = sink.finish();
        ASSERT_EQ(got.levels.size(), want.levels.size());
        for (size_t l = 0; l < want.levels.size(); ++l)
            for (size_t b = 0; b < want.levels[l].blocks.size(); ++b) {
                const view::BlockStats &g = got.levels[l].blocks[b], &w = want.levels[l].blocks[b];
                const std::string where = "tile " + std::to_string(tile) + ", level " +
                                          std::to_string(l) + ", block " + std::to_string(b);
                if (tile % 16 == 0) {
                    ASSERT_EQ(std::memcmp(&g, &w, sizeof g), 0) << where;
                } else {
                    expect_near(g, w, where.c_str());
                }
            }
    }
}

TEST(ViewPyramid, SavedLoadedAndCheckedAgainstTheTable) {
    ScratchDir dir;
    const std::string path = dir / "t.h5";
    write_table(path, kRows, kCols);
    const Hdf5TableReader table(path);
    EXPECT_FALSE(view::load_pyramid(table).has_value());
    const view::Pyramid built = view::build_pyramid(table);
    io::save_pyramid(built, io::pyramid_path(path));
    const std::optional<view::Pyramid> loaded = view::load_pyramid(table);
    ASSERT_TRUE(loaded.has_value());
    ASSERT_EQ(loaded->levels.size(), built.levels.size());
    for (size_t l = 0; l < built.levels.size(); ++l)
        for (size_t i = 0; i < built.levels[l].blocks.size(); ++i)
            ASSERT_EQ(loaded->levels[l].blocks[i].sample, built.levels[l].blocks[i].sample);
    // Another table's pyramid of the same shape is refused (its samples differ).
    view::Pyramid other = built;
    other.levels.front().blocks.front().sample += 1;
    io::save_pyramid(other, io::pyramid_path(path));
    EXPECT_FALSE(view::load_pyramid(table).has_value());
}

// A damaged TABLE.pyramid (not HDF5, cut short, bytes flipped, another format version) is not
// used: load_pyramid says so (grundy view then builds the pyramid again), never a crash.
TEST(ViewPyramid, DamagedFilesAreNotUsed) {
    ScratchDir dir;
    const std::string path = dir / "t.h5";
    write_table(path, kRows, kCols);
    const Hdf5TableReader table(path);
    const std::string side = io::pyramid_path(path);
    io::save_pyramid(view::build_pyramid(table), side);
    const std::string good = testing::slurp(side);
    ASSERT_TRUE(view::load_pyramid(table).has_value());
    auto write = [&](const std::string& bytes) {
        std::ofstream(side, std::ios::binary | std::ios::trunc) << bytes;
    };
    write("not a pyramid\n");
    EXPECT_FALSE(view::load_pyramid(table).has_value());
    for (const size_t keep : {good.size() / 2, good.size() - 100, size_t{600}}) {
        write(good.substr(0, keep));
        EXPECT_FALSE(view::load_pyramid(table).has_value()) << keep << " bytes";
    }
    // Bytes flipped all over the file: refused or read, but never a crash or a wrong shape.
    for (size_t step : {size_t{97}, size_t{1013}}) {
        std::string bytes = good;
        for (size_t i = 0; i < bytes.size(); i += step) bytes[i] ^= 0x20;
        write(bytes);
        if (const auto p = view::load_pyramid(table)) {
            EXPECT_EQ(p->rows, kRows);
            EXPECT_EQ(p->cols, kCols);
        }
    }
    write(good);
    hid_t f = H5Fopen(side.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t a = H5Aopen(f, "version", H5P_DEFAULT);
    const int64_t version = 2;
    H5Awrite(a, H5T_NATIVE_INT64, &version);
    H5Aclose(a);
    H5Fclose(f);
    EXPECT_FALSE(view::load_pyramid(table).has_value());
}

TEST(ViewTiles, EveryKindOfZoomShowsTheCellsOrTheirBlocks) {
    ScratchDir dir;
    const std::string path = dir / "t.h5";
    write_table(path, kRows, kCols, 64);
    view::TileSourceOptions options;
    options.cache_bytes = 64 << 10;  // four of the 64 x 64 chunks
    view::TileSource source(path, options);
    const double diff_max = 3.0 * (kRows - 1);
    std::vector<uint8_t> rgb;
    auto pixel = [&](int px, int py) {
        const uint8_t* p = &rgb[(size_t(py) * view::kTileSize + px) * 3];
        return std::array<int, 3>{p[0], p[1], p[2]};
    };
    auto colour = [](view::Rgb c) { return std::array<int, 3>{c.r, c.g, c.b}; };
    for (const view::Colouring c : {view::Colouring::Mod, view::Colouring::Scaled,
                                    view::Colouring::Diff, view::Colouring::PPos}) {
        const view::Palette palette{c, 7, diff_max};
        // Zoom 3 (8 pixels per cell), tile 1: columns 32..63, rows upwards and downwards.
        for (const bool up : {false, true}) {
            ASSERT_TRUE(source.render({c, 7, 3, 1, 0, up}, rgb));
            for (uint64_t y = 0; y < kRows && y < 32; y += 3)
                for (uint64_t x = 32; x < 64; x += 5) {
                    const int py = int(up ? 31 - y : y) * 8;
                    EXPECT_EQ(pixel(int(x - 32) * 8, py),
                              colour(palette.cell(x, y, reference().at(x, y))))
                        << x << " " << y;
                }
        }
        // Zoomed out from the cells (4 per pixel side) and from the pyramid (32).
        for (const int zoom : {-2, -5}) {
            const uint64_t side = uint64_t{1} << -zoom;
            ASSERT_TRUE(source.render({c, 7, zoom, 0, 0, false}, rgb));
            for (uint64_t by = 0; by * side < kRows; ++by)
                for (uint64_t bx = 0; bx * side < kCols && bx < 256; bx += 11) {
                    const view::Rgb want =
                        palette.block(reference().block(bx * side, by * side, side), side);
                    const auto got = pixel(int(bx), int(by));
                    for (int k = 0; k < 3; ++k)
                        EXPECT_NEAR(got[k], colour(want)[k], 1) << zoom << " " << bx << " " << by;
                }
        }
    }
    EXPECT_LE(source.cache_bytes(), options.cache_bytes);
    // Outside the table: refused, never drawn.
    EXPECT_FALSE(source.render({view::Colouring::Mod, 5, view::kMaxZoom + 1, 0, 0, false}, rgb));
    EXPECT_FALSE(source.render({view::Colouring::Mod, 5, source.min_zoom() - 1, 0, 0, false}, rgb));
    EXPECT_FALSE(source.render({view::Colouring::Mod, 5, 0, 17, 0, false}, rgb));
    EXPECT_FALSE(source.render({view::Colouring::Mod, 5, 0, 0, 1, false}, rgb));
    EXPECT_FALSE(source.render({view::Colouring::Mod, 5, 0, -1, 0, false}, rgb));
    EXPECT_EQ(source.value(4199, 39), reference().at(4199, 39));
}

}  // namespace
}  // namespace grundy::testing
