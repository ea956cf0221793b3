// The properties pass: symmetry where the table holds both (x, y) and (y, x); the bounds
// x - 2y <= g <= x + y and y - 2x <= g; no value twice in a row, column or diagonal; row y of
// length X holds every value below X - 2y. Rides on the row-band stream: a row is whole inside
// its band (one bitset per thread), columns and diagonals keep bitsets across bands, sized by
// the bounds, and symmetry compares per-line fingerprints (a located cell is then read back to
// name it). The column and diagonal checks are properties_lines.cpp's.
//
// What each set takes in is fixed, so the first violation of each check (leftmost, then lowest)
// is what it was when these checks streamed column bands: rows take in-bounds values only,
// columns values up to x + y from their window start on, diagonals every value up to x + y.
#include "analysis/message.hpp"
#include "analysis/passes.hpp"
#include "analysis/properties_sets.hpp"
#include "base/simd_clones.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <limits>

namespace grundy {

bool PropertiesReport::ok() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const PropertyCheck& c) { return !c.first_violation; });
}

namespace analysis {
namespace {

inline void set_bit(uint64_t* bits, uint64_t v) {
    bits[v / 64] |= uint64_t{1} << (v % 64);
}

// bits |= odd and odd emptied (for the next row), over n words; returns the values in the
// union.
GRUNDY_SIMD_CLONES uint64_t merge_and_count(uint64_t* bits, uint64_t* odd, uint64_t n) {
    uint64_t count = 0;
    for (uint64_t w = 0; w < n; ++w) {
        bits[w] |= odd[w];
        odd[w] = 0;
        count += static_cast<uint64_t>(std::popcount(bits[w]));
    }
    return count;
}

// Whether every value of row y from column x0 to x1 - 1 lies in its bounds
// [max(0, x - 2y, y - 2x), x + y]; no branch per cell, so the compiler vectorises it. Only for
// x1 + y < kNarrow.
GRUNDY_SIMD_CLONES bool row_in_bounds(const uint32_t* row, uint64_t x0, uint64_t x1, uint64_t y) {
    const int32_t ys = static_cast<int32_t>(y);
    const uint32_t end = static_cast<uint32_t>(x1);  // a 32-bit counter, or no vectorising
    uint32_t bad = 0;
    for (uint32_t x = static_cast<uint32_t>(x0); x < end; ++x) {
        const int32_t xs = static_cast<int32_t>(x);
        const uint32_t lo = static_cast<uint32_t>(std::max(std::max(0, xs - 2 * ys), ys - 2 * xs));
        const uint32_t v = row[x];
        bad |= (v < lo) | (v > x + static_cast<uint32_t>(y));
    }
    return bad == 0;
}

// Sum of weight[x] * row[x] over [x0, x1) (vectorised too).
GRUNDY_SIMD_CLONES uint64_t weighted_sum(const uint32_t* row, const uint64_t* weight, uint64_t x0,
                                         uint64_t x1) {
    uint64_t sum = 0;
    for (uint64_t x = x0; x < x1; ++x) sum += weight[x] * row[x];
    return sum;
}

}  // namespace

// properties_sets.hpp: shared with the column and diagonal checks.
GRUNDY_SIMD_CLONES uint32_t outside(const uint32_t* values, uint32_t top, const uint32_t* low,
                                    uint32_t n) {
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) bad |= (values[i] > top + i) | (values[i] < low[i]);
    return bad;
}

// Column x's bitset starts at the word the column-band stream gave it (its band's 16-column
// block start, less 2Y): values below it were never checked for repeats there, and the checks
// must report the same first violations.
static uint64_t column_window_start(uint64_t x, uint64_t rows, uint64_t band_width) {
    const uint64_t x0 = x / band_width * band_width;
    const uint64_t xa = x0 + (x - x0) / kColumnBlock * kColumnBlock;
    return xa > 2 * rows ? (xa - 2 * rows) / 64 : 0;
}

