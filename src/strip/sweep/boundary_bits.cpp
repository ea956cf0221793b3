// Packed boundary sets (boundary_bits.hpp).
#include "strip/sweep/boundary_bits.hpp"

#include <algorithm>

namespace grundy::strip {

using engine::BitWindow;

namespace {

// ORs `bits` into word w of the window (reserved), keeping its summary of full words. A word
// wholly below the low-water mark holds only values that count as present already, and may lie
// below the window's storage: a packed set starts a value or two below the receiving window's
// floor (column_bits_first, diagonal_bits_first), so at every 64th floor its first word did.
void or_word(const BitWindow& win, uint64_t w, uint64_t bits) {
    if (!bits || w < win.low / 64) return;
    const engine::WindowView v = win.view();
    uint64_t* word = v.word_ptr(w);
    *word |= bits;
    if (*word == ~uint64_t{0}) v.note_full(w);
}

}  // namespace

uint64_t window_chunk_below_zero(const BitWindow& w, int64_t v) {
    uint64_t r = 0;
    for (int64_t i = 0; i < 64; ++i)
        if (v + i >= 0 && w.contains(static_cast<uint64_t>(v + i))) r |= uint64_t{1} << i;
    return r;
}

void pack_window(const BitWindow& w, int64_t first, uint64_t words, uint64_t* out) {
    for (uint64_t k = 0; k < words; ++k)
        out[k] = window_chunk(w, first + static_cast<int64_t>(64 * k));
}

void or_packed(BitWindow& win, const uint64_t* packed, uint64_t lo, uint64_t hi, int64_t first) {
    if (first >= 0) {
        // Word w0 + k of the window gets packed[k] << sh and packed[k - 1]'s top bits: one pass
        // over the window's words, each written once (with S settled rows, every column and the
        // diagonal entering row S start with about 3S / 64 of them).
        const auto f = static_cast<uint64_t>(first);
        const uint64_t w0 = f / 64, sh = f % 64;
        const engine::WindowView v = win.view();
        const uint64_t last = w0 + hi + (sh ? 1 : 0);
        for (uint64_t w = std::max(w0 + lo, win.low / 64); w <= last; ++w) {
            const uint64_t k = w - w0;
            uint64_t bits = k <= hi ? packed[k] << sh : 0;
            if (sh && k > lo) bits |= packed[k - 1] >> (64 - sh);
            if (!bits) continue;
            uint64_t* word = v.word_ptr(w);
            *word |= bits;
            if (*word == ~uint64_t{0}) v.note_full(w);
        }
        return;
    }
    // The first columns only: bit by bit, leaving out values below 0 and below the floor.
    for (uint64_t k = lo; k <= hi; ++k)
        for (uint64_t bits = packed[k]; bits; bits &= bits - 1) {
            const int64_t v = first + static_cast<int64_t>(64 * k + __builtin_ctzll(bits));
            if (v < 0 || static_cast<uint64_t>(v) < win.low) continue;
            const uint64_t u = static_cast<uint64_t>(v);
            or_word(win, u / 64, uint64_t{1} << (u % 64));
        }
}

}  // namespace grundy::strip
