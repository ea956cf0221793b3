#include "app/compute_estimate.hpp"

#include <omp.h>

#include <algorithm>
#include <sstream>

#include "app/option_names.hpp"
#include "app/progress.hpp"
#include "view/pyramid.hpp"

namespace grundy::app {

double output_bytes(uint64_t rows, uint64_t cols, const Compression& compression) {
    const double cells = static_cast<double>(rows) * static_cast<double>(cols);
    const double raw = cells * value_bytes(rows, cols);
    if (compression.kind == Compression::Kind::None) return raw;
    if (compression.kind == Compression::Kind::Deflate) return std::min(0.8 * raw, 1.6 * cells);
    return 0.8 * raw;
}

namespace {
// Tiles of whole pyramid blocks: the pyramid is then built without sums over the whole table.
bool whole_blocks(uint32_t tile) {
    return tile % (1u << view::kPyramidBase) == 0;
}
}  // namespace

ComputeMemory compute_memory(uint64_t rows, uint64_t cols, uint32_t tile, int threads, bool output,
                             bool pyramid) {
    return {estimate_state_bytes(rows, cols, tile, threads),
            estimate_compute_bytes(rows, cols, tile, threads, output) +
                (pyramid ? view::pyramid_build_bytes(rows, cols, whole_blocks(tile), true) : 0)};
}

uint64_t largest_fitting_square(uint64_t budget, uint32_t tile, int threads, bool output,
                                bool pyramid) {
    uint64_t (*pyramid_bytes)(uint64_t) = nullptr;
    if (pyramid && whole_blocks(tile))
        pyramid_bytes = [](uint64_t n) { return view::pyramid_build_bytes(n, n, true, true); };
    else if (pyramid)
        pyramid_bytes = [](uint64_t n) { return view::pyramid_build_bytes(n, n, false, true); };
    return largest_square(budget, tile, threads, output, pyramid_bytes);
}

std::string compute_estimate(const EngineOptions& e, const std::string* output, bool pyramid,
                             const Compression& compression, const MemoryBudget& budget) {
    const int workers = e.threads > 0 ? e.threads : omp_get_max_threads();
    const uint32_t tile = e.tile ? e.tile : default_tile(e.rows, e.cols, workers);
    const double rows = static_cast<double>(e.rows), cols = static_cast<double>(e.cols);
    const double state = static_cast<double>(estimate_state_bytes(e.rows, e.cols, tile, workers));
    const double buffers = 2.0 * workers * tile * tile * 4;
    // The rest of estimate_compute_bytes: the program, and with output what writing adds.
    const double bare =
        static_cast<double>(estimate_compute_bytes(e.rows, e.cols, tile, workers, false));
    const double writing =
        output ? static_cast<double>(estimate_compute_bytes(e.rows, e.cols, tile, workers, true)) -
                     bare
               : 0;
    const double all = static_cast<double>(
        compute_memory(e.rows, e.cols, tile, workers, output != nullptr, pyramid).all);
    const double building = all - bare - writing;
    std::ostringstream out;
    out << "a " << e.rows << " x " << e.cols << " table on " << workers << " threads, tile " << tile
        << ":\n"
        << "  windows at their widest  " << human_bytes(state) << "\n"
        << "  tile buffers             " << human_bytes(buffers) << "\n";
    if (output) out << "  chunk buffers and queue  " << human_bytes(writing) << "\n";
    if (pyramid) out << "  pyramid being built      " << human_bytes(building) << "\n";
    out << "  the program              " << human_bytes(bare - state - buffers) << "\n"
        << "  memory in all            " << human_bytes(all) << " of a budget of "
        << human_bytes(static_cast<double>(budget.bytes)) << " ("
        << ArgumentError(budget.source).render(option_name) << "): ";
    if (!budget.bytes || all <= static_cast<double>(budget.bytes)) {
        out << "fits\n";
    } else {
        const uint64_t side =
            largest_fitting_square(budget.bytes, tile, workers, output != nullptr, pyramid);
        out << "refused; the largest square that fits at these settings is " << side << " x "
            << side << "\n";
    }
    if (output) {
        const double raw = rows * cols * value_bytes(e.rows, e.cols);
        out << "  disk: " << *output << " up to "
            << human_bytes(output_bytes(e.rows, e.cols, compression)) << " (" << human_bytes(raw)
            << " of values before compression)";
        // The pyramid file holds its levels as the viewer loads them.
        if (pyramid)
            out << ", its pyramid about "
                << human_bytes(static_cast<double>(view::pyramid_loaded_bytes(e.rows, e.cols)));
        out << "\n";
    }
    return out.str();
}

}  // namespace grundy::app
