// The mex kernel: the least value at or above `lo` that is in none of three windows.
//
// This is where the engine spends its time (the scan from the highest low-water mark to the mex
// averages about 0.2 N values in an N x N square), so each instruction set gets its own version;
// sweep_*.cpp compile them and kernel_dispatch.cpp picks one at run time. Every version reads
// whole words from word lo / 64 on; the caller guarantees each window covers those words up to
// the word of x + y plus kScanPadWords, and no set holds a value above x + y - 1, so the scan
// always ends inside the padded range.
#pragma once

#include <cstdint>

#include "engine/bit_window.hpp"

namespace grundy::engine {

// Portable version, one 64-bit word of each window per step.
inline uint64_t mex_scan_portable(WindowView a, WindowView b, WindowView c, uint64_t lo) {
    const uint64_t w = lo / 64;
    const uint64_t* pa = a.word_ptr(w);
    const uint64_t* pb = b.word_ptr(w);
    const uint64_t* pc = c.word_ptr(w);
    // Bits below lo count as taken.
    uint64_t taken = pa[0] | pb[0] | pc[0] | ((uint64_t{1} << (lo % 64)) - 1);
    uint64_t k = 0;
    while (taken == ~uint64_t{0}) {
        ++k;
        taken = pa[k] | pb[k] | pc[k];
    }
    return (w + k) * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
}

// Two-level version: skips every word that is full in at least one of the three windows using
// their summaries, and takes the union only of the words full in none. Same result as the
// flat scans (the tests compare them), a fraction of the reads in a large table.
inline uint64_t mex_scan_summary(WindowView a, WindowView b, WindowView c, uint64_t lo) {
    uint64_t w = lo / 64;
    uint64_t taken = a.word(w) | b.word(w) | c.word(w) | ((uint64_t{1} << (lo % 64)) - 1);
    if (taken != ~uint64_t{0}) return w * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
    // Candidates: the words after w that no single window has full, taken from the OR of the
    // three summaries one summary word (64 words) at a time. The candidates of one summary
    // word do not depend on each other, so the CPU can have their loads in flight together.
    ++w;
    uint64_t s = w / 64;
    uint64_t open =
        ~(a.full_summary(s) | b.full_summary(s) | c.full_summary(s)) & (~uint64_t{0} << (w % 64));
    for (;;) {
        while (open != 0) {
            const uint64_t cw = s * 64 + static_cast<uint64_t>(__builtin_ctzll(open));
            taken = a.word(cw) | b.word(cw) | c.word(cw);
            if (taken != ~uint64_t{0})
                return cw * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
            open &= open - 1;
        }
        ++s;
        open = ~(a.full_summary(s) | b.full_summary(s) | c.full_summary(s));
    }
}

}  // namespace grundy::engine
