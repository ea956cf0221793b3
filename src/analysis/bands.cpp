// The two streams of the analysis. Column bands feed verify, whose report names the first wrong
// cell in column order. Row bands feed periodicity, P-positions and properties together: the
// periodicity criterion needs whole rows, and the others need nothing that rows cannot give
// with per-column state, so one decompression of each chunk serves all three.
#include "analysis/bands.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <new>

#include "grundy/error.hpp"

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

void* huge_alloc(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    bytes = std::max<size_t>(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
    void* memory = std::aligned_alloc(kHuge, bytes);
    if (!memory) throw std::bad_alloc();
    madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
    return memory;
}

void stream_column_bands(const Hdf5TableReader& table, std::span<ColumnBandPass* const> passes) {
    const uint64_t rows = table.rows(), cols = table.cols();
    const uint64_t width = column_band_width(table);
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

void stream_row_bands(const Hdf5TableReader& table, std::span<RowBandPass* const> passes,
                      int threads) {
    const uint64_t rows = table.rows(), cols = table.cols();
    uint64_t height = table.chunk_rows();
    if (height == 0 || height > 4096) height = std::min<uint64_t>(256, rows);
    const int t = thread_count(threads);
    for (RowBandPass* p : passes) p->begin(t);
    if (rows == 0 || cols == 0) return;
    // One cache line more than a row: the column and diagonal checks walk down the band, and
    // rows a power of two apart would all fall into the same few cache sets.
    const uint64_t stride = cols + 16;
    // Huge pages: a walk down the band touches one 4 KiB page per row otherwise.
    const HugeArray<uint32_t> memory(
        static_cast<uint32_t*>(huge_alloc(height * stride * sizeof(uint32_t))));
    uint32_t* buffer = memory.get();
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
        std::vector<std::atomic<uint32_t>> done(pieces);
        std::atomic<uint64_t> handed{0};
        std::atomic<bool> damaged{false};
        const RowBand band{y0, h, rows, cols, stride, buffer};
        // Small bands are not worth a parallel region (a time slice on a busy machine).
#pragma omp parallel num_threads(t) if (h * cols >= 65536)
        {
            const int thread = omp_get_thread_num();
            // Pieces strictly left to right (an atomic counter, not an `omp for`, whose order
            // of handing out is unspecified): BandPiece::wait_left relies on it.
            for (uint64_t k; (k = handed.fetch_add(1)) < pieces;) {
                BandPiece piece{k, 0, 0, done.data()};
                if (fetching) {
                    piece.x0 = current.x_begin(k);
                    piece.x1 = current.x_end(k);
                    if (!table.decode(current, k, buffer, stride))
                        damaged.store(true, std::memory_order_relaxed);
                } else {
                    piece.x0 = k * piece_width;
                    piece.x1 = std::min(cols, piece.x0 + piece_width);
                }
                for (RowBandPass* p : passes) p->piece(band, piece, thread);
                done[k].store(1, std::memory_order_release);
                done[k].notify_all();
            }
#pragma omp barrier
            if (!damaged.load(std::memory_order_relaxed)) {
#pragma omp for schedule(dynamic, 4) nowait
                for (uint64_t y = y0; y < y0 + h; ++y)
                    for (RowBandPass* p : passes) p->row(band, y, thread);
                for (RowBandPass* p : passes) p->band(band, thread);
            }
        }
        if (damaged) throw Error("cannot decode a chunk of " + table.path() + " (damaged file?)");
        for (RowBandPass* p : passes) p->finish_band(band);
    }
}

}  // namespace grundy::analysis
