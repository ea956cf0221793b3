// SettledBoundary: what the settled rows 0..S-1 of a strip give the rows above them, as two
// tables over one period, so that a settled row costs nothing per column.
//
// Once the sub-strip of rows 0..S-1 has repeated with period T, its cells follow
// g(x + T, y) = g(x, y) + T for ever (strip.hpp, Strip::settle). The rows above read the settled
// rows only through two kinds of set: column x's set, whose settled part is
// {g(x, y) : y < S}, and the diagonal x - y, whose cells below row S are (d + j, j), j < S, for
// d = x - y. Relative to x (to d) both are T-periodic, so the table holds them for one period:
// bit r of column phase x mod T is the value x - 2Y + r, bit r of diagonal phase d mod T is the
// value d - Y + r (both ranges [0, 3Y) for a strip of Y rows). Filling a column's window is then
// a copy of about 3S bits, and so is starting a diagonal at row S; the settled rows' own windows
// are not kept at all (Strip rebuilds their part of a state from the ring when it needs it).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/bit_window.hpp"
#include "strip/sweep/settled_rows.hpp"

namespace grundy::strip {

class SettledBoundary {
  public:
    // `threads`: those that build the tables in extend (the other threads of the strip would
    // only wait for it).
    SettledBoundary(uint64_t strip_rows, int threads);

    uint64_t rows() const { return rows_; }      // S: rows 0..S-1 are in the tables
    uint64_t period() const { return period_; }  // T: the tables' length in columns
    uint64_t bytes() const { return (column_.size() + diagonal_.size()) * 8; }

    // Adds rows rows()..settled.rows-1. Their values d = g - x + 2y are settled.at(x, y) for the
    // columns x in [next - settled.period, next), where they are already periodic; the period
    // divides the main ring's length, and so does the tables' period afterwards (the least common
    // multiple of the periods given so far).
    void extend(const SettledRows& settled, uint64_t next);

    // Empties `col` (column x's window) and fills it with the settled rows' values of column x.
    void fill_column(engine::BitWindow& col, uint64_t x, uint64_t floor) const;
    // Empties `dia` (diagonal d's window) and fills it with the values of its settled cells.
    void fill_diagonal(engine::BitWindow& dia, uint64_t d, uint64_t floor) const;

  private:
    void grow_period(uint64_t period);
    void add_rows(uint64_t y0, uint64_t y1, const std::vector<uint16_t>& values, uint64_t period,
                  uint64_t first);

    uint64_t Y_;
    int threads_;
    uint64_t words_;  // per phase
    uint64_t rows_ = 0;
    uint64_t period_ = 0;
    std::vector<uint64_t> column_;    // phase i: words [i * words_, (i + 1) * words_)
    std::vector<uint64_t> diagonal_;  // the same
};

}  // namespace grundy::strip
