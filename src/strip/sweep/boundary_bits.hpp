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

// window_chunk where a stored word lies below the low-water mark, outside the storage or below
// value 0.
uint64_t window_chunk_edge(const engine::BitWindow& w, int64_t first);

// Bits first .. first + 63 of `w` (1 for values below its low-water mark, which count as
// present; 0 for values below 0). Inline for the common case, both words stored and above the
// mark: a band compares its rows with a saved state word by word after every column.
inline uint64_t window_chunk(const engine::BitWindow& w, int64_t first) {
    if (first >= 0) {
        const auto u = static_cast<uint64_t>(first);
        const uint64_t i = u / 64, sh = u % 64;
        if (i * 64 >= w.low && i >= w.base && i + 1 - w.base < w.capacity) {
            const uint64_t* p = w.words + (i - w.base);
            return sh ? p[0] >> sh | p[1] << (64 - sh) : p[0];
        }
    }
    return window_chunk_edge(w, first);
}

// Copies words bits of `w` from value `first` on into out[0..words).
void pack_window(const engine::BitWindow& w, int64_t first, uint64_t words, uint64_t* out);

// ORs the set bits of packed[lo..hi] (bit i of the packing is the value first + i) into `w`,
// whose words up to first + 64 (hi + 2) are reserved, keeping its summary of full words; bits in
// words below `w`'s low-water mark are left out (they count as present).
void or_packed(engine::BitWindow& w, const uint64_t* packed, uint64_t lo, uint64_t hi,
               int64_t first);

}  // namespace grundy::strip
