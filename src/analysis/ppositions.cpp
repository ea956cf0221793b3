// The P-positions pass: the zeros of the table against (a_n, a_n + n) and (a_n + n, a_n), with
// a_n = floor(n * phi) computed exactly (grundy::wythoff_a, shared with the player). Floating-point
// phi goes wrong for large n; 128-bit integers do not. Rides on the row-band stream: each row
// holds exactly one P-position, at a column known in advance.
#include <algorithm>

#include "analysis/message.hpp"
#include "analysis/passes.hpp"
#include "base/simd_clones.hpp"
#include "grundy/play.hpp"

namespace grundy {

namespace analysis {
namespace {

// The zeros among row[0..n) (vectorised; a row has fewer than 2^32 cells).
GRUNDY_SIMD_CLONES uint64_t count_zeros(const uint32_t* row, uint64_t n) {
    uint32_t zeros = 0;
    for (uint64_t x = 0; x < n; ++x) zeros += row[x] == 0;
    return zeros;
}

}  // namespace

PPositionPass::PPositionPass(uint64_t rows, uint64_t cols)
    : rows_(rows), cols_(cols), partner_(rows, UINT64_MAX) {
    // a_n and b_n = a_n + n partition the positive integers, so (a_n, b_n), (b_n, a_n) and
    // (0, 0) give every row and every column exactly one P-position.
    if (rows > 0) partner_[0] = 0;
    if (rows > 0 && cols > 0) expected_ = 1;
    for (uint64_t n = 1;; ++n) {
        const uint64_t a = wythoff_a(n), b = a + n;
        if (a >= rows && a >= cols) break;
        if (a < rows) partner_[a] = b;
        if (b < rows) partner_[b] = a;
        expected_ += (a < cols && b < rows) + (b < cols && a < rows);
    }
}

void PPositionPass::begin(int threads) {
    slots_.assign(static_cast<size_t>(threads), Slot{});
}

void PPositionPass::row(const RowBand& band, uint64_t y, int thread) {
    const uint32_t* row = band.row(y);
    const uint64_t X = cols_, expected_x = partner_[y];
    const uint64_t zeros = count_zeros(row, X);
    Slot& slot = slots_[static_cast<size_t>(thread)];
    slot.zeros += zeros;
    const bool as_expected = expected_x < X ? zeros == 1 && row[expected_x] == 0 : zeros == 0;
    if (as_expected) return;
    // The leftmost disagreement of this row; the report names the leftmost, then lowest.
    for (uint64_t x = 0; x < X; ++x)
        if ((row[x] == 0) != (x == expected_x)) {
            if (x < slot.x || (x == slot.x && y < slot.y)) {
                slot.x = x;
                slot.y = y;
                slot.value = row[x];
            }
            return;
        }
}

PPositionReport PPositionPass::report() const {
    PPositionReport report;
    report.expected = expected_;
    Slot first;
    for (const Slot& s : slots_) {
        report.zeros += s.zeros;
        if (s.x < first.x || (s.x == first.x && s.y < first.y)) first = s;
    }
    if (first.x != UINT64_MAX)
        report.first_disagreement =
            first.value == 0
                ? cat("(", first.x, ", ", first.y, ") holds 0 but is not a P-position")
                : cat("(", first.x, ", ", first.y, ") is a P-position but holds ", first.value);
    return report;
}

}  // namespace analysis

PPositionReport check_ppositions(const TableSource& table, int threads) {
    analysis::check_pass_memory(table, &AnalysisOptions::ppositions);
    analysis::PPositionPass pass(table.rows(), table.cols());
    analysis::RowBandPass* passes[] = {&pass};
    analysis::stream_row_bands(table, passes, threads);
    return pass.report();
}

}  // namespace grundy
