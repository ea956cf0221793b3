// What a two-level mex scan reads, per computed cell (x >= y) of an N x C table, for two
// granularities of the summaries (docs/benchmarks.md, "A summary bit per line"): a summary bit per
// 64-bit word (4096 values a summary word) and a bit per line of eight words (32768 values a
// summary word, what src/engine/bit_window.hpp keeps). Independent of the library: full-width
// bitsets per row, column and diagonal, each cell's lower bound the highest of its three
// low-water marks, the table itself computed by the word scan. Slow (32768^2 takes minutes) and
// large (the columns' sets: about 3 C^2 / 8 bytes).
//
// Usage: grundy_bench_scan_counts [N [C]]  (C defaults to N: a square) -> one line per
// granularity with the loads a cell makes counting three per probe, candidate and summary word
// crossed; then how many words lie from the lower bound's word to the mex's (0, 1, 2-3, 4-7, ...)
// and in which word of its line a candidate line holds the mex.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr uint64_t kAll = ~uint64_t{0};
constexpr uint64_t kLine = 8;  // words

// A set with its low-water mark and both summaries.
struct Set {
    std::vector<uint64_t> words, full_words, full_lines;
    uint64_t low = 0;

    explicit Set(uint64_t values)
        : words(values / 64 + 2 * kLine, 0),
          full_words(words.size() / 64 + 2, 0),
          full_lines(words.size() / kLine / 64 + 2, 0) {}

    void insert(uint64_t v) {
        uint64_t& w = words[v / 64];
        w |= uint64_t{1} << (v % 64);
        if (w == kAll) {
            full_words[v / 4096] |= uint64_t{1} << (v / 64 % 64);
            const uint64_t line = v / 64 / kLine;
            bool whole = true;
            for (uint64_t k = 0; k < kLine; ++k) whole = whole && words[line * kLine + k] == kAll;
            if (whole) full_lines[line / 64] |= uint64_t{1} << (line % 64);
        }
        while ((words[low / 64] >> (low % 64)) & 1) ++low;
    }
    bool word_full(uint64_t w) const { return (full_words[w / 64] >> (w % 64)) & 1; }
    bool line_full(uint64_t l) const { return (full_lines[l / 64] >> (l % 64)) & 1; }
};

struct Counts {
    double first = 0, candidates = 0, crossings = 0;
    double mex_word_in_line[kLine] = {};  // lines only: the word of the candidate holding the mex
};

struct Cell {
    const Set &r, &c, &d;
    uint64_t word(uint64_t w) const { return r.words[w] | c.words[w] | d.words[w]; }
};

// The word scan from lo: returns the mex and counts what it read.
uint64_t scan_words(const Cell& cell, uint64_t lo, Counts& n) {
    uint64_t w = lo / 64;
    const uint64_t first = cell.word(w) | ((uint64_t{1} << (lo % 64)) - 1);
    if (first != kAll) {
        n.first += 1;
        return w * 64 + static_cast<uint64_t>(__builtin_ctzll(~first));
    }
    for (uint64_t summary = ++w / 64;; ++w) {
        if (w / 64 != summary) summary = w / 64, n.crossings += 1;
        if (cell.r.word_full(w) || cell.c.word_full(w) || cell.d.word_full(w)) continue;
        n.candidates += 1;
        const uint64_t u = cell.word(w);
        if (u != kAll) return w * 64 + static_cast<uint64_t>(__builtin_ctzll(~u));
    }
}

// The line scan from lo, counted only (the mex is the word scan's).
void scan_lines(const Cell& cell, uint64_t lo, Counts& n) {
    const uint64_t line = lo / 64 / kLine;
    for (uint64_t w = lo / 64; w < (line + 1) * kLine; ++w) {
        const uint64_t u = cell.word(w) | (w == lo / 64 ? (uint64_t{1} << (lo % 64)) - 1 : 0);
        if (u != kAll) {
            n.first += 1;
            return;
        }
    }
    for (uint64_t l = line + 1, summary = l / 64;; ++l) {
        if (l / 64 != summary) summary = l / 64, n.crossings += 1;
        if (cell.r.line_full(l) || cell.c.line_full(l) || cell.d.line_full(l)) continue;
        n.candidates += 1;
        for (uint64_t w = l * kLine; w < (l + 1) * kLine; ++w)
            if (cell.word(w) != kAll) {
                n.mex_word_in_line[w - l * kLine] += 1;
                return;
            }
    }
}

// The words from the lower bound's word to the mex's, by class: 0, 1, 2-3, 4-7, ..., 2^8 and more.
struct Distances {
    double cells[10] = {};
    void add(uint64_t words) {
        const int k = words == 0 ? 0 : 64 - __builtin_clzll(words);
        cells[std::min(k, 9)] += 1;
    }
};

void print(const char* name, const Counts& k, double cells) {
    std::printf(
        "%s: mex in lo's %s %.3f, candidates %.3f, summary words crossed %.3f, loads %.2f\n", name,
        name[0] == 'w' ? "word" : "line", k.first / cells, k.candidates / cells,
        k.crossings / cells, 3 * (2 + (k.candidates + k.crossings) / cells));
}

}  // namespace

int main(int argc, char** argv) {
    const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 4096;
    const uint64_t cols = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : n;
    const uint64_t values = cols + 2 * n + 64 * kLine;  // every value is below x + y + 1
    // C below 2^24 first, so that the size cannot overflow.
    if (n < 1 || cols < n || cols >= (uint64_t{1} << 24) ||
        (2 * cols + n) / 8 * values > (uint64_t{16} << 30)) {
        std::fprintf(stderr,
                     "grundy_bench_scan_counts: want 1 <= N <= C with the sets in 16 GiB "
                     "(about 3 C^2 / 8 bytes)\n");
        return 2;
    }
    std::vector<Set> columns(cols, Set(values)), diagonals(cols + n, Set(values));
    Counts words, lines;
    Distances distances;
    double cells = 0;
    for (uint64_t y = 0; y < n; ++y) {
        Set row(values);
        for (uint64_t x = 0; x < cols; ++x) {
            Set& c = columns[x];
            Set& d = diagonals[x + n - y];
            const uint64_t lo = std::max({row.low, c.low, d.low});
            const Cell cell{row, c, d};
            Counts ignored;
            const bool counted = x >= y;  // the cells a table computes; the rest are mirrors
            const uint64_t g = scan_words(cell, lo, counted ? words : ignored);
            if (counted) {
                scan_lines(cell, lo, lines);
                distances.add(g / 64 - lo / 64);
                cells += 1;
            }
            row.insert(g);
            c.insert(g);
            d.insert(g);
        }
    }
    std::printf("%llu x %llu, %.0f computed cells\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(cols), cells);
    print("words", words, cells);
    print("lines", lines, cells);
    std::printf("words from lo's to the mex's (0, 1, 2-3, 4-7, ..., 256+):");
    for (double d : distances.cells) std::printf(" %.3f", d / cells);
    std::printf("\nthe mex's word in a candidate line (0..7):");
    for (double w : lines.mex_word_in_line) std::printf(" %.3f", w / cells);
    std::printf("\n");
    return 0;
}
