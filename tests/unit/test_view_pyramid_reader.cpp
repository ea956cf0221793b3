// The pyramid read from its file as tiles ask for it (io/pyramid_reader.hpp,
// view/pyramid_cache.hpp): the same tiles, byte for byte, as from a pyramid held in memory, at
// every level, at the edges of a table whose sides are no multiples of a block, from several
// threads and through a cache of one page; an opening that reads only a few samples; and a file
// cut short after the opening, which fails the tiles it can no longer read and nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "io/pyramid_reader.hpp"
#include "support/analysis_fixtures.hpp"
#include "support/scratch_dir.hpp"
#include "view/pyramid.hpp"
#include "view/tile_source.hpp"

namespace grundy::testing {
namespace {

// 4104 = 256 x 16 + 8 rows and 9000 = 562.5 x 16 columns: level 4 has 2 x 3 tiles, cut at both
// edges in the middle of a block; levels 5 and 6 above it.
constexpr uint64_t kRows = 4104, kCols = 9000;
constexpr int kTopZoom = -6;

struct Tables {
    ScratchDir dir;
    std::string held = dir / "held.h5", stored = dir / "stored.h5";
    Tables() {
        write_table(held, kRows, kCols);
        std::filesystem::copy_file(held, stored);
        const Hdf5TableReader table(stored);
        io::save_pyramid(view::build_pyramid(table), io::pyramid_path(stored));
    }
};

view::TileSourceOptions options(uint64_t pyramid_cache_bytes) {
    view::TileSourceOptions o;
    o.save_pyramid = false;  // the held table's pyramid stays in memory, never written
    o.pyramid_cache_bytes = pyramid_cache_bytes;
    return o;
}

// Every zoomed-out request the pyramid answers: each level's tiles, each colouring, both ways up.
std::vector<view::TileRequest> pyramid_requests() {
    std::vector<view::TileRequest> out;
    for (int zoom = -view::kPyramidBase; zoom >= kTopZoom; --zoom) {
        const uint64_t span = uint64_t{view::kTileSize} << -zoom;
        for (int64_t ty = 0; uint64_t(ty) * span < kRows; ++ty)
            for (int64_t tx = 0; uint64_t(tx) * span < kCols; ++tx)
                for (const view::Colouring c : {view::Colouring::Mod, view::Colouring::Scaled,
                                                view::Colouring::Diff, view::Colouring::PPos})
                    for (const bool up : {false, true}) out.push_back({c, 7, zoom, tx, ty, up});
    }
    return out;
}

std::vector<std::vector<uint8_t>> render_all(view::TileSource& source,
                                             const std::vector<view::TileRequest>& requests) {
    std::vector<std::vector<uint8_t>> out(requests.size());
    for (size_t i = 0; i < requests.size(); ++i)
        EXPECT_TRUE(source.render(requests[i], out[i])) << i;
    return out;
}

TEST(ViewPyramidReader, TilesFromTheFileEqualThoseOfAPyramidHeldInMemory) {
    const Tables t;
    view::TileSource held(t.held, options(64 << 20));
    ASSERT_EQ(held.pyramid_origin(), "built in memory");
    ASSERT_EQ(held.min_zoom(), kTopZoom);
    const std::vector<view::TileRequest> requests = pyramid_requests();
    ASSERT_EQ(requests.size(), (6u + 2u + 1u) * 8u);
    const std::vector<std::vector<uint8_t>> want = render_all(held, requests);

    // A cache of one page: every other request reads the file again.
    view::TileSource stored(t.stored, options(1));
    ASSERT_EQ(stored.pyramid_origin(), io::pyramid_path(t.stored));
    EXPECT_EQ(render_all(stored, requests), want);
    EXPECT_LE(stored.pyramid_bytes(), uint64_t{view::kTileSize} * view::kTileSize * 16);

    // Four threads at once, each in its own order, through a cache of three pages.
    view::TileSource shared(t.stored, options(3 << 20));
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            std::vector<uint8_t> rgb;
            for (size_t n = 0; n < 3 * requests.size(); ++n) {
                const size_t i = (n * (2 * k + 1) + k) % requests.size();
                if (!shared.render(requests[i], rgb) || rgb != want[i]) ++wrong[k];
            }
        });
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0));
    EXPECT_LE(shared.pyramid_bytes(), uint64_t{3} << 20);
}