PropertiesPass::PropertiesPass(uint64_t rows, uint64_t cols, uint64_t column_band_width,
                               bool by_symmetry)
    : rows_(rows),
      cols_(cols),
      M_(std::min(rows, cols)),
      by_symmetry_(by_symmetry && rows <= cols),
      col_first_(cols),
      col_offset_(cols + 1),
      diagonals_(rows + cols > 0 ? rows + cols - 1 : 0),
      row_mex_(rows, 0),
      weight_(M_),
      row_print_(M_, 0),
      col_print_(M_, 0) {
    for (uint64_t m = 0; m < M_; ++m) {
        // splitmix64 of m, made odd.
        uint64_t z = (m + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        weight_[m] = (z ^ (z >> 31)) | 1;
    }
    // Column x holds values up to x + Y - 1 by the bounds: O(Y) words per column, O(x) only
    // while x < 2Y. None for the columns left to symmetry.
    for (uint64_t x = 0; x < cols; ++x) {
        col_first_[x] = column_window_start(x, rows, std::max<uint64_t>(1, column_band_width));
        const bool set = rows > 0 && !(by_symmetry_ && x < rows);
        col_offset_[x + 1] = col_offset_[x] + (set ? (x + rows - 1) / 64 + 1 - col_first_[x] : 0);
    }
    // Huge pages: the column checks walk 50 MB of sets at random on a 16384^2 table.
    col_bits_ = base::huge_array<uint64_t>(col_offset_[cols]);
    std::fill_n(col_bits_.get(), col_offset_[cols], 0);
}

PropertiesPass::~PropertiesPass() = default;

void PropertiesPass::begin(int threads) {
    slots_.clear();
    slots_.resize(static_cast<size_t>(threads));
    for (Slot& s : slots_) {
        s.row_bits.assign((cols_ + rows_) / 64 + 1, 0);
        s.odd_bits.assign(s.row_bits.size(), 0);
    }
}

void PropertiesPass::row(const RowBand& band, uint64_t y, int thread) {
    Slot& slot = slots_[static_cast<size_t>(thread)];
    const uint32_t* row = band.row(y);
    uint64_t* bits = slot.row_bits.data();
    const uint64_t X = cols_;
    const int64_t ys = static_cast<int64_t>(y);
    bool bounds_found = false, repeat_found = false;  // later ones in this row cannot be first
    uint64_t print = 0;
    const uint64_t* weight = weight_.data();
    auto scan = [&](uint64_t begin, uint64_t end, auto hash) {
        for (uint64_t x = begin; x < end; ++x) {
            const uint64_t v = row[x];
            const int64_t xs = static_cast<int64_t>(x);
            const uint64_t lo =
                static_cast<uint64_t>(std::max<int64_t>({0, xs - 2 * ys, ys - 2 * xs}));
            if (v < lo || v > x + y) [[unlikely]] {
                if (!bounds_found)
                    slot.bounds.offer(x, y,
                                      cat(cell(x, y), " holds ", v, ", outside the bounds [", lo,
                                          ", ", x + y, "]"));
                bounds_found = true;
                continue;  // kept out of the set, which stays small that way
            }
            if (seen_before(bits, 0, v)) [[unlikely]] {
                if (!repeat_found)
                    slot.rows.offer(
                        x, y,
                        cat("value ", v, " twice in row ", y, " (again at ", cell(x, y), ")"));
                repeat_found = true;
            }
            if constexpr (decltype(hash)::value) print += weight[x] * v;
        }
    };
    // Only cells right of the diagonal and left of column M enter row y's fingerprint.
    const uint64_t a = std::min(X, y + 1), b = std::max(a, std::min(X, M_));
    if (X + y < kNarrow && row_in_bounds(row, 0, X, y)) {
        // Every cell in bounds (so every one enters the set and the fingerprint): the checks
        // that need no branch per cell first, then the set alone.
        print = weighted_sum(row, weight, a, b);
        // Even cells into one set, odd ones into another: two independent chains of
        // read-modify-writes where one set makes a single chain, measurably faster. The bits
        // are set blind (one OR into memory a cell) and counted afterwards: the X cells are
        // all different exactly when their union holds X values.
        uint64_t* odd = slot.odd_bits.data();
        const uint64_t n = slot.row_bits.size();
        uint64_t x = 0;
        for (; x + 2 <= X; x += 2) {
            set_bit(bits, row[x]);
            set_bit(odd, row[x + 1]);
        }
        if (x < X) set_bit(bits, row[x]);
        const bool clash = merge_and_count(bits, odd, n) != X;
        if (clash) [[unlikely]] {  // the first repeat, named: the set again, cell by cell
            std::fill_n(bits, n, 0);
            for (x = 0; x < X; ++x)
                if (seen_before(bits, 0, row[x])) [[unlikely]] {
                    if (!repeat_found)
                        slot.rows.offer(x, y,
                                        cat("value ", row[x], " twice in row ", y, " (again at ",
                                            cell(x, y), ")"));
                    repeat_found = true;  // the set goes on: the row's mex is read from it
                }
        }
    } else {
        scan(0, a, std::false_type{});
        scan(a, b, std::true_type{});
        scan(b, X, std::false_type{});
    }
    if (y < M_) row_print_[y] = print;
    if (X > 2 * y) {
        uint64_t w = 0;
        while (bits[w] == ~uint64_t{0}) ++w;
        row_mex_[y] = 64 * w + static_cast<uint64_t>(std::countr_one(bits[w]));
    }
    std::fill_n(bits, slot.row_bits.size(), 0);
}

void PropertiesPass::finish_band(const RowBand& b) {
    const uint64_t Y = rows_, X = cols_, y1 = b.y0 + b.height;
    // Diagonals whose last cell is in this band are done: x - y = d ends at row
    // min(Y - 1, X - 1 - d).
    for (uint64_t k = Y - y1; k < X + Y - 1 - b.y0; ++k) {
        Diagonal& d = diagonals_[k];
        if (!d.bits && d.low.empty()) continue;
        const int64_t dd = static_cast<int64_t>(k) - static_cast<int64_t>(Y - 1);
        const int64_t last =
            std::min<int64_t>(static_cast<int64_t>(Y) - 1, static_cast<int64_t>(X) - 1 - dd);
        if (last < static_cast<int64_t>(y1)) {
            d.bits.reset();
            std::vector<uint64_t>().swap(d.low);
        }
    }
    const uint64_t cells = b.height * X;
    bounds_.checked += cells;
    distinct_rows_.checked += cells;
    distinct_cols_.checked += cells;
    distinct_diags_.checked += cells;
}

PropertiesReport PropertiesPass::report() const {
    PropertiesReport report;
    const uint64_t M = M_;
    PropertyCheck symmetry{"symmetry", M * (M - 1) / 2, {}};
    for (uint64_t m = 0; m < M && !symmetry.first_violation; ++m) {
        if (row_print_[m] == col_print_[m]) continue;
        symmetry.first_violation = cat("row ", m, " and column ", m, " differ");
        if (!table_ || m + 1 >= M) continue;
        std::vector<uint32_t> row(M - m - 1), column(M - m - 1);
        table_->read(m + 1, m, M - m - 1, 1, row.data());
        table_->read(m, m + 1, 1, M - m - 1, column.data());
        for (uint64_t i = 0; i < row.size(); ++i)
            if (row[i] != column[i]) {
                symmetry.first_violation = cat(cell(m + 1 + i, m), " holds ", row[i], " but ",
                                               cell(m, m + 1 + i), " holds ", column[i]);
                break;
            }
    }
    FirstViolation bounds, rows, cols, diags;
    for (const Slot& s : slots_) {
        bounds.merge(s.bounds);
        rows.merge(s.rows);
        cols.merge(s.cols);
        diags.merge(s.diags);
    }
    PropertyCheck b = bounds_, r = distinct_rows_, c = distinct_cols_, d = distinct_diags_;
    if (bounds.any()) b.first_violation = bounds.message;
    if (rows.any()) r.first_violation = rows.message;
    if (cols.any()) c.first_violation = cols.message;
    if (diags.any()) d.first_violation = diags.message;
    PropertyCheck complete{"rows_complete", rows_, {}};
    for (uint64_t y = 0; y < rows_ && !complete.first_violation; ++y) {
        if (cols_ <= 2 * y) break;  // X - 2y <= 0: nothing is required of this row or later ones
        const uint64_t need = cols_ - 2 * y, mex = row_mex_[y];
        if (mex < need)
            complete.first_violation =
                cat("row ", y, " lacks the value ", mex, " (a row of length ", cols_,
                    " holds every value below ", need, ")");
    }
    report.checks = {symmetry, b, r, c, d, complete};
    report.method =
        by_symmetry_
            ? "columns x < rows and diagonals x < y by symmetry (their cells mirror row x and "
              "diagonal y - x), the other sets checked"
            : "every row, column and diagonal set checked";
    return report;
}

}  // namespace analysis

namespace analysis {

PropertiesReport check_properties(const TableSource& table, int threads, bool by_symmetry) {
    PropertiesPass pass(table.rows(), table.cols(), table.band_cols(), by_symmetry);
    pass.set_table(&table);
    RowBandPass* passes[] = {&pass};
    stream_row_bands(table, passes, threads);
    return properties_report(pass, table, threads);
}

PropertiesReport properties_report(const PropertiesPass& pass, const TableSource& table,
                                   int threads) {
    PropertiesReport report = pass.report();
    if (pass.by_symmetry() && !report.ok()) return check_properties(table, threads, false);
    return report;
}

}  // namespace analysis

PropertiesReport check_properties(const TableSource& table, int threads) {
    analysis::check_pass_memory(table, &AnalysisOptions::properties);
    return analysis::check_properties(table, threads, true);
}

}  // namespace grundy
