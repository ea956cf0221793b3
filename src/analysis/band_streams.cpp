// The two streams of the analysis. Column bands feed verify, whose report names the first wrong
// cell in column order. Row bands feed periodicity, P-positions and properties together: the
// periodicity criterion needs whole rows, and the others need nothing that rows cannot give
// with per-column state, so one decompression of each chunk serves all three.
#include "analysis/band_streams.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <new>
#include <optional>

#include "engine/big_memory.hpp"
#include "grundy/array_analysis.hpp"
#include "grundy/error.hpp"
#include "io/stored_chunks.hpp"

namespace grundy::analysis {

int thread_count(int threads) {
    return threads > 0 ? threads : omp_get_max_threads();
}

uint64_t column_band_width(const Hdf5TableReader& table) {
    // One chunk width, so every chunk is decompressed exactly once; contiguous or very wide
    // chunks fall back to 256 columns to keep the band small.
    const uint64_t width = table.chunk_cols();
    return width == 0 || width > 4096 ? std::min<uint64_t>(256, table.cols()) : width;
}

namespace {

// Feeds every band of columns of one width, left to right, to every pass until all are
// finished; `read(x0, w, out)` fills rows 0..rows-1, columns x0..x0+w-1 row-major.
template <class Read>
void column_bands(uint64_t rows, uint64_t cols, uint64_t width,
                  std::span<ColumnBandPass* const> passes, Read read) {
    std::vector<uint32_t> buffer;
    for (uint64_t x0 = 0; x0 < cols; x0 += width) {
        if (std::all_of(passes.begin(), passes.end(),
                        [](const ColumnBandPass* p) { return p->finished(); }))
            return;
        const uint64_t w = std::min(width, cols - x0);
        buffer.resize(rows * w);
        read(x0, w, buffer.data());
        const ColumnBand band{x0, w, rows, cols, buffer.data()};
        for (ColumnBandPass* p : passes)
            if (!p->finished()) p->consume(band);
    }
}

// One band through the passes. Every thread of one parallel region takes pieces strictly left
// to right (an atomic counter, not an `omp for`, whose order of handing out is unspecified:
// BandPiece::wait_left relies on it); `prepare(k, piece)` puts piece k's values into the band
// (decodes or copies them) and sets its columns, false if they could not be had. Then the
// rows, band() and finish_band(). False if a piece failed (the passes then saw no rows).
template <class Prepare>
bool run_band(const RowBand& band, uint64_t pieces, std::span<RowBandPass* const> passes,
              int threads, Prepare prepare) {
    std::vector<std::atomic<uint32_t>> done(pieces);
    std::atomic<uint64_t> handed{0};
    std::atomic<bool> damaged{false};
    // Small bands are not worth a parallel region (a time slice on a busy machine).
#pragma omp parallel num_threads(threads) if (band.height * band.cols >= 65536)
    {
        const int thread = omp_get_thread_num();
        for (uint64_t k; (k = handed.fetch_add(1)) < pieces;) {
            BandPiece piece{k, 0, 0, done.data()};
            if (!prepare(k, piece)) damaged.store(true, std::memory_order_relaxed);
            for (RowBandPass* p : passes) p->piece(band, piece, thread);
            done[k].store(1, std::memory_order_release);
            done[k].notify_all();
        }
#pragma omp barrier
        if (!damaged.load(std::memory_order_relaxed)) {
#pragma omp for schedule(dynamic, 4) nowait
            for (uint64_t y = band.y0; y < band.y0 + band.height; ++y)
                for (RowBandPass* p : passes) p->row(band, y, thread);
            for (RowBandPass* p : passes) p->band(band, thread);
        }
    }
    if (damaged) return false;
    for (RowBandPass* p : passes) p->finish_band(band);
    return true;
}

// What both row-band streams start with: the passes begun on the stream's threads, and a band
// buffer of `height` rows (none for an empty table). Its rows are one cache line more than a
// row apart: the column and diagonal checks walk down the band, and rows a power of two apart
// would all fall into the same few cache sets. In 4 KiB pages: on the project's machine the
// first touch of 2 MiB pages costs more (engine/big_memory.hpp) than the walks down the band
// lose to the TLB.
struct RowBandStart {
    int threads = 0;
    uint64_t stride = 0;
    std::optional<engine::SmallPageBlock> memory;
    uint32_t* buffer() const { return static_cast<uint32_t*>(memory->data()); }
};

RowBandStart start_row_bands(std::span<RowBandPass* const> passes, int threads, uint64_t rows,
                             uint64_t cols, uint64_t height) {
    RowBandStart s;
    s.threads = thread_count(threads);
    for (RowBandPass* p : passes) p->begin(s.threads);
    if (rows == 0 || cols == 0) return s;
    s.stride = cols + 16;
    s.memory.emplace(height * s.stride * sizeof(uint32_t));
    return s;
}

}  // namespace

void stream_column_bands(const Hdf5TableReader& table, std::span<ColumnBandPass* const> passes) {
    column_bands(
        table.rows(), table.cols(), column_band_width(table), passes,
        [&](uint64_t x0, uint64_t w, uint32_t* out) { table.read(x0, 0, w, table.rows(), out); });
}

void stream_row_bands(const Hdf5TableReader& table, std::span<RowBandPass* const> passes,
                      int threads) {
    const uint64_t rows = table.rows(), cols = table.cols();
    uint64_t height = table.chunk_rows();
    if (height == 0 || height > 4096) height = std::min<uint64_t>(256, rows);
    const RowBandStart start = start_row_bands(passes, threads, rows, cols, height);
    if (!start.memory) return;
    const int t = start.threads;
    const uint64_t stride = start.stride;
    uint32_t* buffer = start.buffer();
    // Pieces of one chunk width: a chunk is decoded and handed to the passes in one go.
    const bool fetching = table.decodes_chunks();
    uint64_t piece_width = table.chunk_cols();
    if (piece_width == 0 || piece_width > 4096) piece_width = std::min<uint64_t>(256, cols);
    // Two sets of stored chunks: the helper thread fills one while the other is decoded. The
    // helper is the only one to call HDF5 while it runs (the passes never do), and it is
    // joined before the next fetch or when this function leaves, even by an exception.
    StoredChunks stored[2];
    std::future<void> next;
    auto fetch = [&table, rows, cols, height](uint64_t y0, StoredChunks* into) {
        table.fetch(0, y0, cols, std::min(height, rows - y0), *into);
    };
    if (fetching) fetch(0, &stored[0]);
    for (uint64_t y0 = 0, j = 0; y0 < rows; y0 += height, ++j) {
        const uint64_t h = std::min(height, rows - y0);
        const StoredChunks& current = stored[j % 2];
        if (fetching) {
            if (next.valid()) next.get();
            if (y0 + height < rows)
                next = std::async(std::launch::async, fetch, y0 + height, &stored[(j + 1) % 2]);
        } else {
            table.read(0, y0, cols, h, buffer, stride);
        }
        const uint64_t pieces = fetching ? current.size() : (cols + piece_width - 1) / piece_width;
        const RowBand band{y0, h, rows, cols, stride, buffer};
        const bool ok = run_band(band, pieces, passes, t, [&](uint64_t k, BandPiece& piece) {
            if (!fetching) {
                piece.x0 = k * piece_width;
                piece.x1 = std::min(cols, piece.x0 + piece_width);
                return true;
            }
            piece.x0 = current.x_begin(k);
            piece.x1 = current.x_end(k);
            return table.decode(current, k, buffer, stride);
        });
        if (!ok) throw Error("cannot decode a chunk of " + table.path() + " (damaged file?)");
    }
}

uint64_t column_band_width(const TableArray& table) {
    return std::min<uint64_t>(256, std::max<uint64_t>(1, table.cols));
}

void stream_column_bands(const TableArray& table, std::span<ColumnBandPass* const> passes) {
    column_bands(
        table.rows, table.cols, column_band_width(table), passes,
        [&](uint64_t x0, uint64_t w, uint32_t* out) { table.read(x0, 0, w, table.rows, out); });
}

void stream_row_bands(const TableArray& table, std::span<RowBandPass* const> passes, int threads) {
    const uint64_t rows = table.rows, cols = table.cols;
    const uint64_t height = std::min<uint64_t>(256, rows), piece_width = 512;
    const RowBandStart start = start_row_bands(passes, threads, rows, cols, height);
    if (!start.memory) return;
    const int t = start.threads;
    const uint64_t stride = start.stride;
    uint32_t* buffer = start.buffer();
    for (uint64_t y0 = 0; y0 < rows; y0 += height) {
        const uint64_t h = std::min(height, rows - y0);
        const RowBand band{y0, h, rows, cols, stride, buffer};
        // Each piece is copied (and widened to 32 bits) by the thread that hands it to the
        // passes, while it is in that thread's cache, as a file's chunks are decoded.
        run_band(band, (cols + piece_width - 1) / piece_width, passes, t,
                 [&](uint64_t k, BandPiece& piece) {
                     piece.x0 = k * piece_width;
                     piece.x1 = std::min(cols, piece.x0 + piece_width);
                     table.read(piece.x0, y0, piece.x1 - piece.x0, h, buffer + piece.x0, stride);
                     return true;
                 });
    }
}

}  // namespace grundy::analysis
