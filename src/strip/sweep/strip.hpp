// Strip: rows 0..Y-1 of Wythoff's table swept column by column in O(Y^2) bits, with its state
// written relative to the column, for the certified row periods of `grundy periods`.
//
// The relative state after column x (Landman's argument, src/DESIGN.md section 1.7):
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
//
// Threads: the rows are cut into bands, several per thread where the rows allow (never more
// threads than bands), and the columns of a block into
// chunks; a band's chunk is a tile, and the tiles run as tasks in any order their dependencies
// allow: a tile after the one below it (the column's set grows from y = 0 up, and the diagonals
// cross band boundaries going up and right, so they follow the same order) and after the one
// to its left. The lowest band stays less than `lag` columns ahead of the highest, the number of
// column windows and spare diagonal slots (strip_windows.hpp). All threads meet only at the end
// of a block of columns, where the state is that after the block's last column. Every cell gets
// the same value whatever the number of bands: the sets a cell reads are exactly those of the
// one-thread sweep order.
//
// Ranks (StripPart): a strip may be one rank's part of a strip swept by several processes
// (rank_link.hpp). It then sweeps only its rows lo..hi-1, takes each column's set and the
// diagonal entering row lo from the rank below, hands the same for row hi to the rank above,
// and its snapshots, comparisons and restores cover only its own part of the state (the
// segments of its rows; the other words of a snapshot stay 0). Between blocks its rows may
// change (repartition): it then restores the rows it gained from a snapshot holding them.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "grundy/engine.hpp"
#include "strip/ranks/rank_link.hpp"
#include "strip/sweep/settled_boundary.hpp"
#include "strip/sweep/settled_rows.hpp"
#include "strip/sweep/strip_sweep.hpp"
#include "strip/sweep/strip_windows.hpp"

namespace grundy::strip {

// A relative state, flattened: the segments of Strip::layout(), each padded to whole words.
struct StripSnapshot {
    uint64_t rows = 0;
    uint64_t column = 0;  // the column after which it was taken (not part of the comparison)
    std::vector<uint64_t> words;
};

// True when both are states of the same strip with the same relative content, compared in full.
bool same_state(const StripSnapshot& a, const StripSnapshot& b);

// Called by the thread sweeping rows y0..y1-1 (a band) as soon as it has swept them in column
// x, with g[y - y0] = g(x, y). The calls for one band come in column order, one at a time (the
// thread may change between tiles, with the ordering of task dependencies); calls for different
// bands run at the same time, so a callback may touch only what belongs to its rows.
using StripRowsFn = std::function<void(uint64_t x, uint64_t y0, uint64_t y1, const uint64_t* g)>;

// One call of Strip::advance_block: the next `columns` columns.
struct StripBlock {
    uint64_t columns = 0;
    StripRowsFn rows_done;  // optional
    // Optional: compare the state after every column of the block with this snapshot; then
    // `matched_rows` gets one entry per column: the largest m such that the state of the
    // sub-strip of rows 0..m-1 (its rows' windows and the diagonals entering them) equals the
    // snapshot's, compared in full; rows() where the whole states are equal. An entry of at
    // most settled_rows() only says that no larger sub-strip matches (the settled rows' part is
    // compared only where the rows above them match).
    const StripSnapshot* compare = nullptr;
    std::vector<uint32_t>* matched_rows = nullptr;
    // Settled rows below this one are not reported to rows_done (nor are their values looked
    // up): the caller has what it needs of them.
    uint64_t first_reported_row = 0;
    // Optional: the state after each column first + i, i in save_after (increasing), is written
    // into *save as snapshot() would write it there, without ending the block (the threads
    // would otherwise all meet there, and a pipeline of bands drains and fills again). Each band
    // writes its own rows' words as it leaves such a column, and the settled rows' and other
    // ranks' words are written at the block's end, so `save` may be `compare`: the columns after
    // a save are compared with it. save->column is the caller's.
    StripSnapshot* save = nullptr;
    std::vector<uint64_t> save_after;
};

// Asks for the cache lines of ring values [v, v + count) (g - x + 2y, two bytes each), for a
// column a batch of columns ahead: its slot in the ring was last touched a ring length ago and
// is out of every cache, and a band reads it a whole batch's sweep later (Strip::run_tile), long
// enough for memory to answer. `for_writing`: the slot will be overwritten too.
inline void prefetch_ring_values(const uint16_t* v, uint64_t count, bool for_writing) {
    const auto first = reinterpret_cast<uintptr_t>(v);
    for (uintptr_t line = first & ~uintptr_t{63}; line < first + count * 2; line += 64) {
        if (for_writing)
            __builtin_prefetch(reinterpret_cast<const char*>(line), 1);
        else
            __builtin_prefetch(reinterpret_cast<const char*>(line), 0);
    }
}

// This process's rows of a strip swept by several (rank_link.hpp): rows lo..hi-1 (hi 0: every
// row, and no link).
struct StripPart {
    uint64_t lo = 0, hi = 0;
    RankLink* link = nullptr;
};

class Strip {
  public:
    // threads: OpenMP threads sweeping tiles of bands of rows; fewer if the strip has too few
    // rows for them (config.hpp: kMinStripBandRows); 0: one. lag: how many columns the lowest
    // band may run ahead of the highest (0: kStripLag; tests use tiny ones, which also make the
    // tiles one lag wide).
    Strip(uint64_t rows, MexKernel kernel, int threads = 1, uint64_t lag = 0, StripPart part = {});
    ~Strip();

