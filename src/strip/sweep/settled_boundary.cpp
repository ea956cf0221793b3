// SettledBoundary: the settled rows' column and diagonal sets over one period (the header says
// why), built from the certification's ring and copied into the windows of the rows above.
#include "strip/sweep/settled_boundary.hpp"

#include <algorithm>
#include <numeric>

#include "engine/config.hpp"
#include "grundy/error.hpp"
#include "strip/sweep/boundary_bits.hpp"

namespace grundy::strip {

using engine::BitWindow;

namespace {

// Rows whose values are gathered from the ring at a time (a copy of rows x period values).
constexpr uint64_t kRowsPerGather = 32;

}  // namespace

SettledBoundary::SettledBoundary(uint64_t strip_rows, int threads)
    : Y_(strip_rows), threads_(std::max(threads, 1)), words_(boundary_words(strip_rows)) {}

void SettledBoundary::grow_period(uint64_t period) {
    if (period_ == 0) {
        period_ = period;
        column_.assign(period_ * words_, 0);
        diagonal_.assign(period_ * words_, 0);
        return;
    }
    const uint64_t grown = std::lcm(period_, period);
    if (grown == period_) return;
    // The rows already in the tables are period_-periodic: repeat their phases.
    auto repeat = [&](std::vector<uint64_t>& table) {
        std::vector<uint64_t> longer(grown * words_);
        for (uint64_t i = 0; i < grown; ++i)
            std::copy_n(table.begin() + static_cast<int64_t>((i % period_) * words_), words_,
                        longer.begin() + static_cast<int64_t>(i * words_));
        table.swap(longer);
    };
    repeat(column_);
    repeat(diagonal_);
    period_ = grown;
}

void SettledBoundary::extend(const SettledRows& settled, uint64_t next) {
    const uint64_t new_rows = settled.rows, period = settled.period;
    if (new_rows <= rows_ || new_rows > Y_ || period == 0 || settled.length % period != 0 ||
        next < period || settled.stride + settled.first < new_rows)
        throw Error("internal: settled boundary extended without a usable ring");
    grow_period(period);
    if (settled.length % period_ != 0)
        throw Error("internal: settled periods that the ring cannot hold");
    const uint64_t first = next - period;
    std::vector<uint16_t> values;
    for (uint64_t y0 = rows_; y0 < new_rows; y0 += kRowsPerGather) {
        const uint64_t y1 = std::min(new_rows, y0 + kRowsPerGather);
        // Row by row from the rings' columns (each column's rows are contiguous there).
        values.assign((y1 - y0) * period, 0);
        const auto T = static_cast<int64_t>(period);
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (int64_t j = 0; j < T; ++j) {
            const auto u = static_cast<uint64_t>(j);
            // A pointer per ring, then the rows it holds (SettledRows::at).
            const uint64_t split = std::clamp(settled.first, y0, y1);
            const uint16_t* low = split > y0 ? settled.at(first + u, y0) : nullptr;
            for (uint64_t y = y0; y < split; ++y) values[(y - y0) * period + u] = low[y - y0];
            const uint16_t* high = split < y1 ? settled.at(first + u, split) : nullptr;
            for (uint64_t y = split; y < y1; ++y) values[(y - y0) * period + u] = high[y - split];
        }
        add_rows(y0, y1, values, period, first);
    }
    rows_ = new_rows;
}

// Sets the bits of rows y0..y1-1 (values[(y - y0) * period + j]: d of column first + j) in every
// phase of both tables: each table in one pass over its phases with every row inside, so that
// a table (up to a gigabyte) streams through the caches once per call, not once per row, and
// the threads share a table's phases (each writes only its own).
void SettledBoundary::add_rows(uint64_t y0, uint64_t y1, const std::vector<uint16_t>& values,
                               uint64_t period, uint64_t first) {
    const uint64_t T = period_, W = words_;
    const uint64_t j0 = (period - first % period) % period;  // phase 0's column, from first
    const auto phases = static_cast<int64_t>(T);
    // Column phase i: row y's value in column phase i (its j-th value).
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int64_t ii = 0; ii < phases; ++ii) {
        const auto i = static_cast<uint64_t>(ii);
        const uint16_t* d = values.data() + (j0 + i) % period;
        uint64_t* column = column_.data() + i * W;
        for (uint64_t y = y0; y < y1; ++y, d += period) {
            const uint64_t c = *d + 2 * Y_ - 2 * y;  // g - x + 2Y
            column[c / 64] |= uint64_t{1} << (c % 64);
        }
    }
    // Diagonal phase e: cell (x, y) lies on diagonal x - y, so row y's cell on it is in column
    // phase (e + y) mod T, one phase further for each row.
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int64_t ee = 0; ee < phases; ++ee) {
        const auto e = static_cast<uint64_t>(ee);
        uint64_t* diagonal = diagonal_.data() + e * W;
        uint64_t j = (j0 + (e + y0) % T) % period;
        for (uint64_t y = y0; y < y1; ++y) {
            const uint64_t r = values[(y - y0) * period + j] + Y_ - y;  // g - (x - y) + Y
            diagonal[r / 64] |= uint64_t{1} << (r % 64);
            if (++j == period) j = 0;
        }
    }
}

void SettledBoundary::fill_column(BitWindow& col, uint64_t x, uint64_t floor) const {
    col.reset(floor);
    col.reserve_through((x + Y_) / 64 + engine::kScanPadWords);
    if (rows_ == 0) return;
    // Row y's values lie in [x - 2y, x + y]: relative bits 2Y - 2y .. 2Y + y.
    const uint64_t lo = (2 * Y_ - 2 * (rows_ - 1)) / 64, hi = (2 * Y_ + rows_ - 1) / 64;
    or_packed(col, column_.data() + (x % period_) * words_, lo, hi,
              column_bits_first(static_cast<int64_t>(x), Y_));
}

void SettledBoundary::fill_diagonal(BitWindow& dia, uint64_t d, uint64_t floor) const {
    dia.reset(floor);
    dia.reserve_through((d + 3 * Y_) / 64 + engine::kScanPadWords);
    if (rows_ == 0) return;
    // The cell (d + j, j) has a value in [d - j, d + 2j]: relative bits Y - j .. Y + 2j.
    const uint64_t lo = (Y_ - (rows_ - 1)) / 64, hi = (Y_ + 2 * (rows_ - 1)) / 64;
    or_packed(dia, diagonal_.data() + (d % period_) * words_, lo, hi,
              diagonal_bits_first(static_cast<int64_t>(d), Y_));
}

}  // namespace grundy::strip
