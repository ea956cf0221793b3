// The sets a band of rows hands the rows above it, as plain bits relative to the column: what
// SettledBoundary keeps over one period for settled rows, and what one MPI rank sends the next
// for every column (rank_link.hpp).
//
// For a strip of Y rows, column x's set over rows below some row R is held as bit i = value
// x - 2Y + i, and the diagonal d's set over its cells below row R as bit i = value d - Y + i,
// i < 3Y either way (a cell (x, y) has x - 2y <= g <= x + y). Values below 0 do not exist: their
// bits are 0.
#pragma once

#include <cstdint>

#include "engine/bit_window.hpp"

namespace grundy::strip {

// Words of one packed set: 3Y bits.
inline uint64_t boundary_words(uint64_t strip_rows) {
    return (3 * strip_rows + 63) / 64;
}
// The value of bit 0 of column x's packed set, and of diagonal d's.
inline int64_t column_bits_first(int64_t x, uint64_t strip_rows) {
    return x - 2 * static_cast<int64_t>(strip_rows);
}
inline int64_t diagonal_bits_first(int64_t d, uint64_t strip_rows) {
    return d - static_cast<int64_t>(strip_rows);
}

// window_chunk for the first columns, where some of the values lie below 0.
uint64_t window_chunk_below_zero(const engine::BitWindow& w, int64_t first);

// Word i of the set's values (the values 64 i .. 64 i + 63) as present or not: 1 below the
// low-water mark (they count as present), 0 beyond the storage.
inline uint64_t window_word(const engine::BitWindow& w, uint64_t i) {
    const uint64_t start = i * 64;
    if (w.low >= start + 64) return ~uint64_t{0};
    // i >= base here: the storage starts at or below the mark's word.
    const uint64_t stored = i - w.base < w.capacity ? w.words[i - w.base] : 0;
    return w.low > start ? stored | ((uint64_t{1} << (w.low - start)) - 1) : stored;
}

// Bits first .. first + 63 of `w` (1 for values below its low-water mark, which count as
// present; 0 for values below 0). Inline: a band compares its rows with a saved state word by
// word after every column, mostly finding a difference in a row's first word or two, the word
// of its low-water mark.
inline uint64_t window_chunk(const engine::BitWindow& w, int64_t first) {
    if (first < 0) return window_chunk_below_zero(w, first);
    const auto u = static_cast<uint64_t>(first);
    const uint64_t i = u / 64, sh = u % 64;
    const uint64_t r = window_word(w, i);
    return sh ? r >> sh | window_word(w, i + 1) << (64 - sh) : r;
}

// Copies words bits of `w` from value `first` on into out[0..words).
void pack_window(const engine::BitWindow& w, int64_t first, uint64_t words, uint64_t* out);

// ORs the set bits of packed[lo..hi] (bit i of the packing is the value first + i) into `w`,
// whose words up to first + 64 (hi + 2) are reserved, keeping its summary of full words; bits in
// words below `w`'s low-water mark are left out (they count as present).
void or_packed(engine::BitWindow& w, const uint64_t* packed, uint64_t lo, uint64_t hi,
               int64_t first);

}  // namespace grundy::strip
