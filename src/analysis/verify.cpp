// grundy verify: every stored cell against the mex of its options, recomputed from the stored
// values alone. Independent of the engine by construction: its own sets (LineSet windows for
// rows and diagonals, a plain bitset for the current column), its own scan, and a different
// order (column by column, left to right, rows in parallel inside a column).
#include <omp.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <random>

#include "analysis/bands.hpp"
#include "grundy/error.hpp"

namespace grundy {

std::string WrongCell::describe() const {
    return analysis::cat("(", x, ", ", y, ") holds ", found, ", but the mex of its options is ",
                         expected);
}

namespace analysis {
namespace {

constexpr uint64_t kFull = ~uint64_t{0};

// The least value in none of the row set, the diagonal set and the column bitset.
uint64_t mex3(const LineSet& r, const LineSet& d, const uint64_t* c, uint64_t cwords,
              uint64_t cbase) {
    uint64_t w = std::max({r.base(), d.base(), cbase});
    // Where all three are stored words, a tight loop four words at a time: this scan is where
    // verification spends its time.
    const uint64_t fast_end = std::min({r.end(), d.end(), cwords});
    const uint64_t* pr = r.data();
    const uint64_t* pd = d.data();
    const uint64_t rb = r.base(), db = d.base();
    for (; w + 4 <= fast_end; w += 4) {
        const uint64_t a0 = pr[w - rb] | pd[w - db] | c[w];
        const uint64_t a1 = pr[w + 1 - rb] | pd[w + 1 - db] | c[w + 1];
        const uint64_t a2 = pr[w + 2 - rb] | pd[w + 2 - db] | c[w + 2];
        const uint64_t a3 = pr[w + 3 - rb] | pd[w + 3 - db] | c[w + 3];
        if ((a0 & a1 & a2 & a3) != kFull) break;
    }
    for (;; ++w) {
        const uint64_t m = r.word(w) | d.word(w) | (w < cwords ? c[w] : 0);
        if (m != kFull) return 64 * w + static_cast<uint64_t>(std::countr_one(m));
    }
}

}  // namespace

VerifyPass::VerifyPass(uint64_t rows, uint64_t cols, int threads)
    : rows_(rows),
      cols_(cols),
      threads_(thread_count(threads)),
      row_sets_(rows),
      diag_sets_(rows + cols - 1) {}

void VerifyPass::consume(const ColumnBand& b) {
    const uint64_t Y = rows_;
    constexpr uint64_t kBlock = 256;  // rows per work item: interleaved, for balance
    const uint64_t blocks = (Y + kBlock - 1) / kBlock;
    std::optional<WrongCell> found;
#pragma omp parallel num_threads(threads_)
    {
        std::vector<uint64_t> col;
        for (uint64_t x = b.x0; x < b.x0 + b.width; ++x) {
            // Values of column x below row y, as a bitset from 0; a correct column holds
            // values below x + Y only, and larger (wrong) ones are caught at their own cell.
            const uint64_t cwords = (x + Y) / 64 + 2;
            col.assign(cwords, 0);
            uint64_t filled = 0, cbase = 0;
            uint64_t bad_y = std::numeric_limits<uint64_t>::max(), bad_expected = 0;
#pragma omp for schedule(static, 1)
            for (uint64_t blk = 0; blk < blocks; ++blk) {
                if (bad_y != std::numeric_limits<uint64_t>::max()) continue;
                const uint64_t ya = blk * kBlock, yb = std::min(Y, ya + kBlock);
                for (; filled < ya; ++filled) {
                    const uint64_t v = b.at(x, filled);
                    if (v / 64 < cwords) col[v / 64] |= uint64_t{1} << (v % 64);
                }
                for (uint64_t y = ya; y < yb; ++y) {
                    const uint64_t v = b.at(x, y);
                    LineSet& r = row_sets_[y];
                    LineSet& d = diag_sets_[x + Y - 1 - y];
                    while (cbase < cwords && col[cbase] == kFull) ++cbase;
                    const uint64_t m = mex3(r, d, col.data(), cwords, cbase);
                    if (m != v) {
                        bad_y = y;
                        bad_expected = m;
                        break;
                    }
                    r.insert(v);
                    d.insert(v);
                    col[v / 64] |= uint64_t{1} << (v % 64);
                    filled = y + 1;
                }
            }
#pragma omp critical(grundy_verify_found)
            if (bad_y != std::numeric_limits<uint64_t>::max() && (!found || bad_y < found->y))
                found = WrongCell{x, bad_y, b.at(x, bad_y), bad_expected};
#pragma omp barrier
            if (found) break;
#pragma omp single
            diag_sets_[x].release();  // diagonal x - (Y - 1) ends in this column
        }
    }
    if (found) {
        report_.cells_checked = found->x * Y + found->y;
        report_.wrong = found;
        return;
    }
    report_.cells_checked += b.width * Y;
}

}  // namespace analysis

VerifyReport verify_table(const Hdf5TableReader& table, int threads) {
    analysis::VerifyPass pass(table.rows(), table.cols(), threads);
    analysis::ColumnBandPass* passes[] = {&pass};
    analysis::stream_column_bands(table, passes);
    return pass.report();
}

VerifyReport verify_sample(const Hdf5TableReader& table, uint64_t samples, uint64_t seed) {
    const uint64_t X = table.cols(), Y = table.rows();
    std::mt19937_64 rng(seed);
    std::vector<std::pair<uint64_t, uint64_t>> cells(samples);
    for (auto& [x, y] : cells) {
        x = rng() % X;
        y = rng() % Y;
    }
    std::sort(cells.begin(), cells.end());  // so "first wrong" means leftmost, then lowest
    VerifyReport report;
    std::vector<uint32_t> options;
    std::vector<std::pair<uint64_t, uint64_t>> diagonal;
    for (const auto& [x, y] : cells) {
        const uint64_t m = std::min(x, y);
        options.assign(x + y + m, 0);
        if (x > 0) table.read(0, y, x, 1, options.data());
        if (y > 0) table.read(x, 0, 1, y, options.data() + x);
        diagonal.clear();
        for (uint64_t c = 1; c <= m; ++c) diagonal.emplace_back(x - c, y - c);
        if (m > 0) table.read_cells(diagonal, options.data() + x + y);
        // A direct mex: the mex of k values is at most k.
        std::vector<char> seen(options.size() + 1, 0);
        for (uint32_t v : options)
            if (v < seen.size()) seen[v] = 1;
        uint64_t mex = 0;
        while (seen[mex]) ++mex;
        const uint64_t value = table.at(x, y);
        ++report.cells_checked;
        if (value != mex) {
            report.wrong = WrongCell{x, y, value, mex};
            break;
        }
    }
    return report;
}

}  // namespace grundy
