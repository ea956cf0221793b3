// The two streams of the analysis. Column bands feed verify, whose report names the first wrong
// cell in column order. Row bands feed periodicity, P-positions and properties together: the
// periodicity criterion needs whole rows, and the others need nothing that rows cannot give
// with per-column state, so one decompression of each chunk serves all three.
#include "analysis/bands.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

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
    // One cache line more than a row: the column and diagonal checks walk down the band, and
    // rows a power of two apart would all fall into the same few cache sets.
    const uint64_t stride = cols + 16;
    // Huge pages where the system gives them on request: a walk down the band touches one
    // 4 KiB page per row otherwise.
    constexpr size_t kHuge = size_t{2} << 20;
    const size_t bytes = (height * stride * sizeof(uint32_t) + kHuge - 1) / kHuge * kHuge;
    const std::unique_ptr<void, decltype(&std::free)> memory(std::aligned_alloc(kHuge, bytes),
                                                             &std::free);
    if (!memory) throw std::bad_alloc();
    madvise(memory.get(), bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
    uint32_t* buffer = static_cast<uint32_t*>(memory.get());
    for (uint64_t y0 = 0; y0 < rows; y0 += height) {
        const uint64_t h = std::min(height, rows - y0);
        table.read(0, y0, cols, h, buffer, stride);
        const RowBand band{y0, h, rows, cols, stride, buffer};
        // Small bands are not worth a parallel region (a time slice on a busy machine).
#pragma omp parallel num_threads(t) if (h * cols >= 65536)
        {
            const int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic, 4) nowait
            for (uint64_t y = y0; y < y0 + h; ++y)
                for (RowBandPass* p : passes) p->row(band, y, thread);
            for (RowBandPass* p : passes) p->band(band, thread);
        }
        for (RowBandPass* p : passes) p->finish_band(band);
    }
}

}  // namespace grundy::analysis