TEST(ViewPyramidReader, OpeningReadsOnlySamplesAndTilesReadTheirPage) {
    const Tables t;
    const auto whole = std::filesystem::file_size(io::pyramid_path(t.stored));
    ASSERT_GT(whole, uint64_t{2} << 20);  // 2.6 MiB: far more than the opening may read
    view::TileSource source(t.stored, options(64 << 20));
    // Three blocks of the base level, checked against the table's cells.
    EXPECT_LE(source.pyramid_bytes_read(), 3u * sizeof(view::BlockStats));
    EXPECT_EQ(source.pyramid_bytes(), 0u);
    std::vector<uint8_t> rgb;
    const uint64_t before = source.pyramid_bytes_read();
    // The last tile of level 4: 51 x 1 blocks (9000 / 16 = 562.5 across, 4104 / 16 = 256.5 up).
    ASSERT_TRUE(source.render({view::Colouring::Scaled, 5, -4, 2, 1, false}, rgb));
    EXPECT_EQ(source.pyramid_bytes_read() - before, 51u * 1u * sizeof(view::BlockStats));
    EXPECT_EQ(source.pyramid_bytes(), 51u * sizeof(view::BlockStats));
    // Served again from the cache, whatever the colouring.
    ASSERT_TRUE(source.render({view::Colouring::Mod, 5, -4, 2, 1, true}, rgb));
    EXPECT_EQ(source.pyramid_bytes_read() - before, 51u * sizeof(view::BlockStats));
}

TEST(ViewPyramidReader, AFileCutShortAfterOpeningFailsItsTilesOnly) {
    const Tables t;
    view::TileSource source(t.stored, options(64 << 20));
    std::vector<uint8_t> rgb;
    ASSERT_TRUE(source.render({view::Colouring::Scaled, 5, -5, 0, 0, false}, rgb));
    std::filesystem::resize_file(io::pyramid_path(t.stored), 4096);
    EXPECT_THROW(source.render({view::Colouring::Scaled, 5, -4, 1, 0, false}, rgb), Error);
    // What is cached, and the cells, are still served.
    EXPECT_TRUE(source.render({view::Colouring::Scaled, 5, -5, 0, 0, false}, rgb));
    EXPECT_TRUE(source.render({view::Colouring::Scaled, 5, -2, 0, 0, false}, rgb));
    // Opened again, the file is refused (and the viewer would build the pyramid again).
    const Hdf5TableReader table(t.stored);
    EXPECT_EQ(view::open_pyramid(table), nullptr);
}

TEST(ViewPyramidReader, RefusesWhatItCannotReadInPlace) {
    const Tables t;
    const std::string path = io::pyramid_path(t.stored);
    EXPECT_NE(io::PyramidReader::open(path, kRows, kCols, 6), nullptr);
    EXPECT_EQ(io::PyramidReader::open(path, kRows, kCols, 7), nullptr);  // a level missing
    EXPECT_EQ(io::PyramidReader::open(path, kRows + 1, kCols, 6), nullptr);
    EXPECT_EQ(io::PyramidReader::open(t.dir / "none.pyramid", kRows, kCols, 6), nullptr);
    const auto reader = io::PyramidReader::open(path, kRows, kCols, 6);
    view::BlockStats s;
    EXPECT_THROW(reader->read(6, 140, 0, 2, 1, &s), Error);  // 141 blocks across at level 6
    EXPECT_THROW(reader->read(7, 0, 0, 1, 1, &s), Error);
}

}  // namespace
}  // namespace grundy::testing
