// The mex kernel: the least value at or above `lo` that is in none of three windows.
//
// This is where the engine spends its time (the scan from the highest low-water mark to the mex
// averages about 0.2 N values in an N x N square), so each instruction set gets its own version;
// sweep_*.cpp compile them and kernel_dispatch.cpp picks one at run time. Every version reads
// whole words from word lo / 64 on; the caller guarantees each window covers those words up to
// the word of x + y plus kScanPadWords, and no set holds a value above x + y - 1, so the scan
// always ends inside the padded range.
//
// Each kernel comes in two halves. The probe only loads: the word of lo (and, for the two-level
// kernel, the summary word after it), with no data-dependent branch. The finish decides and
// scans on. A tile sweep probes each cell a round before it finishes it, with other cells
// finished in between (tile_sweep_template.hpp), so a mispredicted branch in one cell's finish no
// longer throws away the other cells' loads. On 16384^2, one thread, alternated runs:
// 2.57-2.76 s probing and finishing one cell at a time, 2.45-2.54 s probing the three cells of
// a round before finishing any, 2.29-2.42 s a round ahead.
#pragma once

#include <cstdint>

#include "engine/bit_window.hpp"

namespace grundy::engine {

struct MexProbe {
    uint64_t w;      // the word of lo
    uint64_t first;  // the union of word w, with the bits below lo counted as taken
    uint64_t s;      // two-level kernels: the summary word of the line after word w's
    uint64_t open;   // two-level kernels: its lines from that one on that no window has full
    uint64_t rest;   // AVX-512 two-level kernel: bit k, word k of w's line (after w) not full
};

// The probe of the flat kernels: the word of lo.
inline MexProbe probe_first_word(WindowView a, WindowView b, WindowView c, uint64_t lo) {
    MexProbe p{};
    p.w = lo / 64;
    p.first = a.word(p.w) | b.word(p.w) | c.word(p.w) | ((uint64_t{1} << (lo % 64)) - 1);
    return p;
}

inline uint64_t first_free(uint64_t word, uint64_t taken) {
    return word * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
}

// The three windows' words from word w on: the flat kernels read them by offset.
struct WordRows {
    const uint64_t* a;
    const uint64_t* b;
    const uint64_t* c;
};

inline WordRows words_from(WindowView a, WindowView b, WindowView c, uint64_t w) {
    return {a.word_ptr(w), b.word_ptr(w), c.word_ptr(w)};
}

// Portable version, one 64-bit word of each window per step.
inline uint64_t mex_finish_portable(WindowView a, WindowView b, WindowView c, const MexProbe& p) {
    const auto [pa, pb, pc] = words_from(a, b, c, p.w);
    uint64_t taken = p.first;
    uint64_t k = 0;
    while (taken == ~uint64_t{0}) {
        ++k;
        taken = pa[k] | pb[k] | pc[k];
    }
    return first_free(p.w + k, taken);
}

// The lines of summary word s that no one of the three windows has full: the candidates of the
// two-level kernels.
inline uint64_t open_lines(WindowView a, WindowView b, WindowView c, uint64_t s) {
    return ~(a.full_summary(s) | b.full_summary(s) | c.full_summary(s));
}

// Two-level version: skips every line (8 words, 512 values) that is full in at least one of the
// three windows using their summaries, and takes the union only of the lines full in none. Same
// result as the flat scans (the tests compare them), a fraction of the reads in a large table.
// This is the scalar build's; mex_kernel_avx2.hpp and mex_kernel_avx512.hpp take a line's union
// in vector registers. The probe is the flat kernels' plus the summary word of the next line.
inline MexProbe mex_probe_summary(WindowView a, WindowView b, WindowView c, uint64_t lo) {
    MexProbe p = probe_first_word(a, b, c, lo);
    // Read even when word w holds the mex (18% of the cells in a 16384 square), which costs
    // less than a branch that guesses wrong. It exists: w is at most the word of x + y, every
    // window reserves kScanPadWords words beyond that, and the summary covers one more line.
    const uint64_t next = p.w / kLineWords + 1;
    p.s = next / 64;
    p.open = open_lines(a, b, c, p.s) & (~uint64_t{0} << (next % 64));
    return p;
}

inline uint64_t mex_finish_summary(WindowView a, WindowView b, WindowView c, const MexProbe& p) {
    if (p.first != ~uint64_t{0}) return first_free(p.w, p.first);
    // The rest of word w's line, then the candidate lines: those after it that no single window
    // has full, taken from the OR of the three summaries one summary word (64 lines) at a time.
    for (uint64_t w = p.w + 1; w % kLineWords != 0; ++w) {
        const uint64_t taken = a.word(w) | b.word(w) | c.word(w);
        if (taken != ~uint64_t{0}) return first_free(w, taken);
    }
    uint64_t s = p.s;
    uint64_t open = p.open;
    for (;;) {
        while (open != 0) {
            const uint64_t line = s * 64 + static_cast<uint64_t>(__builtin_ctzll(open));
            for (uint64_t w = line * kLineWords; w < (line + 1) * kLineWords; ++w) {
                const uint64_t taken = a.word(w) | b.word(w) | c.word(w);
                if (taken != ~uint64_t{0}) return first_free(w, taken);
            }
            open &= open - 1;
        }
        ++s;
        open = open_lines(a, b, c, s);
    }
}

}  // namespace grundy::engine
