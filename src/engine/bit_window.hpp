// BitWindow: one row, column or diagonal set of the engine, kept as a sliding window of bits.
//
// Why a window: when cell (x, y) is computed, the row already holds every value below x - 2y and
// no option is above x + y (src/DESIGN.md, 1.4), so only values in [x - 2y, x + y] are ever asked
// about. A window stores the bits from its low-water mark upwards and forgets what lies below,
// so a row of a strip needs O(y) bits however long it gets.
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/config.hpp"
#include "engine/window_memory.hpp"

namespace grundy::engine {

// What a cell's scan and inserts need of a window, copied into registers once per cell: the
// addresses of word 0 and summary word 0 of the value line (outside the allocations, never
// dereferenced out of range). The words are written through uint64_t*, which may alias any
// uint64_t, the windows' own fields included; reading the fields through the window after such
// a store makes the compiler load them again, and it did, at every use (cachegrind, 4096^2:
// 44 loads and 126 instructions per computed cell).
// Whether the line starting at `l` (kLineWords words) is full.
inline bool line_full(const uint64_t* l) {
    return (l[0] & l[1] & l[2] & l[3] & l[4] & l[5] & l[6] & l[7]) == ~uint64_t{0};
}

struct WindowView {
    uintptr_t word_origin;
    uintptr_t full_origin;

    uint64_t* word_ptr(uint64_t w) const {
        return reinterpret_cast<uint64_t*>(word_origin + 8 * w);
    }
    uint64_t word(uint64_t w) const { return *word_ptr(w); }
    // The summary word covering absolute lines [64 s, 64 s + 63] (a line: 8 words, 512 values).
    uint64_t full_summary(uint64_t s) const {
        return *reinterpret_cast<const uint64_t*>(full_origin + 8 * s);
    }
    // After word w (reserved) became full: sets its line's summary bit if the whole line is.
    void note_full(uint64_t w) const {
        if (line_full(word_ptr(w / kLineWords * kLineWords)))
            *reinterpret_cast<uint64_t*>(full_origin + 8 * (w / kLineWords / 64)) |=
                uint64_t{1} << (w / kLineWords % 64);
    }
    // Sets bit v (its word reserved) and, if that fills its line, the line's summary bit. The
    // window's low-water mark is the caller's (BitWindow::insert).
    void set(uint64_t v) const {
        uint64_t* word = word_ptr(v / 64);
        const uint64_t bits = *word | uint64_t{1} << (v % 64);
        *word = bits;
        if (bits == ~uint64_t{0}) note_full(v / 64);
    }
};

//
// Each window also keeps a summary with one bit per line, set when that line is full. Most of
// the values a mex scan crosses lie in lines full in at least one of its three sets, so the scan
// skips 64 lines (32768 values) per summary word and only looks at the union of the few lines
// that are full in none of them. Summary words are aligned to absolute line indices (bit l % 64
// of summary word l / 64), so the summaries of the three windows of a cell combine with plain
// ORs whatever their bases. A summary bit per word instead (4096 values a summary word) crossed
// 0.83 summary words a computed cell at 16384^2 and 3.3 at 65536^2, each crossing three
// dependent loads: a cell cost 1.37 times as much at 65536^2 as at 16384^2 (docs/benchmarks.md).
// Narrow shapes pay for it: a table of 2048 rows takes 15% more CPU than with word summaries, a
// strip of 2048 rows 6% (the same guide, "Narrow tables and strips").
struct alignas(64) BitWindow {  // one cache line each, so neighbouring windows never share one
    uint64_t* words = nullptr;  // bit v of the set is bit v % 64 of words[v / 64 - base]
    uint64_t base = 0;          // index (in 64-bit words of the value line) of words[0], a line's
    uint64_t capacity = 0;      // words allocated, whole lines
    uint64_t low = 0;           // low-water mark: every value below it is in the set or unneeded
    uint64_t* full = nullptr;   // summary: bit l % 64 of full[l / 64 - base / 512] = line l full
    uint64_t full_words = 0;    // summary words, right after the words in the same allocation
    // Addresses of word 0 and summary word 0 of the value line (outside the allocations):
    // word w is at word_origin + 8 w. The hot paths then need one load per word instead of a
    // load of `base` and a subtraction. Kept as integers, never dereferenced out of range.
    uintptr_t word_origin = 0;
    uintptr_t full_origin = 0;

