// Strip: its relative state after a column (strip.hpp): the snapshot, the comparisons with a
// saved one (in full, and row by row inside the sweep), the settled rows' part rebuilt from the
// ring, and the restores (a resumed run, rows handed over between ranks). The sweep itself is
// strip.cpp's.
#include "strip/sweep/strip.hpp"

#include <algorithm>
#include <vector>

#include "engine/config.hpp"
#include "grundy/error.hpp"
#include "strip/sweep/boundary_bits.hpp"

namespace grundy::strip {

bool same_state(const StripSnapshot& a, const StripSnapshot& b) {
    return a.rows == b.rows && a.words == b.words;
}

const BitWindow& Strip::window_of(const Segment& seg, uint64_t x) const {
    if (seg.is_row) return windows_->row_sets[seg.y];
    return windows_->diag_sets[windows_->diag_slot(x, seg.y - 1)];
}

// Row y's set after column x, bits x + 1 - 2y .. x + y: the values of columns x - 3y .. x (a
// value of column x' lies in [x' - 2y, x' + y]). The diagonal through (x, y - 1): its cells
// (x - k, y - 1 - k), k < y, all of whose values lie in its segment (strip.hpp).
void Strip::settled_segment(const Segment& seg, uint64_t x, std::vector<uint64_t>& out) const {
    out.assign((seg.bits + 63) / 64, 0);
    const int64_t first = static_cast<int64_t>(x) + seg.start;
    auto add = [&](uint64_t column, uint64_t y) {
        const uint64_t d = *settled_.at(column, y);
        const int64_t bit = static_cast<int64_t>(column + d) - 2 * static_cast<int64_t>(y) - first;
        if (bit >= 0 && bit < static_cast<int64_t>(seg.bits))
            out[static_cast<uint64_t>(bit) / 64] |= uint64_t{1} << (bit % 64);
    };
    if (seg.is_row) {
        for (uint64_t c = x > 3 * seg.y ? x - 3 * seg.y : 0; c <= x; ++c) add(c, seg.y);
    } else {
        for (uint64_t k = 0; k < seg.y && k <= x; ++k) add(x - k, seg.y - 1 - k);
    }
}

// The lowest settled row whose segment after column x differs from `words` (a snapshot's), or
// kNoMismatch: the settled part of band_mismatch, rebuilt from the ring and compared in full.
uint32_t Strip::settled_mismatch(const std::vector<uint64_t>& words, uint64_t x) const {
    std::vector<uint64_t> seg_words;
    for (uint32_t i = static_cast<uint32_t>(layout_.size()); i-- > 0;) {
        const Segment& seg = layout_[i];
        if (!is_settled(seg)) continue;
        settled_segment(seg, x, seg_words);
        if (!std::equal(seg_words.begin(), seg_words.end(), words.begin() + seg.offset))
            return static_cast<uint32_t>(seg.y);
    }
    return kNoMismatch;
}

// The settled rows' words of the state after column x, into `words` (state_words() of them):
// settled_segment's bits, read off the ring a column at a time. A row's segment spans 3y
// columns, whose values lie a ring column (2Y bytes) apart, so segment by segment every value
// was a cache miss of its own: 0.26 s a state for 4172 settled rows of 6144 in a test of that
// access alone, against 0.012 s for the same values read column by column.
void Strip::settled_words(uint64_t x, std::vector<uint64_t>& words) const {
    const uint64_t m = settled_.rows;
    for (const Segment& seg : layout_)
        if (is_settled(seg))
            std::fill_n(words.begin() + static_cast<int64_t>(seg.offset), (seg.bits + 63) / 64, 0);
    if (m == 0) return;
    // layout_ holds rows_ - 1 .. 1, each row's segment then its diagonal's (Strip::Strip).
    const auto set = [&](uint64_t index, int64_t bit) {
        const Segment& seg = layout_[index];
        if (bit >= 0 && bit < static_cast<int64_t>(seg.bits))
            words[seg.offset + static_cast<uint64_t>(bit) / 64] |= uint64_t{1} << (bit % 64);
    };
    const auto row_segment = [&](uint64_t y) { return 2 * (rows_ - 1 - y); };
    // Column x - k: row y's segment holds its value if k <= 3y (bit d - k - 1, d its ring
    // value), and the diagonal through (x, y - 1) the value of row y - 1 - k (bit d + k), for
    // y <= m (the diagonals below a settled row) that enter a row of the strip.
    const uint64_t diagonals = std::min(m, rows_ - 1);
    for (uint64_t k = 0; k <= std::min(x, 3 * (m - 1)); ++k) {
        // Column x - k's values of both rings (SettledRows::at): row y's is d(y).
        const uint64_t split = std::min(settled_.first, m);
        const uint16_t* low = split ? settled_.at(x - k, 0) : nullptr;
        const uint16_t* high = split < m ? settled_.at(x - k, split) : nullptr;
        const auto d = [&](uint64_t y) {
            return static_cast<int64_t>(y < split ? low[y] : high[y - split]);
        };
        const auto ik = static_cast<int64_t>(k);
        for (uint64_t y = std::max<uint64_t>(1, (k + 2) / 3); y < m; ++y)
            set(row_segment(y), d(y) - ik - 1);
        for (uint64_t r = 0; r + k + 1 <= diagonals; ++r)
            set(row_segment(r + k + 1) + 1, d(r) + ik);
    }
}

template <class Visit>
bool Strip::for_each_segment_word(const Segment& seg, uint64_t x, Visit&& visit) const {
    if (is_settled(seg)) {  // its windows are not kept
        std::vector<uint64_t> words;
        settled_segment(seg, x, words);
        for (uint64_t k = 0; k < words.size(); ++k)
            if (!visit(seg.offset + k, words[k])) return false;
        return true;
    }
    const BitWindow& w = window_of(seg, x);
    const int64_t first = static_cast<int64_t>(x) + seg.start;
    for (uint64_t k = 0; k * 64 < seg.bits; ++k) {
        uint64_t c = window_chunk(w, first + static_cast<int64_t>(k * 64));
        const uint64_t left = seg.bits - k * 64;
        if (left < 64) c &= (uint64_t{1} << left) - 1;
        if (!visit(seg.offset + k, c)) return false;
    }
    return true;
}

template <class Visit>
bool Strip::for_each_state_word(const std::vector<uint32_t>& segs, uint64_t x,
                                Visit&& visit) const {
    for (const uint32_t i : segs)
        if (!for_each_segment_word(layout_[i], x, visit)) return false;
    return true;
}

void Strip::snapshot(StripSnapshot& out) const {
    if (next_ == 0) throw Error("internal: snapshot of a strip before its first column");
    const uint64_t x = next_ - 1;
    out.rows = rows_;
    out.column = x;
    out.words.assign(state_words_, 0);
    for (const uint32_t i : own_segments_)
        if (!is_settled(layout_[i]))
            for_each_segment_word(layout_[i], x, [&](uint64_t w, uint64_t word) {
                out.words[w] = word;
                return true;
            });
    settled_words(x, out.words);  // only rank 0 has settled rows, all of them its own
}

// Band's part of snapshot() after column x, as the band leaves that column: the words of its
// swept rows (those it compares: band_mismatch), which cannot change before the band sweeps
// column x + 1.
void Strip::save_band(const Band& band, uint64_t x, StripSnapshot& out) const {
    for (const uint32_t i : band.segments)
        for_each_segment_word(layout_[i], x, [&](uint64_t w, uint64_t word) {
            out.words[w] = word;
            return true;
        });
}

// The rest of a block's last save (StripBlock::save): the settled rows' words, rebuilt from
// the ring, and 0 for the other ranks' rows, as snapshot() leaves them.
void Strip::finish_saves(const StripBlock& b, uint64_t first) const {
    if (!b.save || b.save_after.empty()) return;
    StripSnapshot& out = *b.save;
    settled_words(first + b.save_after.back(), out.words);
    for (const Segment& seg : layout_)
        if (owner_row(seg) < lo_ || owner_row(seg) >= hi_)
            std::fill_n(out.words.begin() + static_cast<int64_t>(seg.offset), (seg.bits + 63) / 64,
                        0);
    out.rows = rows_;
}

bool Strip::matches(const StripSnapshot& s) const {
    if (next_ == 0 || s.rows != rows_ || s.words.size() != state_words_) return false;
    // Stops at the first differing word: cheap when the states differ, as they almost always do.
    return for_each_state_word(own_segments_, next_ - 1,
                               [&](uint64_t i, uint64_t word) { return word == s.words[i]; });
}

bool Strip::same_row(void* check, uint64_t x, uint64_t y) {
    auto& c = *static_cast<RowCheck*>(check);
    const uint32_t row = c.strip->band_mismatch(*c.band, *c.s, x, y);
    if (row == kNoMismatch) return true;
    c.band->mismatch[x - c.first] = row;
    return false;
}

// The band's part of matches() after column x, for owner row y (the row of the segment that
// differs, or kNoMismatch), right after the band swept (x, y): its segments cannot change before
// cells (x + 1, y) and (x + 1, y + 1) (strip.hpp). The words compared are also copied out, as
// snapshot() would, and a segment that matched is compared again as copied.
uint32_t Strip::band_mismatch(Band& band, const StripSnapshot& s, uint64_t x, uint64_t y) {
    if (y < band.first_owned || y >= band.y1) return kNoMismatch;
    const uint64_t at = y - band.first_owned;
    std::vector<uint64_t>& copy = band.check.words;
    for (uint32_t k = band.owned[at]; k < band.owned[at + 1]; ++k) {
        const Segment& seg = layout_[band.segments[k]];
        copy.clear();
        if (!for_each_segment_word(seg, x, [&](uint64_t w, uint64_t word) {
                copy.push_back(word);
                return word == s.words[w];
            }))
            return static_cast<uint32_t>(seg.y);
        if (!std::equal(copy.begin(), copy.end(), s.words.begin() + seg.offset))
            mismatch_.store(true);
    }
    return kNoMismatch;
}

void Strip::restore(const StripSnapshot& s) {
    if (s.rows != rows_ || s.words.size() != state_words_)
        throw Error("internal: snapshot of another strip");
    if (settled_.rows) throw Error("internal: restore of a strip with settled rows");
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    // Row 0 is g(x', 0) = x': everything up to x is in it.
    StripWindows::reset(windows_->row_sets[0], s.column + 1);
    for (const uint32_t i : own_segments_) restore_segment(layout_[i], s);
    next_ = s.column + 1;
}

// The window of one segment of the state after column s.column, from the snapshot's bits.
void Strip::restore_segment(const Segment& seg, const StripSnapshot& s) {
    StripWindows& ws = *windows_;
    const uint64_t x = s.column;
    BitWindow& w = seg.is_row ? ws.row_sets[seg.y] : ws.diag_sets[ws.diag_slot(x, seg.y - 1)];
    const int64_t first = static_cast<int64_t>(x) + seg.start;
    // A row holds every value below its segment; a diagonal keeps its own floor.
    const uint64_t floor =
        seg.is_row ? static_cast<uint64_t>(first > 0 ? first : 0) : ws.diagonal_floor(x, seg.y - 1);
    StripWindows::reset(w, floor);
    for (uint64_t b = 0; b < seg.bits; ++b) {
        if (!((s.words[seg.offset + b / 64] >> (b % 64)) & 1)) continue;
        const int64_t v = first + static_cast<int64_t>(b);
        if (v < static_cast<int64_t>(floor))
            throw Error("internal: snapshot bit below its window's floor");
        w.reserve_through(static_cast<uint64_t>(v) / 64 + kScanPadWords);
        w.insert(static_cast<uint64_t>(v));
    }
}

// The rows it gains are restored (their windows are this rank's from now on); the rows it
// gives away are left as they are, never read again. The diagonal slots of a block's end are
// those of distinct diagonals (strip_windows.hpp), so a restored one overwrites nothing alive.
void Strip::repartition(const StripPart& part, const StripSnapshot& s, const SettledRows& settled) {
    // Only rank 0 settles rows (settle), and it keeps them.
    if (!link_ || part.link != link_ || part.lo >= part.hi || part.hi > rows_ ||
        (part.lo == 0) != (lo_ == 0) || (lo_ == 0 && settled.rows != settled_.rows) ||
        (settled_.rows && settled_.rows >= part.hi))
        throw Error("internal: a strip's rows cut again without its link or its settled rows");
    if (s.rows != rows_ || s.words.size() != state_words_ || next_ == 0 || s.column + 1 != next_)
        throw Error("internal: rows handed over in a snapshot of another column");
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    const uint64_t old_lo = lo_, old_hi = hi_;
    own_rows(part.lo, part.hi);
    for (const uint32_t i : own_segments_) {
        const Segment& seg = layout_[i];
        const uint64_t row = owner_row(seg);
        if ((row < old_lo || row >= old_hi) && !is_settled(seg)) restore_segment(seg, s);
    }
    if (settled_.rows) {  // the ring was laid out again for the new rows
        settled_.values = settled.values;
        settled_.stride = settled.stride;
    }
    cut_bands(band_count_);
}

}  // namespace grundy::strip
