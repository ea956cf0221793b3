// One cell of a sweep: the mex of its row, column and diagonal sets, added to them. Included
// by sweep_*.cpp inside a region compiled for one instruction set, with MEX_SCAN naming that
// set's kernel (mex_kernel.hpp), before the tile and strip sweeps that use it.

// Each window's fields are read once, before any store into the words (WindowView says why:
// 126 -> 107 instructions and 44 -> 31 loads per computed cell, 16384^2 on one thread 7%
// faster). g is at least every low-water mark, so it moves a mark only where it equals it.
static inline uint64_t sweep_cell(BitWindow& row, BitWindow& col, BitWindow& dia) {
    const WindowView rv = row.view(), cv = col.view(), dv = dia.view();
    const uint64_t row_low = row.low, col_low = col.low, dia_low = dia.low;
    uint64_t lo = row_low > col_low ? row_low : col_low;
    lo = lo > dia_low ? lo : dia_low;
    const uint64_t g = MEX_SCAN(rv, cv, dv, lo);
    rv.set(g);
    cv.set(g);
    dv.set(g);
    if (g == row_low) row.advance_low();
    if (g == col_low) col.advance_low();
    if (g == dia_low) dia.advance_low();
    return g;
}
