// Transposing a tile of values: the mirror of a tile of a square table (DESIGN.md 1.2), made by
// the engine for its own sets or, a strip of columns at a time, by the sinks that store it.
#pragma once

#include <cstdint>

namespace grundy::base {

// Columns x_begin..x_end-1 of `values` (w wide and h high, row-major) as rows of `out`, each h
// long: out[(x - x_begin) * h + y] = values[y * w + x].
void transpose_columns(const uint32_t* values, uint64_t w, uint64_t h, uint64_t x_begin,
                       uint64_t x_end, uint32_t* out);

// The whole mirror: `out` becomes h wide and w high, out[x * h + y] = values[y * w + x].
inline void transpose_tile(const uint32_t* values, uint64_t w, uint64_t h, uint32_t* out) {
    transpose_columns(values, w, h, 0, w, out);
}

// The whole mirror in a buffer of the calling thread, valid until the thread's next call (for
// the sinks that need a tile's transpose made: TileSink's default, an unaligned pyramid tile).
const uint32_t* transposed(const uint32_t* values, uint64_t w, uint64_t h);

// Columns transposed a strip at a time by the sinks: 16 rows of a mirror of 512 values each are
// 32 KiB, which stay in the first-level cache while they are used.
inline constexpr uint64_t kTransposeStrip = 16;

}  // namespace grundy::base
