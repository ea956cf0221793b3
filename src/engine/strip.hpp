// Strip: rows 0..Y-1 of Wythoff's table swept column by column in O(Y^2) bits, with its state
// written relative to the column, for the certified row periods of `grundy periods`.
//
// The relative state after column x (Landman's finite-state argument, DESIGN.md):
// - row y >= 1: the bits of its set at values x + 1 - 2y .. x + y (3y bits). Every value below
//   x + 1 - 2y is in the row (a value v < x + 1 - 2y cannot appear at x' > x, where
//   g >= x' - 2y > v, and each value appears once per row), none above x + y (g <= x + y);
// - for y = 1..Y-1, the diagonal through (x, y - 1), which is met next at (x + 1, y): the bits of
//   its set at x + 2 - 2y .. x + y - 1 (3y - 2 bits). Its cells (x - k, y - 1 - k) have values
//   >= x - 2y + 2 + k and <= x + y - 1, so these bits are the whole set;
// - columns carry nothing: column x + 1 starts empty.
// Every later mex is min{v >= x' - 2y not in row, column or diagonal}, so with x >= 2Y (all
// windows at non-negative values) state(x0) == state(x0 + P) gives g(x + P, y) = g(x, y) + P for
// every x > x0 and y < Y, by induction over the cells in sweep order. That is the certificate.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/strip_windows.hpp"
#include "grundy/engine.hpp"

namespace grundy::engine {

// A relative state, flattened: the segments of Strip::layout(), each padded to whole words.
struct StripSnapshot {
    uint64_t rows = 0;
    uint64_t column = 0;  // the column after which it was taken (not part of the comparison)
    std::vector<uint64_t> words;
};

// True when both are states of the same strip with the same relative content, compared in full.
bool same_state(const StripSnapshot& a, const StripSnapshot& b);

class Strip {
  public:
    Strip(uint64_t rows, MexKernel kernel);

    uint64_t rows() const { return rows_; }
    uint64_t columns_done() const { return next_; }  // columns 0..next-1 are swept
    const char* kernel_name() const { return kernel_name_; }
    uint64_t window_bytes() const { return windows_->bytes(); }
    uint64_t state_bits() const { return state_bits_; }  // bits of a relative state
    uint64_t state_words() const { return state_words_; }

    // Sweeps the next column; g[y] receives g(x, y). Returns x.
    uint64_t advance(uint64_t* g);

    // The relative state after the last swept column (at least one must be swept).
    void snapshot(StripSnapshot& out) const;
    // Compares the live state with `s` in full, stopping at the first difference; segments
    // that differ most often (the highest rows) come first, so a mismatch costs a word or two.
    bool matches(const StripSnapshot& s) const;
    // Continues from a snapshot of this strip's rows taken after column s.column.
    void restore(const StripSnapshot& s);

  private:
    struct Segment {
        bool is_row;  // row y, else the diagonal through (x, y - 1)
        uint64_t y;
        int64_t start;  // first value, relative to the last swept column
        uint64_t bits;
        uint64_t offset;  // first word in the snapshot
    };
    const BitWindow& window_of(const Segment& seg, uint64_t x) const;
    static uint64_t chunk(const BitWindow& w, int64_t v);  // contains(v .. v + 63) as bits
    // Calls visit(index, word) for every word of the relative state after column x, in
    // snapshot order, until visit returns false. Returns whether it went through all of them.
    template <class Visit>
    bool for_each_state_word(uint64_t x, Visit&& visit) const;

    uint64_t rows_;
    uint64_t next_ = 0;
    StripColumnFn sweep_;
    const char* kernel_name_;
    std::unique_ptr<StripWindows> windows_;
    std::vector<Segment> layout_;
    uint64_t state_bits_ = 0;
    uint64_t state_words_ = 0;
};

}  // namespace grundy::engine
