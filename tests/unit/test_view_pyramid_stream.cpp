// The pyramid written while the table is computed (view/pyramid_stream.hpp,
// io::PyramidFileWriter): rows reach the file before the run ends, the finished file holds the
// same blocks, bit for bit, as a pyramid built whole and saved, at every level and whatever the
// tiles, and a run that never finishes leaves no file behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/memory_table.hpp"
#include "support/scratch_dir.hpp"
#include "view/base_pages.hpp"
#include "view/pyramid.hpp"

namespace grundy::testing {
namespace {

// Passes the tiles on to a table in memory and notes how many tiles had come by when the
// pyramid's sink had first written a row of blocks.
class WatchingSink final : public TileSink {
  public:
    explicit WatchingSink(MemoryTable& next) : next_(next) {}
    void watch(const view::PyramidSink* sink) { sink_ = sink; }
    void begin(const TableShape& shape) override { next_.begin(shape); }
    void consume(const TileView& tile) override {
        seen();
        next_.consume(tile);
    }
    void consume_transpose(const TileView& source) override {
        seen();
        next_.consume_transpose(source);
    }
    uint64_t tiles() const { return tiles_.load(); }
    // The tiles come by the first time a row had been written (0: none before the end).
    uint64_t first_written_at() const { return first_.load(); }
    // The most pages of the base level the pyramid's sink held as a tile came.
    uint64_t most_pages_held() const { return most_pages_.load(); }

