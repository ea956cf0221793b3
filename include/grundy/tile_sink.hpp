// Where finished tiles go. The engine never holds the whole table: every tile it finishes is
// handed to a TileSink (the HDF5 writer, an in-memory table, an analysis pass) and forgotten.
#pragma once

#include <cstdint>

namespace grundy {

// A finished rectangle of the table: rows y0..y0+height-1, columns x0..x0+width-1, values in
// row-major order, so g(x0 + i, y0 + j) = values[j * width + i]. Valid only during consume().
struct TileView {
    uint64_t x0 = 0;
    uint64_t y0 = 0;
    uint32_t width = 0;
    uint32_t height = 0;
    const uint32_t* values = nullptr;

    uint32_t at(uint64_t x, uint64_t y) const { return values[(y - y0) * width + (x - x0)]; }
};

struct TableShape {
    uint64_t rows = 0;  // Y: rows 0..Y-1 (the second coordinate, y)
    uint64_t cols = 0;  // X: columns 0..X-1 (the first coordinate, x)
    uint32_t tile = 0;  // side of the engine's square tiles; tiles start at multiples of it
};

class TileSink {
  public:
    virtual ~TileSink() = default;
    // Called once, on a thread of the engine's own, while the workers set up and compute the
    // first tiles (mostly system calls: a file created, its attributes written); it returns
    // before any tile is handed over or stop_requested() is polled. What it throws,
    // compute_table throws, and no tile reaches the sink. A resumed run (EngineOptions::resume)
    // waits for it before reading a stored tile.
    virtual void begin(const TableShape& /*shape*/) {}
    // Called from worker threads, concurrently for tiles of one tile anti-diagonal: must be
    // thread-safe. Each tile is delivered exactly once, after all tiles it depends on.
    virtual void consume(const TileView& tile) = 0;
    // The same for the tile that is the transpose of `source` (a square table's mirrored tile,
    // DESIGN.md 1.2): rows source.x0.., columns source.y0.., source.height wide and
    // source.width high, g(source.y0 + j, source.x0 + i) = source.values[j * source.width + i].
    // By default the transpose is made and handed to consume(); a sink that can read `source`
    // in place (the HDF5 writer, the pyramid) spares that copy, and one that reads no values
    // (NullSink) does nothing.
    virtual void consume_transpose(const TileView& source);
    // A square table's tile and its mirror together (the engine's call for every mirrored
    // tile of a square table): by default consume(tile), then consume_transpose(tile). A sink
    // that reads both from one pass over the values (the pyramid) overrides it.
    virtual void consume_with_transpose(const TileView& tile);
    // True once the sink cannot store more tiles (its disk is full): the engine then stops
    // after the tiles in flight, as when EngineOptions::cancel is set (EngineStats::cancelled),
    // and the sink says why. Polled before every tile once begin() has returned, from any
    // thread.
    virtual bool stop_requested() const { return false; }
};

// Tiles an earlier, stopped run already stored (grundy compute --resume). compute_table takes
// the largest set of them that a run could have finished (closed under the schedule's
// dependencies), puts their values back into its sets instead of computing them, and computes
// only the others; the tiles taken over are not handed to the sink again.
class StoredTiles {
  public:
    virtual ~StoredTiles() = default;
    // Whether the tile of the engine's grid with corner (x0, y0) is stored whole. Called from
    // the calling thread before any read_tile.
    virtual bool has_tile(uint64_t x0, uint64_t y0) const = 0;
    // Reads that tile, rows y0..y0+height-1 and columns x0..x0+width-1, into `values`
    // (row-major). Called from worker threads, concurrently: must be thread-safe. Throws
    // grundy::Error when the tile cannot be read or decoded.
    virtual void read_tile(uint64_t x0, uint64_t y0, uint32_t width, uint32_t height,
                           uint32_t* values) = 0;
};

// Discards every tile (grundy compute --no-output).
class NullSink final : public TileSink {
  public:
    void consume(const TileView&) override {}
    void consume_transpose(const TileView&) override {}
    void consume_with_transpose(const TileView&) override {}
};

}  // namespace grundy