    bool is_open() const { return words != nullptr; }

    // Opens an empty set whose values below `floor` will never be asked about (they count as
    // present). Returns the bytes allocated.
    uint64_t open(uint64_t floor, uint64_t initial_words) {
        base = line_start(floor / 64);
        low = floor;
        allocate(initial_words < kMinWindowWords ? kMinWindowWords : initial_words);
        set_origins();
        return (capacity + full_words) * 8;
    }

    // Opens this (closed) window as a copy of `other`: same values, same low-water mark.
    // Returns the bytes allocated.
    uint64_t open_copy(const BitWindow& other) {
        base = other.base;
        low = other.low;
        allocate(other.capacity);
        std::memcpy(words, other.words, (capacity + full_words) * 8);
        set_origins();
        return (capacity + full_words) * 8;
    }

    // Releases the storage. Returns the bytes freed.
    uint64_t close() {
        const uint64_t bytes = (capacity + full_words) * 8;
        free_window_block(words, bytes);
        words = full = nullptr;
        capacity = full_words = 0;
        return bytes;
    }

    // Empties the set for reuse with a new floor, keeping its storage (a strip reuses the
    // windows of its column and diagonals). Returns the change in bytes allocated.
    int64_t reset(uint64_t floor) {
        std::memset(words, 0, (capacity + full_words) * 8);
        base = line_start(floor / 64);
        low = floor;
        set_origins();
        return 0;
    }

    // Makes the words up to `last_word` addressable. Returns the change in bytes allocated.
    int64_t reserve_through(uint64_t last_word) {
        if (last_word < base + capacity) return 0;
        return make_room(last_word);
    }

    bool contains(uint64_t v) const {
        if (v < low) return true;
        const uint64_t w = v / 64 - base;
        return w < capacity && ((words[w] >> (v % 64)) & 1);
    }

    // Adds v (v >= low, its word already reserved) and moves the low-water mark past it.
    void insert(uint64_t v) {
        const uint64_t low_before = low;
        view().set(v);
        if (v == low_before) advance_low();
    }

    // The hot fields for one cell (valid until the window next slides or grows).
    WindowView view() const { return {word_origin, full_origin}; }

    // Moves the low-water mark up to the least value not in the set (after view().set(low)).
    void advance_low() {
        uint64_t w = low / 64 - base;
        uint64_t free_bits = ~words[w] & (~uint64_t{0} << (low % 64));
        while (free_bits == 0) {
            if (++w == capacity) {  // everything stored is present
                low = (base + capacity) * 64;
                return;
            }
            free_bits = ~words[w];
        }
        low = (base + w) * 64 + static_cast<uint64_t>(__builtin_ctzll(free_bits));
    }

    // The layout's rules, public for a window laid over storage of its own (the tests' guarded
    // windows). The first word of `word`'s line: a window's base.
    static uint64_t line_start(uint64_t word) { return word / kLineWords * kLineWords; }

    // Summary words that cover `capacity` words from any base: words [base, base + capacity)
    // fall in at most capacity / 512 + 2 summary words, plus one so that a scan may always read
    // the summary word after the one it is in. Independent of the base, so a slide never needs
    // a larger summary and the summary can live in the words' allocation: one block per
    // window instead of two (allocations were 3.7% of a 16384^2 run, most of it windows
    // growing).
    static uint64_t summary_words_for(uint64_t capacity) {
        return capacity / (kLineWords * 64) + 3;
    }