  private:
    void seen() {
        const uint64_t n = ++tiles_;
        uint64_t none = 0;
        if (sink_ && sink_->rows_written() > 0) first_.compare_exchange_strong(none, n);
        const uint64_t held = sink_ ? sink_->pages_held() : 0;
        uint64_t most = most_pages_.load();
        while (held > most && !most_pages_.compare_exchange_weak(most, held)) {
        }
    }
    MemoryTable& next_;
    const view::PyramidSink* sink_ = nullptr;
    std::atomic<uint64_t> tiles_{0}, first_{0}, most_pages_{0};
};

// A run of rows x cols on two threads, in tiles of `tile` (0: the default).
EngineOptions two_threads(uint64_t rows, uint64_t cols, uint32_t tile) {
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    o.threads = 2;
    o.tile = tile;
    return o;
}

void expect_same_blocks(const view::Pyramid& got, const view::Pyramid& want,
                        const std::string& what) {
    ASSERT_EQ(got.levels.size(), want.levels.size()) << what;
    for (size_t l = 0; l < want.levels.size(); ++l) {
        ASSERT_EQ(got.levels[l].blocks.size(), want.levels[l].blocks.size()) << what;
        for (size_t b = 0; b < want.levels[l].blocks.size(); ++b)
            ASSERT_EQ(std::memcmp(&got.levels[l].blocks[b], &want.levels[l].blocks[b],
                                  sizeof(view::BlockStats)),
                      0)
                << what << ", level " << want.levels[l].level << ", block " << b;
    }
}

// A square table (mirrored tiles) with only the base level, a wide one with levels 4 to 6 whose
// upper rows are made as the rows under them are written, and tiles of 24, which share blocks:
// their rows are written at the end.
TEST(ViewPyramidStream, WrittenAsTheTableIsComputedAndTheSameAsSaved) {
    struct Case {
        uint64_t rows, cols;
        uint32_t tile;
        bool rows_before_the_end;
    };
    for (const Case c :
         {Case{2000, 2000, 64, true}, Case{300, 9000, 64, true}, Case{300, 9000, 24, false}}) {
        const std::string what = std::to_string(c.rows) + " x " + std::to_string(c.cols) +
                                 ", tiles of " + std::to_string(c.tile);
        ScratchDir dir;
        const std::string path = dir / "t.h5.pyramid";
        const EngineOptions o = two_threads(c.rows, c.cols, c.tile);
        MemoryTable table;
        WatchingSink watcher(table);
        view::PyramidSink sink(watcher, path);
        watcher.watch(&sink);
        compute_table(o, sink);
        if (c.rows_before_the_end) {  // rows written with tiles still to come
            EXPECT_GT(watcher.first_written_at(), 0u) << what;
            EXPECT_LT(watcher.first_written_at(), watcher.tiles()) << what;
        } else {
            EXPECT_EQ(watcher.first_written_at(), 0u) << what;
        }
        EXPECT_TRUE(std::filesystem::exists(path + ".tmp")) << what;
        EXPECT_FALSE(std::filesystem::exists(path)) << what;
        const view::Pyramid streamed = sink.finish(2);
        EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << what;
        EXPECT_TRUE(streamed.levels.empty()) << what;  // the levels are in the file only

        view::PyramidBuilder whole(c.rows, c.cols);
        whole.add(0, 0, c.cols, c.rows, table.values().data(), c.cols);
        const view::Pyramid want = whole.finish(2);
        const int top = want.levels.back().level;
        const std::optional<view::Pyramid> read = io::read_pyramid(path, c.rows, c.cols, top);
        ASSERT_TRUE(read.has_value()) << what;
        ASSERT_EQ(read->levels.size(), want.levels.size()) << what;
        if (c.tile % 16 == 0) {
            expect_same_blocks(*read, want, what + ", against the pyramid built whole");
        } else {  // blocks shared by tiles: their sums may add up in another order
            for (size_t l = 0; l < want.levels.size(); ++l)
                for (size_t b = 0; b < want.levels[l].blocks.size(); ++b) {
                    const view::BlockStats &g = read->levels[l].blocks[b],
                                           &w = want.levels[l].blocks[b];
                    ASSERT_EQ(g.sample, w.sample) << what << ", block " << b;
                    ASSERT_NEAR(g.scaled, w.scaled, 1e-5) << what << ", block " << b;
                    ASSERT_NEAR(g.diff, w.diff, 1e-3 * std::max(1.0f, w.diff)) << what;
                    ASSERT_NEAR(g.p_share, w.p_share, 1e-7) << what << ", block " << b;
                }
        }
        const std::string saved = dir / "saved.pyramid";
        io::save_pyramid(*read, saved);
        const std::optional<view::Pyramid> reread = io::read_pyramid(saved, c.rows, c.cols, top);
        ASSERT_TRUE(reread.has_value()) << what;
        expect_same_blocks(*reread, *read, what + ", saved whole");
    }
}

// A square table's mirrors fill blocks of rows whose own tiles come later, but the pages of rows
// written go. At the middle band the pages held are its mirrors in every band below, 16 x 16
// pages of 32 x 32, and the tiles of at most two bands being swept (8 tile rows each on two
// threads; 440 pages seen), where all were held to the end; and the file is the same.
TEST(ViewPyramidStream, HoldsTheBaseOnlyUntilItsRowsAreWritten) {
    ScratchDir dir;
    const std::string path = dir / "t.h5.pyramid";
    const EngineOptions o = two_threads(4096, 4096, 128);  // pages of 8 x 8 blocks, 32 x 32
    MemoryTable table;
    WatchingSink watcher(table);
    view::PyramidSink sink(watcher, path);
    watcher.watch(&sink);
    compute_table(o, sink);
    const uint64_t pages = 32 * 32;
    EXPECT_GT(watcher.most_pages_held(), 16u * 16);
    EXPECT_LE(watcher.most_pages_held(), pages / 4 + 2 * 8 * 32);
    sink.finish(2);
    EXPECT_EQ(sink.pages_held(), 0u);
    view::PyramidBuilder whole(o.rows, o.cols);
    whole.add(0, 0, o.cols, o.rows, table.values().data(), o.cols);
    const view::Pyramid want = whole.finish(2);
    const std::optional<view::Pyramid> read =
        io::read_pyramid(path, o.rows, o.cols, want.levels.back().level);
    ASSERT_TRUE(read.has_value());
    expect_same_blocks(*read, want, "4096 x 4096, tiles of 128");
}

// The pages themselves: blocks where they were written, zeros in pages never made (a run
// stopped early), and only the pages below a row dropped.
TEST(ViewBasePages, RowsFromPagesAndPagesDroppedBelowARow) {
    view::BasePages pages(10, 7, 4);  // 3 x 2 pages, the last column and row of pages cut short
    for (uint64_t by = 0; by < 7; ++by)
        for (uint64_t bx = 0; bx < 10; ++bx)
            if (!(bx >= 4 && bx < 8 && by >= 4))
                pages.span(bx, by).blocks->sample = uint32_t(by * 10 + bx);
    EXPECT_EQ(pages.pages_held(), 5u);
    EXPECT_EQ(pages.span(1, 2).room, 3u);               // to the page's end
    EXPECT_EQ(pages.span(9, 6).room, 1u);               // to the table's
    EXPECT_EQ(pages.span(1, 2).blocks[2].sample, 23u);  // block (3, 2)
    std::vector<view::BlockStats> rows(3 * 10);
    pages.copy_rows(3, 3, rows.data());
    for (uint64_t r = 0; r < 3; ++r)
        for (uint64_t bx = 0; bx < 10; ++bx) {
            const uint64_t by = 3 + r;
            const uint32_t want = bx >= 4 && bx < 8 && by >= 4 ? 0 : uint32_t(by * 10 + bx);
            EXPECT_EQ(rows[r * 10 + bx].sample, want) << bx << ", " << by;
        }
    pages.drop_below(3);  // rows 0..2 written: page row 0 (rows 0..3) still has row 3 to come
    EXPECT_EQ(pages.pages_held(), 5u);
    pages.drop_below(4);
    EXPECT_EQ(pages.pages_held(), 2u);
    pages.drop_below(7);  // the last page row, cut short at row 7
    EXPECT_EQ(pages.pages_held(), 0u);
}

// A run stopped before its end (a signal, a full disk) never finishes its pyramid: the file
// being written goes with the sink, and no pyramid is left that claims to be complete.
TEST(ViewPyramidStream, UnfinishedLeavesNoFile) {
    ScratchDir dir;
    const std::string path = dir / "t.h5.pyramid";
    {
        NullSink discard;
        view::PyramidSink sink(discard, path);
        compute_table(two_threads(1000, 1000, 64), sink);
        EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
    }
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    EXPECT_FALSE(std::filesystem::exists(path));
}

// A pyramid that cannot be made (here: its folder does not exist) stops the run at its start
// with the reason.
TEST(ViewPyramidStream, AFileThatCannotBeMadeStopsTheRunAtOnce) {
    ScratchDir dir;
    NullSink discard;
    view::PyramidSink sink(discard, dir / "missing/t.h5.pyramid");
    EXPECT_THROW(compute_table(two_threads(300, 300, 0), sink), Error);
}

}  // namespace
}  // namespace grundy::testing
