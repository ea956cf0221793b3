// grundy verify: every stored cell against the mex of its options, recomputed from the stored
// values alone. Independent of the engine by construction: its own sets (LineSet windows for
// rows and diagonals, a plain bitset for the current column), its own scan, and a different
// order (column by column, left to right, rows in parallel inside a column).
//
// A cell above the diagonal (x < y) whose mirror (y, x) is in the table is checked against the
// mirror instead: still a complete proof, by induction over the anti-diagonals x + y = s. If
// every cell of smaller sum is right, a cell of sum s with x >= y that equals the mex of its
// stored options is right, and so is a cell of sum s with x < y that equals its mirror, which
// has x >= y and the same sum (g is symmetric). Its value still goes into its row, column and
// diagonal sets, which the cells further on need. A cell that differs from its mirror gets its
// mex after all, so that the first wrong cell is found and reported as before (if the cell is
// right, its mirror is wrong, and its own mex check, in a later band, says so).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <random>
#include <thread>

#include "analysis/message.hpp"
#include "analysis/passes.hpp"
#include "grundy/error.hpp"

namespace grundy {

std::string WrongCell::describe() const {
    return analysis::cat("(", x, ", ", y, ") holds ", found, ", but the mex of its options is ",
                         expected);
}

namespace analysis {
namespace {

constexpr uint64_t kFull = ~uint64_t{0};

// Words of a column bitset's summary (a bit per word) for a bitset of `words` words.
constexpr uint64_t summary_words(uint64_t words) {
    return words / 64 + 1;
}

// The least value in none of the row set, the diagonal set and the column bitset c, which
// holds words cofs .. cofs + cwords - 1 (a column's values lie in [x - 2Y, x + Y]); cfull has
// a bit for each of those words, set when it is full.
//
// The word at the start is read first (it often holds the mex). After it, every word full in
// one of the three sets is skipped by its summary bit, 64 words a step, and only the others
// are read: in a 16384^2 table the mex lies 53 words past the start on average, and all but
// about two of them are full in some set.
uint64_t mex3(const LineSet& r, const LineSet& d, const uint64_t* c, const uint64_t* cfull,
              uint64_t cofs, uint64_t cwords, uint64_t cbase) {
    uint64_t w = std::max({r.base(), d.base(), cbase});
    auto cword = [&](uint64_t i) {
        const uint64_t j = i - cofs;  // wraps below cofs: never < cwords then
        return j < cwords ? c[j] : 0;
    };
    const uint64_t m = r.word(w) | d.word(w) | cword(w);
    if (m != kFull) return 64 * w + static_cast<uint64_t>(std::countr_one(m));
    const uint64_t cfull_words = summary_words(cwords);
    for (++w;; w += 64) {
        uint64_t open =
            ~(r.full_from(w) | d.full_from(w) |
              bits_from(cfull, cfull_words, static_cast<int64_t>(w) - static_cast<int64_t>(cofs)));
        for (; open != 0; open &= open - 1) {
            const uint64_t v = w + static_cast<uint64_t>(std::countr_zero(open));
            const uint64_t u = r.word(v) | d.word(v) | cword(v);
            if (u != kFull) return 64 * v + static_cast<uint64_t>(std::countr_one(u));
        }
    }
}

// The mex of all options of (x, y), read from the table: O(x + y), for single cells.
uint64_t direct_mex(const TableSource& table, uint64_t x, uint64_t y) {
    const uint64_t m = std::min(x, y);
    std::vector<uint32_t> options(x + y + m, 0);
    if (x > 0) table.read(0, y, x, 1, options.data());
    if (y > 0) table.read(x, 0, 1, y, options.data() + x);
    std::vector<std::pair<uint64_t, uint64_t>> diagonal;
    for (uint64_t c = 1; c <= m; ++c) diagonal.emplace_back(x - c, y - c);
    if (m > 0) table.read_cells(diagonal, options.data() + x + y);
    // The mex of k values is at most k.
    std::vector<char> seen(options.size() + 1, 0);
    for (uint32_t v : options)
        if (v < seen.size()) seen[v] = 1;
    uint64_t mex = 0;
    while (seen[mex]) ++mex;
    return mex;
}

}  // namespace

VerifyPass::VerifyPass(uint64_t rows, uint64_t cols, int threads, const TableSource* table)
    : rows_(rows),
      cols_(cols),
      threads_(thread_count(threads)),
      table_(table),
      row_sets_(rows),
      diag_sets_(rows + cols - 1) {}

// A column band's plan: its threads, the window of its columns' bitsets, and the mirrors of its
// cells above the diagonal.
struct VerifyPass::Band {
    uint64_t T;  // threads, each with a contiguous range of the band's columns
    // Values of column x below the current row, as a bitset over the words cofs .. cofs +
    // cwords - 1: a correct column holds values in [x - 2Y, x + Y] only (so wide tables cost
    // O(Y) per column, not O(x)); others are wrong and caught at their own cell first.
    uint64_t cofs, cwords;
    // The mirrors of the band's cells above the diagonal, (y, x) for x < y < mirror_end: rows
    // x0 .. mirror_rows - 1 of the columns x0 .. mirror_end - 1 (the row band across from it),
    // in mirror_ with mirror_width values per row.
    uint64_t mirror_end, mirror_width;
    bool mirrored;
    // Where every cell above the diagonal has its mirror (rows <= cols), no cell checked by a
    // mex has one of them in its column or diagonal (both lie below the diagonal with it): they
    // go into their row's set only, and one that differs from its mirror gets a direct mex.
    bool all_mirrored;
};

VerifyPass::Band VerifyPass::plan(const ColumnBand& b) {
    const uint64_t Y = rows_, x1 = b.x0 + b.width;
    Band band;
    // Small bands are not worth a parallel region.
    band.T =
        Y * b.width < 65536 ? 1 : std::max<uint64_t>(1, std::min<uint64_t>(threads_, b.width / 16));
    band.cofs = b.x0 > 2 * Y ? (b.x0 - 2 * Y) / 64 : 0;
    band.cwords = (x1 + Y) / 64 + 2 - band.cofs;
    band.mirror_end = table_ ? std::min(cols_, Y) : 0;
    const uint64_t mirror_rows = std::min(x1, band.mirror_end);
    band.mirror_width = band.mirror_end > b.x0 ? band.mirror_end - b.x0 : 0;
    if (mirror_rows > b.x0 && band.mirror_width > 1) {
        mirror_.resize((mirror_rows - b.x0) * band.mirror_width);
        table_->read(b.x0, b.x0, band.mirror_width, mirror_rows - b.x0, mirror_.data());
    } else {
        mirror_.clear();
    }
    band.mirrored = !mirror_.empty();
    band.all_mirrored = band.mirrored && Y <= cols_;
    return band;
}

void VerifyPass::consume(const ColumnBand& b) {
    const std::optional<WrongCell> found = check_band(b);
    if (found) {
        report_.cells_checked += found->y * b.width + (found->x - b.x0);
        report_.wrong = found;
        return;
    }
    for (uint64_t x = b.x0; x < b.x0 + b.width; ++x) diag_sets_[x].release();  // ending here
    report_.cells_checked += b.width * rows_;
}

// The band is swept row by row (bottom up), each row left to right: a row set is then hot for
// the whole band, and the few hundred diagonals crossing a band stay in cache from one row to
// the next. Column order would touch every row's and diagonal's set once per column, which is
// bound by memory. Threads own contiguous ranges of the band's columns and run as a pipeline:
// thread t checks row y once thread t - 1 has finished row y. That is all a cell needs: the
// row set holds everything to its left, its column bitset is the thread's own, and a diagonal
// through it comes from the row below and the column to its left. No set is touched by two
// threads at once, and there is no barrier per row (a time slice each on a busy machine).
std::optional<WrongCell> VerifyPass::check_band(const ColumnBand& b) {
    const Band band = plan(b);
    const uint64_t Y = rows_, T = band.T;
    constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
    std::vector<std::atomic<uint64_t>> done(T);  // rows of this band thread t has finished
    for (auto& d : done) d.store(0);
    std::atomic<uint64_t> stop_row{kNone};  // rows after a wrong cell's row need no checking
    std::optional<WrongCell> found;
    const uint64_t cofs = band.cofs, cwords = band.cwords;
    const uint64_t mirror_end = band.mirror_end, mirror_width = band.mirror_width;
    const bool mirrored = band.mirrored;
    const uint32_t* mirror = mirror_.data();
    const bool all_mirrored = band.all_mirrored;
#pragma omp parallel num_threads(static_cast <int>(T))
    {
        const uint64_t t = static_cast<uint64_t>(omp_get_thread_num());
        const uint64_t xa = b.x0 + b.width * t / T, xb = b.x0 + b.width * (t + 1) / T;
        const uint64_t cfull_words = summary_words(cwords);
        std::vector<uint64_t> cols((xb - xa) * cwords, 0), cbase(xb - xa, 0);
        std::vector<uint64_t> cfull((xb - xa) * cfull_words, 0);  // a bit per full word
        std::optional<WrongCell> mine;
        // Pointers held in registers: the sets' stores could alias the vectors' fields.
        uint64_t* const col_bits = cols.data();
        uint64_t* const col_full = cfull.data();
        uint64_t* const col_base = cbase.data();
        for (uint64_t y = 0; y < Y && y <= stop_row.load(std::memory_order_relaxed); ++y) {
            if (t > 0)
                while (done[t - 1].load(std::memory_order_acquire) <= y) std::this_thread::yield();
            LineSet& r = row_sets_[y];
            LineSet* const diagonal = diag_sets_.data() + (Y - 1 - y);  // [x]: x - y's set
            const uint32_t* row = b.values + y * b.width;
            // Cell (x, y)'s mirror is mirror_column[(x - x0) * mirror_width], for x < y.
            const bool row_mirrored = mirrored && y < mirror_end;
            const uint32_t* mirror_column = row_mirrored ? mirror + (y - b.x0) : nullptr;
            for (uint64_t x = xa; x < xb; ++x) {
                const uint64_t v = row[x - b.x0];
                LineSet& d = diagonal[x];
                uint64_t* c = col_bits + (x - xa) * cwords;
                uint64_t* cf = col_full + (x - xa) * cfull_words;
                uint64_t& cb = col_base[x - xa];
                const bool above = x < y;
                // (v <= x + y, the bound of every right value, keeps the sets' windows bounded.)
                const bool same_as_mirror = row_mirrored && above && v <= x + y &&
                                            mirror_column[(x - b.x0) * mirror_width] == v;
                if (!same_as_mirror) {
                    uint64_t m;
                    if (above && all_mirrored) {
#pragma omp critical(grundy_verify_direct)  // the reader's buffers are shared
                        m = direct_mex(*table_, x, y);
                    } else {
                        m = mex3(r, d, c, cf, cofs, cwords, cb);
                    }
                    if (m != v) {
                        mine = WrongCell{x, y, v, m};
                        break;
                    }
                }
                r.insert(v);
                if (above && all_mirrored) continue;
                d.insert(v);
                const uint64_t i = v / 64 - cofs;  // v == m: inside the window
                c[i] |= uint64_t{1} << (v % 64);
                if (c[i] == kFull) {
                    cf[i / 64] |= uint64_t{1} << (i % 64);
                    // The column's first word that is not full moves only when one fills.
                    if (cofs == 0 && i == cb)
                        while (cb < cwords && c[cb] == kFull) ++cb;
                }
            }
            if (mine) {
                uint64_t s = stop_row.load();
                while (y < s && !stop_row.compare_exchange_weak(s, y)) {
                }
                break;
            }
            done[t].store(y + 1, std::memory_order_release);
        }
        done[t].store(kNone, std::memory_order_release);  // never keep a successor waiting
#pragma omp critical(grundy_verify_found)
        if (mine && (!found || mine->y < found->y || (mine->y == found->y && mine->x < found->x)))
            found = mine;
    }
    return found;
}

}  // namespace analysis

VerifyReport verify_table(const TableSource& table, int threads, uint64_t max_memory) {
    analysis::check_pass_memory(table, &AnalysisOptions::verify, max_memory);
    analysis::VerifyPass pass(table.rows(), table.cols(), threads, &table);
    analysis::ColumnBandPass* passes[] = {&pass};
    analysis::stream_column_bands(table, passes);
    return pass.report();
}

VerifyReport verify_sample(const TableSource& table, uint64_t samples, uint64_t seed) {
    const uint64_t X = table.cols(), Y = table.rows();
    std::mt19937_64 rng(seed);
    std::vector<std::pair<uint64_t, uint64_t>> cells(samples);
    for (auto& [x, y] : cells) {
        x = rng() % X;
        y = rng() % Y;
    }
    std::sort(cells.begin(), cells.end());  // so "first wrong" means leftmost, then lowest
    VerifyReport report;
    for (const auto& [x, y] : cells) {
        const uint64_t mex = analysis::direct_mex(table, x, y);
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