    uint64_t rows() const { return rows_; }
    uint64_t first_row() const { return lo_; }  // this process's rows: first_row()..end_row()-1
    uint64_t end_row() const { return hi_; }
    int threads() const { return threads_; }
    uint64_t bands() const { return bands_.size(); }
    // First row of each band, and rows() last.
    std::vector<uint64_t> band_starts() const;
    uint64_t columns_done() const { return next_; }  // columns 0..next-1 are swept
    const char* kernel_name() const { return kernel_name_; }
    uint64_t window_bytes() const { return windows_->bytes(); }
    uint64_t state_bits() const { return state_bits_; }  // bits of a relative state
    uint64_t state_words() const { return state_words_; }

    // Sweeps the next column; g[y] receives g(x, y). Returns x.
    uint64_t advance(uint64_t* g);
    // Sweeps the next b.columns columns with every band's thread; see StripBlock. Rethrows the
    // first exception of any band (the strip is then unusable).
    void advance_block(const StripBlock& b);

    // The relative state after the last swept column (at least one must be swept); with ranks,
    // this rank's part of it (and so for matches and restore).
    void snapshot(StripSnapshot& out) const;
    // Compares the live state with `s` in full, stopping at the first difference; segments
    // that differ most often (the highest rows) come first, so a mismatch costs a word or two.
    bool matches(const StripSnapshot& s) const;
    // Continues from a snapshot of this strip's rows taken after column s.column.
    void restore(const StripSnapshot& s);

    // From the next block on, rows 0..settled.rows-1 (at least as many as before) are settled
    // (no mex), and the bands are cut again over the other rows. The values are the same as a
    // mex would give exactly when the rows are periodic with settled.period from column
    // columns_done() - settled.period on; the caller guarantees it. With ranks, only rank 0's
    // rows settle (fewer than its own): the others ignore the call.
    void settle(const SettledRows& settled);
    uint64_t settled_rows() const { return settled_.rows; }

    // With ranks, between blocks: this process's rows become part.lo..part.hi-1. `s` is a
    // snapshot after the last swept column holding (at least) the segments of the rows it gains,
    // which it restores; `settled` is where the settled rows' ring now lies (rank 0's rows
    // change around its settled ones, which it keeps).
    void repartition(const StripPart& part, const StripSnapshot& s, const SettledRows& settled);

