// Hdf5Writer's file and the engine's begin(): the file is created by begin(), which the engine
// runs on a thread of its own beside its own set-up, and a writer removes only a file it
// created (a failed run leaves nothing behind, and nobody else's file is touched).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_writer.hpp"
#include "support/scratch_dir.hpp"

namespace grundy {
namespace {

namespace fs = std::filesystem;
using grundy::testing::ScratchDir;

Hdf5WriterOptions options_for(const std::string& path) {
    Hdf5WriterOptions o;
    o.path = path;
    return o;
}

// An n x n table in tiles of 64.
EngineOptions table_of(uint64_t n) {
    EngineOptions o;
    o.rows = o.cols = n;
    o.tile = 64;
    return o;
}

// What compute_table throws into `sink` for an n x n table ("" and a failure if nothing).
std::string run_error(TileSink& sink, uint64_t n) {
    try {
        compute_table(table_of(n), sink);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "compute_table returned without an error";
    return "";
}

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A sink whose begin() takes a while: no tile may be handed over, nor the sink asked whether
// to stop, before it has returned, and the run waits for it. Records on which thread it began.
class SlowBeginSink final : public TileSink {
  public:
    void begin(const TableShape& shape) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        shape_ = shape;
        begin_thread_ = std::this_thread::get_id();
        begun_.fetch_add(1);
    }
    void consume(const TileView& tile) override {
        if (begun_.load() != 1) early_.fetch_add(1);
        cells_.fetch_add(uint64_t{tile.width} * tile.height);
    }
    void consume_transpose(const TileView& source) override { consume(source); }
    bool stop_requested() const override {
        if (begun_.load() != 1) early_.fetch_add(1);
        return false;
    }

    TableShape shape_;
    std::thread::id begin_thread_;
    std::atomic<int> begun_{0};
    mutable std::atomic<int> early_{0};
    std::atomic<uint64_t> cells_{0};
};

TEST(SinkBegin, ComesOnceBeforeAnyTileIsHandedOverFromAThreadOfItsOwn) {
    SlowBeginSink sink;
    EngineOptions o;
    o.rows = 300;
    o.cols = 200;
    o.tile = 64;
    o.threads = 2;
    const EngineStats stats = compute_table(o, sink);
    EXPECT_EQ(sink.begun_.load(), 1);
    EXPECT_EQ(sink.early_.load(), 0);
    EXPECT_EQ(sink.cells_.load(), stats.cells);
    EXPECT_EQ(sink.shape_.rows, 300u);
    EXPECT_EQ(sink.shape_.cols, 200u);
    EXPECT_EQ(sink.shape_.tile, 64u);
    EXPECT_NE(sink.begin_thread_, std::this_thread::get_id());
}

class FailingBeginSink final : public TileSink {
  public:
    void begin(const TableShape&) override { throw Error("no room for the table"); }
    void consume(const TileView&) override { tiles_.fetch_add(1); }
    std::atomic<int> tiles_{0};
};

TEST(SinkBegin, ItsErrorIsTheRunsAndNoTileReachesTheSink) {
    FailingBeginSink sink;
    EXPECT_EQ(run_error(sink, 256), "no room for the table");
    EXPECT_EQ(sink.tiles_.load(), 0);
}

TEST(Hdf5WriterFile, IsCreatedByBeginAndRemovedUnlessFinished) {
    const ScratchDir dir;
    const std::string path = dir / "t.h5";
    {
        Hdf5Writer writer(options_for(path));
        EXPECT_FALSE(fs::exists(path)) << "the constructor only checks the path";
    }
    EXPECT_FALSE(fs::exists(path));
    {
        Hdf5Writer writer(options_for(path));
        writer.begin(TableShape{64, 64, 64});
        EXPECT_TRUE(fs::exists(path));
    }  // neither finished nor stopped: a failed run
    EXPECT_FALSE(fs::exists(path));
}

TEST(Hdf5WriterFile, AFileMadeAtItsPathMeanwhileIsLeftAlone) {
    const ScratchDir dir;
    const std::string path = dir / "t.h5";
    {
        Hdf5Writer writer(options_for(path));  // no --force: the path was free
        std::ofstream(path) << "another program's file";
        EXPECT_EQ(run_error(writer, 128), "cannot create " + path);
    }
    EXPECT_EQ(contents(path), "another program's file");
}

TEST(Hdf5WriterFile, AFinishedRunKeepsItsFile) {
    const ScratchDir dir;
    const std::string path = dir / "t.h5";
    {
        Hdf5Writer writer(options_for(path));
        const EngineStats stats = compute_table(table_of(128), writer);
        writer.drain();
        writer.finish(stats);
    }
    EXPECT_TRUE(fs::exists(path));
    EXPECT_GT(fs::file_size(path), 0u);
}

}  // namespace
}  // namespace grundy
