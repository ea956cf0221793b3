// grundy verify: every stored cell against the mex of its options, recomputed from the stored
// values alone. Independent of the engine by construction: its own sets (LineSet windows for
// rows and diagonals, a plain bitset for the current column), its own scan, and a different
// order (column by column, left to right, rows in parallel inside a column).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <random>
#include <thread>

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

// Threads own contiguous ranges of rows and sweep the band column by column as a pipeline:
// thread t may check column x once thread t - 1 has finished column x - 1. That is all a cell
// needs: its row set is the thread's own, its column is read from the stored band, and a
// diagonal passes through lower rows (lower threads) in earlier columns. Diagonals cross from
// one thread to the next in column order, so no set is ever touched by two threads at once,
// and there is no barrier per column (which costs a time slice each on a busy machine).
void VerifyPass::consume(const ColumnBand& b) {
    const uint64_t Y = rows_, x1 = b.x0 + b.width;
    const uint64_t T = std::max<uint64_t>(1, std::min<uint64_t>(threads_, Y / 64 + 1));
    // Row ranges of equal work: a row's cost grows with y (its windows are about 3y wide).
    std::vector<uint64_t> bounds{0};
    {
        const double total = static_cast<double>(Y) * (static_cast<double>(Y) / 2 + 64);
        uint64_t y = 0;
        double acc = 0;
        for (uint64_t t = 1; t < T; ++t) {
            while (y < Y && acc < total * static_cast<double>(t) / static_cast<double>(T))
                acc += static_cast<double>(y++) + 64;
            bounds.push_back(y);
        }
        bounds.push_back(Y);
    }
    // done[t]: columns of this band thread t has finished (x0 + done[t] is its next column).
    std::vector<std::atomic<uint64_t>> done(T);
    for (auto& d : done) d.store(0);
    std::atomic<uint64_t> stop{x1};  // columns > stop need no checking: a wrong cell is in stop
    std::optional<WrongCell> found;
#pragma omp parallel num_threads(static_cast <int>(T))
    {
        const uint64_t t = static_cast<uint64_t>(omp_get_thread_num());
        const uint64_t ya = bounds[t], yb = bounds[t + 1];
        std::vector<uint64_t> col;
        std::optional<WrongCell> mine;
        for (uint64_t x = b.x0; x < x1 && x <= stop.load(); ++x) {
            if (t > 0)
                while (done[t - 1].load(std::memory_order_acquire) < x - b.x0)
                    std::this_thread::yield();
            // Values of column x below the current row, as a bitset from 0. A correct column
            // holds values below x + Y only; larger (wrong) ones are caught at their own cell.
            const uint64_t cwords = (x + Y) / 64 + 2;
            col.assign(cwords, 0);
            for (uint64_t y = 0; y < ya; ++y) {
                const uint64_t v = b.at(x, y);
                if (v / 64 < cwords) col[v / 64] |= uint64_t{1} << (v % 64);
            }
            uint64_t cbase = 0;
            for (uint64_t y = ya; y < yb; ++y) {
                const uint64_t v = b.at(x, y);
                LineSet& r = row_sets_[y];
                LineSet& d = diag_sets_[x + Y - 1 - y];
                while (cbase < cwords && col[cbase] == kFull) ++cbase;
                const uint64_t m = mex3(r, d, col.data(), cwords, cbase);
                if (m != v) {
                    mine = WrongCell{x, y, v, m};
                    break;
                }
                r.insert(v);
                d.insert(v);
                col[v / 64] |= uint64_t{1} << (v % 64);
            }
            if (mine) {
                uint64_t s = stop.load();
                while (x < s && !stop.compare_exchange_weak(s, x)) {
                }
            }
            // Counted as done even after a wrong cell, so the next thread can reach column x.
            done[t].store(x - b.x0 + 1, std::memory_order_release);
            if (mine) break;
        }
        // Let a waiting successor run out too.
        done[t].store(b.width, std::memory_order_release);
#pragma omp critical(grundy_verify_found)
        if (mine && (!found || mine->x < found->x || (mine->x == found->x && mine->y < found->y)))
            found = mine;
    }
    if (found) {
        report_.cells_checked = found->x * Y + found->y;
        report_.wrong = found;
        return;
    }
    for (uint64_t x = b.x0; x < x1; ++x) diag_sets_[x].release();  // diagonals ending here
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
