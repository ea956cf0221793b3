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

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/memory_table.hpp"
#include "support/scratch_dir.hpp"
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

  private:
    void seen() {
        const uint64_t n = ++tiles_;
        uint64_t none = 0;
        if (sink_ && sink_->rows_written() > 0) first_.compare_exchange_strong(none, n);
    }
    MemoryTable& next_;
    const view::PyramidSink* sink_ = nullptr;
    std::atomic<uint64_t> tiles_{0}, first_{0};
};

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
        EngineOptions o;
        o.rows = c.rows;
        o.cols = c.cols;
        o.threads = 2;
        o.tile = c.tile;
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

// A run stopped before its end (a signal, a full disk) never finishes its pyramid: the file
// being written goes with the sink, and no pyramid is left that claims to be complete.
TEST(ViewPyramidStream, UnfinishedLeavesNoFile) {
    ScratchDir dir;
    const std::string path = dir / "t.h5.pyramid";
    {
        EngineOptions o;
        o.rows = o.cols = 1000;
        o.threads = 2;
        o.tile = 64;
        NullSink discard;
        view::PyramidSink sink(discard, path);
        compute_table(o, sink);
        EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
    }
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    EXPECT_FALSE(std::filesystem::exists(path));
}

// A pyramid that cannot be made (here: its folder does not exist) stops the run at its start
// with the reason.
TEST(ViewPyramidStream, AFileThatCannotBeMadeStopsTheRunAtOnce) {
    ScratchDir dir;
    EngineOptions o;
    o.rows = o.cols = 300;
    o.threads = 2;
    NullSink discard;
    view::PyramidSink sink(discard, dir / "missing/t.h5.pyramid");
    EXPECT_THROW(compute_table(o, sink), Error);
}

}  // namespace
}  // namespace grundy::testing
