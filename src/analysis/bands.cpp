// The column-band stream shared by verify, P-positions and properties: one read of the file
// feeds every pass, band by band, so a full analysis decompresses each chunk once.
#include "analysis/bands.hpp"

#include <omp.h>

#include <algorithm>

namespace grundy::analysis {

int thread_count(int threads) {
    return threads > 0 ? threads : omp_get_max_threads();
}

void stream_column_bands(const Hdf5TableReader& table, std::span<ColumnBandPass* const> passes) {
    const uint64_t rows = table.rows(), cols = table.cols();
    // One chunk width, so every chunk is decompressed exactly once; contiguous or very wide
    // chunks fall back to 256 columns to keep the band small.
    uint64_t width = table.chunk_cols();
    if (width == 0 || width > 4096) width = std::min<uint64_t>(256, cols);
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

}  // namespace grundy::analysis
