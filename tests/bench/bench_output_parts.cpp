// What each part of a run's output costs, without the file: the engine hands its tiles to a
// sink that drops them (as --no-output), to one that encodes every chunk exactly as the HDF5
// writer does (byte planes, the default deflate, Fletcher-32) and keeps nothing, to the
// pyramid's sink in front of one that drops them, or to both. A square table; the engine's
// clock, so that each part's share is its own and not the file's, the writer thread's, or the
// process's start and end (docs/benchmarks.md, "What output and the pyramid cost").
//
// Usage: grundy_bench_output_parts N SINK [THREADS]   SINK: none, encode, pyramid or both
//   -> prints "SINK N seconds"
#include <cstdio>
#include <cstdlib>
#include <string>

#include "grundy/engine.hpp"
#include "grundy/hdf5_writer.hpp"
#include "io/chunk_codec.hpp"
#include "view/pyramid.hpp"

namespace {

// The chunks of the file grundy compute would write (values as wide as value_bytes says, the
// default compression, a chunk per tile, the checksum), encoded on the engine's workers and
// dropped.
class EncodingSink final : public grundy::TileSink {
  public:
    explicit EncodingSink(unsigned value_bytes) : value_bytes_(value_bytes) {}
    void begin(const grundy::TableShape& shape) override { side_ = shape.tile; }
    void consume(const grundy::TileView& tile) override { encode(tile, false); }
    void consume_transpose(const grundy::TileView& source) override { encode(source, true); }

  private:
    void encode(const grundy::TileView& tile, bool transposed) {
        thread_local grundy::io::EncodedChunk chunk;
        grundy::io::encode_chunk(tile, transposed, side_, side_, value_bytes_, compression_, true,
                                 chunk);
    }
    unsigned value_bytes_;
    uint32_t side_ = 0;
    grundy::Compression compression_;
};

}  // namespace

int main(int argc, char** argv) {
    const std::string sink = argc > 2 ? argv[2] : "";
    char* end = nullptr;
    const unsigned long n = argc > 1 ? std::strtoul(argv[1], &end, 10) : 0;
    const bool ok = argc >= 3 && argc <= 4 && *end == 0 && n > 0 && n <= 65536 &&
                    (sink == "none" || sink == "encode" || sink == "pyramid" || sink == "both");
    const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
    if (!ok || threads < 0) {
        std::fprintf(stderr,
                     "usage: grundy_bench_output_parts N none|encode|pyramid|both [THREADS]\n");
        return 2;
    }
    grundy::EngineOptions o;
    o.rows = o.cols = n;
    o.threads = threads;
    grundy::NullSink none;
    EncodingSink encode(grundy::value_bytes(n, n));
    grundy::view::PyramidSink pyramid(none), both(encode);
    grundy::TileSink* target = &none;
    if (sink == "encode") target = &encode;
    if (sink == "pyramid") target = &pyramid;
    if (sink == "both") target = &both;
    const grundy::EngineStats stats = grundy::compute_table(o, *target);
    std::printf("%s %lu %.3f\n", sink.c_str(), n, stats.seconds);
    return 0;
}