    // The hot paths' origins, from words, full and base.
    void set_origins() {
        word_origin = reinterpret_cast<uintptr_t>(words) - 8 * base;
        full_origin = reinterpret_cast<uintptr_t>(full) - 8 * (base / kLineWords / 64);
    }

    // The block (its size class, in bytes) of a window asked to hold `words` words: whole
    // lines and their summary. Public for the memory estimate (state_estimate.cpp), as is the
    // next.
    static uint64_t block_for(uint64_t words) {
        const uint64_t lines = (words + kLineWords - 1) / kLineWords * kLineWords;
        return window_block_size((lines + summary_words_for(lines)) * 8);
    }

    // The capacity a window gets from a block of `block` bytes: the most whole lines whose
    // summary fits beside them. The size class may hold more words than were asked for: they
    // become capacity rather than waste.
    static uint64_t capacity_of_block(uint64_t block) {
        uint64_t fit = line_start((block / 8 - 3) * 512 / 513);
        while ((fit + summary_words_for(fit)) * 8 > block) fit -= kLineWords;
        while ((fit + kLineWords + summary_words_for(fit + kLineWords)) * 8 <= block)
            fit += kLineWords;
        return fit;
    }

  private:
    // Points words and full at a new zeroed block of at least `words_wanted` words and their
    // summary (the caller frees the old one).
    void allocate(uint64_t words_wanted) {
        const uint64_t block = block_for(words_wanted);
        const uint64_t fit = capacity_of_block(block);
        const uint64_t summary = summary_words_for(fit);
        auto* p = static_cast<uint64_t*>(allocate_window_block(block));
        std::memset(p, 0, (fit + summary) * 8);
        words = p;
        full = p + fit;
        capacity = fit;
        full_words = summary;
    }

    // Recomputes the summary after the words moved (slides and growth are rare: amortised)
    // from the first `used` words (the rest are empty). Without a branch per word: whether a
    // word is full is a coin toss there, and the branch was most of prepare_tile's 1% of a run.
    void rebuild_summary(uint64_t used) {
        std::memset(full, 0, full_words * 8);
        const uint64_t first = base / kLineWords;
        for (uint64_t i = 0; i + kLineWords <= used; i += kLineWords) {
            const uint64_t line = first + i / kLineWords;
            full[line / 64 - first / 64] |= static_cast<uint64_t>(line_full(words + i))
                                            << (line % 64);
        }
        set_origins();
    }

    // Slides the window up to the low-water mark, and grows it if that is not enough. A slide
    // copies the whole window, so it must leave room to spare (`slack`, a quarter of what is
    // needed): the next slide then comes only after the window's top has moved that far, and
    // the copying stays a few words per word of progress. The old rule (slide when that halves
    // the window, else double it) kept every window about twice the size it needs, and the row
    // windows, open across the whole table, are most of the engine's memory.
    int64_t make_room(uint64_t last_word) {
        const uint64_t low_word = line_start(low / 64);
        const uint64_t needed = last_word - low_word + 1;
        const uint64_t slack = needed / 4 > kMinWindowWords ? needed / 4 : kMinWindowWords;
        if (needed + slack <= capacity) {
            const uint64_t shift = low_word - base;
            const uint64_t kept = capacity - shift;
            std::memmove(words, words + shift, kept * 8);
            std::memset(words + kept, 0, shift * 8);
            base = low_word;
            rebuild_summary(kept);
            return 0;
        }
        uint64_t* old = words;
        const uint64_t old_total = capacity + full_words;
        const uint64_t shift = low_word - base;
        const uint64_t kept = capacity - shift;
        allocate(needed + 2 * slack);
        std::memcpy(words, old + shift, kept * 8);
        free_window_block(old, old_total * 8);
        base = low_word;
        rebuild_summary(kept);
        return (static_cast<int64_t>(capacity + full_words) - static_cast<int64_t>(old_total)) * 8;
    }
};

}  // namespace grundy::engine
