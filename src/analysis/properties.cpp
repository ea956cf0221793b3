// The properties pass: symmetry where the table holds both (x, y) and (y, x); the bounds
// x - 2y <= g <= x + y and y - 2x <= g; no value twice in a row, column or diagonal; row y of
// length X holds every value below X - 2y. One streaming read: rows and diagonals keep LineSet
// windows across bands, a column is whole inside its band, and symmetry compares per-line
// fingerprints (a located cell is then read back to name it).
#include <omp.h>

#include <algorithm>
#include <limits>

#include "analysis/bands.hpp"

namespace grundy {

bool PropertiesReport::ok() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const PropertyCheck& c) { return !c.first_violation; });
}

namespace analysis {
namespace {

std::string cell(uint64_t x, uint64_t y) {
    return cat("(", x, ", ", y, ")");
}

// The first violation in column-major order (leftmost, then lowest) among threads.
struct FirstViolation {
    uint64_t x = std::numeric_limits<uint64_t>::max(), y = 0;
    std::string message;
    void offer(uint64_t cx, uint64_t cy, const std::string& text) {
        if (cx < x || (cx == x && cy < y)) {
            x = cx;
            y = cy;
            message = text;
        }
    }
    bool any() const { return x != std::numeric_limits<uint64_t>::max(); }
};

void merge(FirstViolation& into, const FirstViolation& from) {
    if (from.any()) into.offer(from.x, from.y, from.message);
}

void settle(PropertyCheck& check, const FirstViolation& v) {
    if (v.any() && !check.first_violation) check.first_violation = v.message;
}

}  // namespace

PropertiesPass::PropertiesPass(uint64_t rows, uint64_t cols, int threads)
    : rows_(rows),
      cols_(cols),
      threads_(thread_count(threads)),
      row_sets_(rows),
      diag_sets_(rows + cols - 1),
      row_print_(std::min(rows, cols), 0),
      col_print_(std::min(rows, cols), 0) {}

void PropertiesPass::consume(const ColumnBand& b) {
    const uint64_t Y = rows_, M = std::min(rows_, cols_), x1 = b.x0 + b.width;
    FirstViolation bounds, in_rows, in_cols, in_diags;
    const int64_t rows_signed = static_cast<int64_t>(Y);
#pragma omp parallel num_threads(threads_) if (Y * b.width >= 65536)
    {
        FirstViolation my_bounds, my_rows, my_cols, my_diags;
#pragma omp for schedule(dynamic, 64) nowait
        for (uint64_t y = 0; y < Y; ++y) {
            LineSet& r = row_sets_[y];
            uint64_t print = 0;
            for (uint64_t x = b.x0; x < x1; ++x) {
                const uint64_t v = b.at(x, y);
                const uint64_t lo =
                    std::max<int64_t>({0, static_cast<int64_t>(x) - 2 * static_cast<int64_t>(y),
                                       static_cast<int64_t>(y) - 2 * static_cast<int64_t>(x)});
                if (v < lo || v > x + y) {
                    my_bounds.offer(x, y,
                                    cat(cell(x, y), " holds ", v, ", outside the bounds [", lo,
                                        ", ", x + y, "]"));
                    continue;  // kept out of the sets, which stay small that way
                }
                if (!r.insert(v))
                    my_rows.offer(
                        x, y,
                        cat("value ", v, " twice in row ", y, " (again at ", cell(x, y), ")"));
                if (x > y && x < M) print += cell_hash(x, v);
            }
            if (y < M) row_print_[y] += print;
        }
        // Columns in blocks, each block walked row by row: the band is row-major, and a walk
        // down one column would miss the cache at every cell.
        constexpr uint64_t kColumnBlock = 16;
#pragma omp for schedule(dynamic, 1) nowait
        for (uint64_t xa = b.x0; xa < x1; xa += kColumnBlock) {
            const uint64_t xb = std::min(x1, xa + kColumnBlock);
            // Words cofs .. cofs + stride - 1 per column: values in bounds lie in
            // [x - 2Y, x + Y], so wide tables cost O(Y) per column, not O(x).
            const uint64_t cofs = xa > 2 * Y ? (xa - 2 * Y) / 64 : 0;
            const uint64_t stride = (xb + Y) / 64 + 1 - cofs;
            std::vector<uint64_t> seen(stride * (xb - xa), 0);
            std::vector<uint64_t> print(xb - xa, 0);
            for (uint64_t y = 0; y < Y; ++y) {
                const uint32_t* row = b.values + y * b.width + (xa - b.x0);
                for (uint64_t x = xa; x < xb; ++x) {
                    const uint64_t v = row[x - xa];
                    if (v > x + y || v / 64 < cofs) continue;  // out of bounds: reported so
                    uint64_t& word = seen[(x - xa) * stride + v / 64 - cofs];
                    const uint64_t bit = uint64_t{1} << (v % 64);
                    if (word & bit)
                        my_cols.offer(x, y,
                                      cat("value ", v, " twice in column ", x, " (again at ",
                                          cell(x, y), ")"));
                    word |= bit;
                    if (y > x && y < M) print[x - xa] += cell_hash(y, v);
                }
            }
            for (uint64_t x = xa; x < xb; ++x)
                if (x < M) col_print_[x] += print[x - xa];
        }
        // Diagonal k holds the cells with x - y = k - (Y - 1). Blocks of diagonals, each walked
        // row by row for the same reason; a diagonal belongs to one block, so no set is shared.
        const uint64_t k_begin = b.x0, k_end = x1 + Y - 1;
        const uint64_t k_blocks = 4 * static_cast<uint64_t>(omp_get_num_threads());
        const uint64_t k_step = (k_end - k_begin + k_blocks - 1) / k_blocks;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t ka = k_begin; ka < k_end; ka += k_step) {
            const uint64_t kb = std::min(k_end, ka + k_step);
            for (uint64_t y = 0; y < Y; ++y) {
                // x = k - (Y - 1) + y for k in [ka, kb), clipped to the band.
                const int64_t shift = static_cast<int64_t>(y) - (rows_signed - 1);
                const int64_t lo =
                    std::max<int64_t>(static_cast<int64_t>(b.x0), static_cast<int64_t>(ka) + shift);
                const int64_t hi =
                    std::min<int64_t>(static_cast<int64_t>(x1), static_cast<int64_t>(kb) + shift);
                const uint32_t* row = b.values + y * b.width;
                for (int64_t xs = lo; xs < hi; ++xs) {
                    const uint64_t x = static_cast<uint64_t>(xs);
                    const uint64_t v = row[x - b.x0];
                    if (v > x + y) continue;
                    if (!diag_sets_[x + Y - 1 - y].insert(v))
                        my_diags.offer(
                            x, y,
                            cat("value ", v, " twice on diagonal x - y = ",
                                xs - static_cast<int64_t>(y), " (again at ", cell(x, y), ")"));
                }
            }
        }
#pragma omp critical(grundy_properties_merge)
        {
            merge(bounds, my_bounds);
            merge(in_rows, my_rows);
            merge(in_cols, my_cols);
            merge(in_diags, my_diags);
        }
    }
    // Diagonals that end in this band are done.
    for (uint64_t k = b.x0; k < x1; ++k) diag_sets_[k].release();
    const uint64_t cells = b.width * Y;
    bounds_.checked += cells;
    distinct_rows_.checked += cells;
    distinct_cols_.checked += cells;
    distinct_diags_.checked += cells;
    settle(bounds_, bounds);
    settle(distinct_rows_, in_rows);
    settle(distinct_cols_, in_cols);
    settle(distinct_diags_, in_diags);
}

PropertiesReport PropertiesPass::report() const {
    PropertiesReport report;
    const uint64_t M = std::min(rows_, cols_);
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
    PropertyCheck complete{"rows_complete", rows_, {}};
    for (uint64_t y = 0; y < rows_ && !complete.first_violation; ++y) {
        if (cols_ <= 2 * y) break;  // X - 2y <= 0: nothing is required of this row or later ones
        const uint64_t need = cols_ - 2 * y, mex = row_sets_[y].mex();
        if (mex < need)
            complete.first_violation =
                cat("row ", y, " lacks the value ", mex, " (a row of length ", cols_,
                    " holds every value below ", need, ")");
    }
    report.checks = {symmetry, bounds_, distinct_rows_, distinct_cols_, distinct_diags_, complete};
    return report;
}

}  // namespace analysis

PropertiesReport check_properties(const Hdf5TableReader& table, int threads) {
    analysis::PropertiesPass pass(table.rows(), table.cols(), threads);
    pass.set_table(&table);
    analysis::ColumnBandPass* passes[] = {&pass};
    analysis::stream_column_bands(table, passes);
    return pass.report();
}

}  // namespace grundy