  private:
    struct Segment {
        bool is_row;  // row y, else the diagonal through (x, y - 1)
        uint64_t y;
        int64_t start;  // first value, relative to the last swept column
        uint64_t bits;
        uint64_t offset;  // first word in the snapshot
    };
    // Rows y0..y1-1, the segments of the state compared with theirs (those of its rows, and
    // the diagonals its rows wrote last: they change next in the column after), and what the
    // band saw during a block. Only one tile of a band runs at a time.
    struct alignas(64) Band {
        uint64_t y0 = 0, y1 = 0;
        std::vector<uint32_t> segments;  // indices into layout_, in layout order
        // Owner row y's segments are segments[owned[y - first_owned] .. owned[y - first_owned
        // + 1]) (at most two: its row, then the diagonal through (x, y)).
        uint64_t first_owned = 0;
        std::vector<uint32_t> owned;
        std::vector<uint64_t> g;            // a batch of columns of this band's values (StripBatch)
        std::vector<BitWindow*> diagonals;  // StripBatch's scratch
        // per column of the block: the lowest row (Segment::y) of a segment that differs from
        // the compared state, kNoMismatch if none
        std::vector<uint32_t> mismatch;
        StripSnapshot check;  // scratch for the re-check of a match (band_mismatch)
        // With ranks: the lowest band's message from the rank below, the highest band's to
        // the rank above (kStripMessageColumns columns, 2 packed sets each).
        std::vector<uint64_t> message;
    };
    const BitWindow& window_of(const Segment& seg, uint64_t x) const;
    // Calls visit(index, word) for every word of the segments `segs` (indices into layout_) of
    // the relative state after column x, until visit returns false. Returns whether it went
    // through all of them.
    template <class Visit>
    bool for_each_state_word(const std::vector<uint32_t>& segs, uint64_t x, Visit&& visit) const;
    template <class Visit>
    bool for_each_segment_word(const Segment& seg, uint64_t x, Visit&& visit) const;
    static constexpr uint32_t kNoMismatch = ~uint32_t{0};
    static constexpr uint64_t kNoColumn = ~uint64_t{0};
    // The band's comparison with a state after column x, one owner row at a time as its cells
    // are swept (StripBatch::same_row): row y's segments; false, with band.mismatch set, at the
    // first that differs (band_mismatch).
    struct RowCheck {
        Strip* strip;
        Band* band;
        const StripSnapshot* s;
        uint64_t first;  // the block's first column
    };
    static bool same_row(void* check, uint64_t x, uint64_t y);
    uint32_t band_mismatch(Band& band, const StripSnapshot& s, uint64_t x, uint64_t y);
    bool rows_below_match(size_t k, uint64_t i, uint64_t m) const;
    static uint64_t owner_row(const Segment& seg) { return seg.is_row ? seg.y : seg.y - 1; }
    bool is_settled(const Segment& seg) const { return owner_row(seg) < settled_.rows; }
    // The words of a settled segment after column x, from the ring.
    void settled_segment(const Segment& seg, uint64_t x, std::vector<uint64_t>& out) const;
    void restore_segment(const Segment& seg, const StripSnapshot& s);
    void own_rows(uint64_t lo, uint64_t hi);  // lo_, hi_, own_segments_ and the bands' number
    void cut_bands(uint64_t count);           // of about equal estimated work
    void set_bands(const std::vector<uint64_t>& starts);  // first rows, then rows()
    void settled_values(uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) const;
    void start_boundary(uint64_t x);
    void receive_boundary(Band& band, uint64_t x, uint64_t i, uint64_t columns);
    void send_boundary(Band& band, uint64_t x, uint64_t i, uint64_t columns);
    void run_tile(size_t k, uint64_t first, uint64_t i0, uint64_t n, const StripBlock& b);
    void timed_tile(size_t k, uint64_t first, uint64_t i0, uint64_t n, const StripBlock& b);
    void sweep_tiles(const StripBlock& b, uint64_t first, int team);
    void combine_matches(const StripBlock& b, uint64_t first);
    void save_band(const Band& band, uint64_t x, StripSnapshot& out) const;
    void finish_saves(const StripBlock& b, uint64_t first) const;
    void settled_words(uint64_t x, std::vector<uint64_t>& words) const;
    uint32_t settled_mismatch(const std::vector<uint64_t>& words, uint64_t x) const;

    uint64_t rows_;
    uint64_t lo_ = 0, hi_ = 0;
    RankLink* link_ = nullptr;
    uint64_t boundary_words_ = 0;  // of one packed set
    uint64_t next_ = 0;
    StripSweepFn sweep_;
    const char* kernel_name_;
    std::unique_ptr<StripWindows> windows_;
    std::vector<Segment> layout_;
    std::vector<uint32_t> own_segments_;  // those of rows lo..hi-1 (owner_row)
    uint64_t state_bits_ = 0;
    uint64_t state_words_ = 0;
    std::vector<std::unique_ptr<Band>> bands_;
    uint64_t thread_bands_ = 1;  // bands the threads want, at most (one: the windows' lag is 1)
    uint64_t band_count_ = 1;    // bands wanted (fewer when few rows are left to sweep)
    SettledRows settled_;
    std::unique_ptr<SettledBoundary> boundary_;  // once rows are settled
    int threads_ = 1;
    uint64_t max_threads_ = 1;           // asked for
    std::atomic<bool> failed_{false};    // a tile threw: the others are skipped
    std::atomic<bool> mismatch_{false};  // a band's live comparison and snapshot disagreed
};

}  // namespace grundy::strip
