// Template, included once per instruction set; no include guard. Parameters:
//   MEX_PROBE(row, col, dia, from)  the kernel's probe (mex_kernel.hpp): loads only, no branch
//   MEX_FINISH(row, col, dia, probe)  the kernel's finish: the mex from the probe
// The includer opens an anonymous namespace (internal linkage: a build for one instruction set
// never reaches a caller of another) inside grundy::engine or grundy::strip (with grundy::engine's
// names in sight), after mex_kernel.hpp, and #undefs both macros after the sweeps that use this
// file.
//
// One cell of a sweep: the mex of its row, column and diagonal sets, added to them. Included
// by sweep_*.cpp inside a region compiled for one instruction set, with MEX_PROBE and
// MEX_FINISH naming the halves of that set's kernel (mex_kernel.hpp), before the tile and strip
// sweeps that use it.
//
// A cell is taken in two steps, so that a sweep can begin a cell well before it ends it, with
// other cells' work in between (mex_kernel.hpp says why). Each window's fields are read once,
// before any store into the words (WindowView says why: 126 -> 107 instructions and 44 -> 31
// loads per computed cell, 16384^2 on one thread 7% faster).

// A window's hot state while a sweep uses it: where its words are and its low-water mark.
// A tile sweep keeps the cursors of the rows it takes in registers for a whole pass along
// them and writes their marks back at the end (tile_sweep_template.hpp): a row's next cell then
// waits on nothing but the row's own words.
struct Cursor {
    WindowView view;
    uint64_t low;
};

static inline Cursor cursor_of(const BitWindow& w) {
    return {w.view(), w.low};
}

// The least value from `from` on that is not in the set. Every sweep reserves, in every window it
// touches, kScanPadWords words beyond the word of the largest value it can insert there
// (prepare_tile, the strip sweep), so a free bit always turns up inside the window: no bound
// to test, unlike BitWindow::advance_low.
static inline uint64_t next_free(WindowView v, uint64_t from) {
    uint64_t w = from / 64;
    uint64_t free_bits = ~v.word(w) & (~uint64_t{0} << (from % 64));
    while (free_bits == 0) free_bits = ~v.word(++w);
    return w * 64 + static_cast<uint64_t>(__builtin_ctzll(free_bits));
}

struct Cell {
    Cursor col, dia;
    MexProbe probe;
};

// Reads the cell's column and diagonal windows and issues the loads its scan starts with; no
// data-dependent branch. The three functions below are always inlined: with the vector line
// kernels (mex_kernel_avx512.hpp) GCC left end_cell a call of its own per cell, with a stack
// realigned for its vectors, and a 16384^2 run took 17% more CPU.
__attribute__((always_inline)) static inline void begin_cell(Cell& cell, const Cursor& row,
                                                             const BitWindow& col,
                                                             const BitWindow& dia) {
    cell.col = cursor_of(col);
    cell.dia = cursor_of(dia);
    uint64_t lo = row.low > cell.col.low ? row.low : cell.col.low;
    lo = lo > cell.dia.low ? lo : cell.dia.low;
    cell.probe = MEX_PROBE(row.view, cell.col.view, cell.dia.view, lo);
}

// Finishes the scan and adds the mex to the three sets (the same windows as begin_cell's).
// The mex is at least every low-water mark, so it moves a mark only where it equals it.
__attribute__((always_inline)) static inline uint64_t end_cell(const Cell& cell, Cursor& row,
                                                               BitWindow& col, BitWindow& dia) {
    const uint64_t g = MEX_FINISH(row.view, cell.col.view, cell.dia.view, cell.probe);
    row.view.set(g);
    cell.col.view.set(g);
    cell.dia.view.set(g);
    if (g == row.low) row.low = next_free(row.view, g);
    if (g == cell.col.low) col.low = next_free(cell.col.view, g);
    if (g == cell.dia.low) dia.low = next_free(cell.dia.view, g);
    return g;
}

__attribute__((always_inline)) static inline uint64_t sweep_cell(BitWindow& row, BitWindow& col,
                                                                 BitWindow& dia) {
    Cursor cursor = cursor_of(row);
    Cell cell;
    begin_cell(cell, cursor, col, dia);
    const uint64_t g = end_cell(cell, cursor, col, dia);
    row.low = cursor.low;
    return g;
}
