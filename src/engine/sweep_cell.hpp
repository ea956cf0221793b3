// One cell of a sweep: the mex of its row, column and diagonal sets, added to them. Included
// by sweep_*.cpp inside a region compiled for one instruction set, with MEX_PROBE and
// MEX_FINISH naming the halves of that set's kernel (mex_kernel.hpp), before the tile and strip
// sweeps that use it.
//
// A cell is taken in two steps, so that a sweep can begin a cell well before it ends it, with
// other cells' work in between (mex_kernel.hpp says why). Each window's fields are read once,
// before any store into the words (WindowView says why: 126 -> 107 instructions and 44 -> 31
// loads per computed cell, 16384^2 on one thread 7% faster).

struct Cell {
    WindowView row, col, dia;
    uint64_t row_low, col_low, dia_low;
    MexProbe probe;
};

// Reads the cell's windows and issues the loads its scan starts with; no data-dependent branch.
static inline void begin_cell(Cell& cell, const BitWindow& row, const BitWindow& col,
                              const BitWindow& dia) {
    cell.row = row.view();
    cell.col = col.view();
    cell.dia = dia.view();
    cell.row_low = row.low;
    cell.col_low = col.low;
    cell.dia_low = dia.low;
    uint64_t lo = cell.row_low > cell.col_low ? cell.row_low : cell.col_low;
    lo = lo > cell.dia_low ? lo : cell.dia_low;
    cell.probe = MEX_PROBE(cell.row, cell.col, cell.dia, lo);
}

// Finishes the scan and adds the mex to the three sets (the same windows as begin_cell's).
// The mex is at least every low-water mark, so it moves a mark only where it equals it.
static inline uint64_t end_cell(const Cell& cell, BitWindow& row, BitWindow& col, BitWindow& dia) {
    const uint64_t g = MEX_FINISH(cell.row, cell.col, cell.dia, cell.probe);
    cell.row.set(g);
    cell.col.set(g);
    cell.dia.set(g);
    if (g == cell.row_low) row.advance_low();
    if (g == cell.col_low) col.advance_low();
    if (g == cell.dia_low) dia.advance_low();
    return g;
}

static inline uint64_t sweep_cell(BitWindow& row, BitWindow& col, BitWindow& dia) {
    Cell cell;
    begin_cell(cell, row, col, dia);
    return end_cell(cell, row, col, dia);
}
