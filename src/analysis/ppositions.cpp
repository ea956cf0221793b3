// The P-positions pass: the zeros of the table against (a_n, a_n + n) and (a_n + n, a_n), with
// a_n = floor(n * phi) computed exactly (grundy::wythoff_a, shared with the player). Floating-point
// phi goes wrong for large n; 128-bit integers do not.
#include <algorithm>
#include <cmath>

#include "analysis/bands.hpp"
#include "grundy/play.hpp"

namespace grundy {

namespace analysis {
namespace {

// The least n with a_n + shift * n >= v (a_n and b_n = a_n + n both increase with n), from a
// floating estimate corrected exactly: each band then costs O(width), even for very wide tables.
uint64_t first_n_at_least(uint64_t v, uint64_t shift) {
    const long double ratio = 1.6180339887498948482L + static_cast<long double>(shift);
    uint64_t n = static_cast<uint64_t>(static_cast<long double>(v) / ratio);
    n = n > 2 ? n - 2 : 0;
    auto f = [shift](uint64_t k) { return wythoff_a(k) + shift * k; };
    while (n > 0 && f(n - 1) >= v) --n;
    while (f(n) < v) ++n;
    return n;
}

}  // namespace

PPositionPass::PPositionPass(uint64_t rows, uint64_t cols) : rows_(rows), cols_(cols) {}

void PPositionPass::consume(const ColumnBand& b) {
    const uint64_t x1 = b.x0 + b.width;
    // partner[x - x0]: the row of the one P-position in column x (a_n and b_n partition the
    // positive integers; column 0 has (0, 0)).
    std::vector<uint64_t> partner(b.width, 0);
    for (uint64_t n = first_n_at_least(b.x0, 0);; ++n) {  // columns x = a_n, row b_n
        const uint64_t a = wythoff_a(n);
        if (a >= x1) break;
        partner[a - b.x0] = a + n;
    }
    for (uint64_t n = first_n_at_least(b.x0, 1);; ++n) {  // columns x = b_n, row a_n
        const uint64_t a = wythoff_a(n);
        if (a + n >= x1) break;
        if (n > 0 && a + n >= b.x0) partner[a + n - b.x0] = a;
    }
    for (uint64_t x = b.x0; x < x1; ++x)
        if (partner[x - b.x0] < rows_) ++report_.expected;
    // Row by row for the cache; the first disagreement is still the leftmost, then lowest.
    uint64_t bad_x = x1, bad_y = 0;
    for (uint64_t y = 0; y < rows_; ++y) {
        const uint32_t* row = b.values + y * b.width;
        for (uint64_t i = 0; i < b.width; ++i) {
            const bool zero = row[i] == 0;
            report_.zeros += zero;
            if (zero != (partner[i] == y) && b.x0 + i < bad_x) {
                bad_x = b.x0 + i;
                bad_y = y;
            }
        }
    }
    if (bad_x < x1 && !report_.first_disagreement) {
        const uint32_t v = b.at(bad_x, bad_y);
        report_.first_disagreement =
            v == 0 ? cat("(", bad_x, ", ", bad_y, ") holds 0 but is not a P-position")
                   : cat("(", bad_x, ", ", bad_y, ") is a P-position but holds ", v);
    }
}

PPositionReport PPositionPass::report() const {
    return report_;
}

}  // namespace analysis

PPositionReport check_ppositions(const Hdf5TableReader& table, int /*threads*/) {
    analysis::PPositionPass pass(table.rows(), table.cols());
    analysis::ColumnBandPass* passes[] = {&pass};
    analysis::stream_column_bands(table, passes);
    return pass.report();
}

}  // namespace grundy
