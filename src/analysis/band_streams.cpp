// The two streams of the analysis. Column bands feed verify, whose report names the first wrong
// cell in column order. Row bands feed periodicity, P-positions and properties together: the
// periodicity criterion needs whole rows, and the others need nothing that rows cannot give
// with per-column state, so one decompression of each chunk serves all three. Both read any
// TableSource: a file and an array take the same path.
#include "analysis/band_streams.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "base/big_memory.hpp"

namespace grundy::analysis {

int thread_count(int threads) {
    return threads > 0 ? threads : omp_get_max_threads();
}

void stream_column_bands(const TableSource& table, std::span<ColumnBandPass* const> passes) {
    const uint64_t rows = table.rows(), cols = table.cols();
    const uint64_t width = std::max<uint64_t>(1, table.band_cols());
    std::vector<uint32_t> buffer;
    for (uint64_t x0 = 0; x0 < cols; x0 += width) {
        if (std::all_of(passes.begin(), passes.end(),
                        [](const ColumnBandPass* p) { return p->finished(); }))
            return;
        const uint64_t w = std::min(width, cols - x0);
        buffer.resize(rows * w);
        table.read(x0, 0, w, rows, buffer.data());
        const ColumnBand band{x0, w, rows, cols, buffer.data()};
        for (ColumnBandPass* p : passes)
            if (!p->finished()) p->consume(band);
    }
}

namespace {

// One band through the passes. Every thread of one parallel region takes pieces strictly left
// to right (an atomic counter, not an `omp for`, whose order of handing out is unspecified:
// BandPiece::wait_left relies on it); the reader puts each piece's values into the band
// (decodes or copies them) and says its columns. Then the rows, band() and finish_band(). An
// exception from a piece cannot leave the parallel region: the first is kept, the passes see
// no rows, and it is thrown once the region is over.
void run_band(const RowBand& band, uint64_t pieces, RowBandReader& reader,
              std::span<RowBandPass* const> passes, int threads) {
    std::vector<std::atomic<uint32_t>> done(pieces);
    std::atomic<uint64_t> handed{0};
    std::atomic<bool> damaged{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    // Small bands are not worth a parallel region (a time slice on a busy machine).
#pragma omp parallel num_threads(threads) if (band.height * band.cols >= 65536)
    {
        const int thread = omp_get_thread_num();
        for (uint64_t k; (k = handed.fetch_add(1)) < pieces;) {
            BandPiece piece{k, 0, 0, done.data()};
            bool read = false;
            try {
                std::tie(piece.x0, piece.x1) = reader.piece(k);
                read = true;
            } catch (...) {
                const std::lock_guard<std::mutex> lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                damaged.store(true, std::memory_order_relaxed);
            }
            if (read)
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
    if (failure) std::rethrow_exception(failure);
    for (RowBandPass* p : passes) p->finish_band(band);
}

}  // namespace

// The band buffer's rows are one cache line more than a row apart: the column and diagonal
// checks walk down the band, and rows a power of two apart would all fall into the same few
// cache sets. In 4 KiB pages: on the project's machine the first touch of 2 MiB pages costs
// more (base/big_memory.hpp) than the walks down the band lose to the TLB.
void stream_row_bands(const TableSource& table, std::span<RowBandPass* const> passes, int threads) {
    const int t = thread_count(threads);
    for (RowBandPass* p : passes) p->begin(t);
    const uint64_t rows = table.rows(), cols = table.cols();
    if (rows == 0 || cols == 0) return;
    const uint64_t height = std::max<uint64_t>(1, table.band_rows());
    const uint64_t stride = cols + 16;
    const base::SmallPageBlock memory(height * stride * sizeof(uint32_t));
    uint32_t* buffer = static_cast<uint32_t*>(memory.data());
    const std::unique_ptr<RowBandReader> reader = table.row_bands();
    for (uint64_t y0 = 0; y0 < rows; y0 += height) {
        const uint64_t h = std::min(height, rows - y0);
        const uint64_t pieces = reader->start(y0, h, buffer, stride);
        run_band(RowBand{y0, h, rows, cols, stride, buffer}, pieces, *reader, passes, t);
    }
}

}  // namespace grundy::analysis
