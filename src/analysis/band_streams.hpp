// The two streams the analysis passes read a table by, from any TableSource (a file, memory):
// column bands (all rows x band_cols() columns at a time, left to right) that verify consumes,
// and row bands (band_rows() rows x all columns, bottom up) that periodicity, P-positions and
// properties share.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "grundy/table_source.hpp"

namespace grundy::analysis {

// Rows 0..rows-1, columns x0..x0+width-1: g(x, y) = values[y * width + (x - x0)].
struct ColumnBand {
    uint64_t x0 = 0, width = 0, rows = 0, cols = 0;
    const uint32_t* values = nullptr;
    uint32_t at(uint64_t x, uint64_t y) const { return values[y * width + (x - x0)]; }
};

class ColumnBandPass {
  public:
    virtual ~ColumnBandPass() = default;
    virtual void consume(const ColumnBand& band) = 0;
    // True once the pass needs no more bands (verify stops at the first wrong cell).
    virtual bool finished() const { return false; }
};

// Feeds every band of the table, left to right, to every pass until all are finished.
void stream_column_bands(const TableSource& table, std::span<ColumnBandPass* const> passes);

int thread_count(int threads);

// Rows y0..y0+height-1, all columns: g(x, y) = values[(y - y0) * stride + x]. Whole rows, as
// the periodicity criterion needs them.
struct RowBand {
    uint64_t y0 = 0, height = 0, rows = 0, cols = 0, stride = 0;
    const uint32_t* values = nullptr;
    const uint32_t* row(uint64_t y) const { return values + (y - y0) * stride; }
};

// The columns [x0, x1) of a band, one chunk width: what piece() calls get. The stream hands the
// pieces of a band out left to right, one at a time, to whichever thread asks next.
struct BandPiece {
    uint64_t index = 0, x0 = 0, x1 = 0;
    const std::atomic<uint32_t>* done = nullptr;  // done[i]: every piece() call of piece i returned
    // Waits until the pieces left of this one are done. They were handed out before it, so
    // they are running or done: this cannot deadlock.
    void wait_left() const {
        if (index == 0) return;
        const std::atomic<uint32_t>& flag = done[index - 1];
        while (flag.load(std::memory_order_acquire) == 0) flag.wait(0, std::memory_order_acquire);
    }
};

// A pass over the row-band stream. For each band every thread of one parallel region calls
// piece() for the pieces it is handed, each right after the stream has decoded that piece of
// the band (while it is still in cache); then, once all pieces are in, row() for its share of
// the rows (schedule decided by the stream), then band(), where a pass shares out its other
// work with orphaned `omp for` constructs (every thread makes the same calls); finish_band()
// then runs on one thread. Per-thread state is indexed by `thread`.
class RowBandPass {
  public:
    virtual ~RowBandPass() = default;
    virtual void begin(int /*threads*/) {}
    virtual void piece(const RowBand& /*band*/, const BandPiece& /*piece*/, int /*thread*/) {}
    virtual void row(const RowBand& /*band*/, uint64_t /*y*/, int /*thread*/) {}
    virtual void band(const RowBand& /*band*/, int /*thread*/) {}
    virtual void finish_band(const RowBand& /*band*/) {}
};

// Reads the table once, in bands of band_rows() rows (all columns), bottom up, and feeds every
// band to every pass: one decompression of each chunk of a file for all of them. The band's
// pieces come from the source's RowBandReader (a file's: the next band's chunks fetched on a
// helper thread while the current band is decoded and studied).
void stream_row_bands(const TableSource& table, std::span<RowBandPass* const> passes, int threads);

}  // namespace grundy::analysis
