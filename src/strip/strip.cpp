// Strip: the column sweep of a strip, its relative state, and comparisons and restores of it.
#include "strip/strip.hpp"

#include <algorithm>
#include <string>

#include "engine/config.hpp"
#include "engine/sweep.hpp"
#include "grundy/error.hpp"

namespace grundy::engine {

bool same_state(const StripSnapshot& a, const StripSnapshot& b) {
    return a.rows == b.rows && a.words == b.words;
}

Strip::Strip(uint64_t rows, MexKernel kernel, int threads, uint64_t lag) : rows_(rows) {
    if (rows == 0) throw Error("a strip needs at least one row");
    // Strip windows are short (about 3y bits) and the scans shorter still (about y / 2 bits), so
    // the word-at-a-time scan wins: rows 0..255 took 13.1 s with it, 14.0 s with the summary
    // kernel and 15.7 s with the flat AVX-512 one (one thread, same results). Measured again
    // for 512 and 1024 rows (one thread, best of 3-4 runs of 30 000-60 000 columns): portable
    // 16.9 and 19.9 ns per cell, summary 18.7 and 21.2, AVX2 19.3 and 21.9, AVX-512 21.6 and
    // 25.0. A vector scan also loads the column's last word right after the previous cell
    // stored it, which store forwarding cannot serve.
    if (kernel == MexKernel::Auto) kernel = MexKernel::Portable;
    if (!mex_kernel_supported(kernel))
        throw Error(std::string("this CPU cannot run the ") + mex_kernel_name(kernel) +
                    " mex kernel");
    switch (kernel) {
        case MexKernel::Avx512:
            sweep_ = sweep_strip_column_avx512;
            break;
        case MexKernel::Avx2:
            sweep_ = sweep_strip_column_avx2;
            break;
        case MexKernel::Summary:
            sweep_ = scalar_sweeps().summary_strip;
            break;
        default:
            sweep_ = scalar_sweeps().portable_strip;
            break;
    }
    kernel_name_ = mex_kernel_name(kernel);
    const uint64_t t = threads > 1 ? static_cast<uint64_t>(threads) : 1;
    uint64_t bands = t == 1 ? 1 : t * kStripBandsPerThread;
    bands = std::max<uint64_t>(1, std::min(bands, rows / kMinStripBandRows));
    threads_ = static_cast<int>(std::min(t, bands));
    windows_ = std::make_unique<StripWindows>(rows, bands == 1 ? 1 : lag ? lag : kStripLag);
    // Highest rows first: they settle last, so that is where two states usually differ.
    for (uint64_t y = rows - 1; y >= 1; --y) {
        const int64_t iy = static_cast<int64_t>(y);
        layout_.push_back({true, y, 1 - 2 * iy, 3 * y, 0});
        layout_.push_back({false, y, 2 - 2 * iy, 3 * y - 2, 0});
    }
    for (auto& seg : layout_) {
        seg.offset = state_words_;
        state_words_ += (seg.bits + 63) / 64;
        state_bits_ += seg.bits;
    }
    for (uint32_t i = 0; i < layout_.size(); ++i) all_segments_.push_back(i);

    cut_bands(bands);
}

// Bands of equal estimated work: cuts where the running cost passes k / count of the total. A
// settled row costs a fraction of a computed one (its cells only insert a known value).
void Strip::cut_bands(uint64_t count) {
    auto cost = [this](uint64_t y) {
        return y < settled_.rows ? kStripCostSettled : kStripCostBase + kStripCostPerRow * y;
    };
    uint64_t total = 0;
    for (uint64_t y = 0; y < rows_; ++y) total += cost(y);
    std::vector<uint64_t> starts = {0};
    uint64_t run = 0;
    for (uint64_t y = 0; y < rows_ && starts.size() < count; ++y) {
        run += cost(y);
        // At least kMinStripBandRows rows in every band (there are at most rows / that many).
        const uint64_t k = starts.size();
        if (run * count >= k * total && y + 1 - starts.back() >= kMinStripBandRows &&
            rows_ - (y + 1) >= (count - k) * kMinStripBandRows)
            starts.push_back(y + 1);
    }
    starts.push_back(rows_);
    set_bands(starts);
}

void Strip::set_bands(const std::vector<uint64_t>& starts) {
    bands_.clear();
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
        auto band = std::make_unique<Band>();
        band->y0 = starts[k];
        band->y1 = starts[k + 1];
        band->g.resize(band->y1 - band->y0);
        // The band compares its rows, and the diagonals through (x, y - 1) for its rows y - 1,
        // lowest first: the first difference then names the largest sub-strip that matches.
        for (uint32_t i = static_cast<uint32_t>(layout_.size()); i-- > 0;) {
            const Segment& seg = layout_[i];
            const uint64_t owner_row = seg.is_row ? seg.y : seg.y - 1;
            if (owner_row >= band->y0 && owner_row < band->y1) band->segments.push_back(i);
        }
        bands_.push_back(std::move(band));
    }
}

Strip::~Strip() = default;

std::vector<uint64_t> Strip::band_starts() const {
    std::vector<uint64_t> r;
    for (const auto& b : bands_) r.push_back(b->y0);
    r.push_back(rows_);
    return r;
}

uint64_t Strip::advance(uint64_t* g) {
    StripBlock b;
    b.columns = 1;
    b.rows_done = [g](uint64_t, uint64_t y0, uint64_t y1, const uint64_t* v) {
        std::copy(v, v + (y1 - y0), g + y0);
    };
    const uint64_t x = next_;
    advance_block(b);
    return x;
}

// Sweeps columns first .. first + n - 1 of band k: a tile. Its callbacks and comparisons run
// here too, on whichever thread runs the tile.
void Strip::run_tile(size_t k, uint64_t first, uint64_t i0, uint64_t n, const StripBlock& b) {
    Band& band = *bands_[k];
    const uint64_t given = std::clamp(settled_.rows, band.y0, band.y1);
    for (uint64_t i = i0; i < i0 + n; ++i) {
        const uint64_t x = first + i;
        if (given > band.y0) fill_settled(x, band.y0, given, band.g.data());
        if (given < band.y1)
            sweep_(*windows_, x, given, band.y1, band.g.data() + (given - band.y0));
        if (b.rows_done) b.rows_done(x, band.y0, band.y1, band.g.data());
        if (b.compare) band.mismatch[i] = band_mismatch(band, *b.compare, x);
    }
}

// The cells of settled rows y0..y1-1 in column x: the value the ring gives, added to the row,
// column and diagonal sets as the mex sweep would add it (strip_sweep.hpp), but without moving
// their low-water marks: whether a value equals a mark is a coin toss, and those mispredicted
// branches were most of a settled cell's time. A mark that lags is still true (every value
// below it is in the set), so the mex of a cell that reads it is the same, and so are the
// states (Strip::chunk reads the words). A row's mark is brought up to date only before its
// window must slide, which is what the mark is for there; the column starts anew next column.
void Strip::fill_settled(uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) {
    StripWindows& s = *windows_;
    BitWindow& col = s.column(x);
    if (y0 == 0) StripWindows::reset(col, s.column_floor(x));
    col.reserve_through((x + y1) / 64 + kScanPadWords);
    const WindowView col_view = col.view();
    const uint16_t* u =
        settled_.values + ((x - settled_.period) % settled_.length) * settled_.stride;
    // The ring's columns are a period old, out of every cache, and each cell's stores wait for
    // its value: fetch the values of a later column now.
    const uint16_t* later =
        settled_.values +
        ((x + kStripRingPrefetchColumns - settled_.period) % settled_.length) * settled_.stride;
    for (uint64_t i = y0 * 2; i < y1 * 2; i += 64)
        __builtin_prefetch(reinterpret_cast<const char*>(later) + i);
    uint64_t slot = s.diag_slot(x, y0);
    for (uint64_t y = y0; y < y1; ++y) {
        const uint64_t v = u[y] + x - 2 * y;
        BitWindow& row = s.row_sets[y];
        BitWindow& dia = s.diag_sets[slot];
        slot = slot == 0 ? s.diag_count - 1 : slot - 1;
        if (y == 0) StripWindows::reset(dia, s.diagonal_floor(x, y));
        const uint64_t last_word = (x + y) / 64 + kScanPadWords;
        if (last_word >= row.base + row.capacity) {
            row.advance_low();
            row.reserve_through(last_word);
        }
        if (last_word >= dia.base + dia.capacity) {
            dia.advance_low();
            dia.reserve_through(last_word);
        }
        row.view().set(v);
        dia.view().set(v);
        col_view.set(v);
        g[y - y0] = v;
    }
}

void Strip::settle(const SettledRows& settled) {
    if (settled.rows > rows_ ||
        (settled.rows &&
         (settled.period == 0 || !settled.values || settled.length % settled.period != 0 ||
          settled.stride < settled.rows || next_ <= settled.period)))
        throw Error("internal: settled rows without a usable ring");
    settled_ = settled;
    cut_bands(bands_.size());
}

// With several bands, the block is cut into tiles of one band by `chunk` columns, run as OpenMP
// tasks with dependencies: tile (k, j) after (k - 1, j) (the rows below, same columns) and
// (k, j - 1) (the same rows, the columns before), and the lowest band's tile j after the highest
// band's tile j - lag / chunk (the column and diagonal slots it reuses: strip_windows.hpp). Any
// idle thread takes any ready tile, so a thread that loses its CPU on a busy machine holds up one
// tile, not a whole band, and the work needs no balancing: there are several bands per thread.
void Strip::advance_block(const StripBlock& b) {
    if (b.columns == 0) return;
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    const uint64_t first = next_;
    for (auto& band : bands_)
        if (b.compare) band->mismatch.assign(b.columns, kNoMismatch);
    const size_t K = bands_.size();
    if (K == 1) {
        run_tile(0, first, 0, b.columns, b);
    } else {
        const uint64_t lag = windows_->lag;
        const uint64_t chunk = lag < kStripChunkColumns ? lag : kStripChunkColumns;
        const uint64_t behind = lag / chunk;  // chunk divides lag (config.hpp)
        const uint64_t chunks = (b.columns + chunk - 1) / chunk;
        std::vector<char> token(K * chunks);  // tile (k, j): token[k * chunks + j]
        char none = 0;                        // an absent dependency
        std::exception_ptr error;
#pragma omp parallel num_threads(threads_)
#pragma omp single
        for (uint64_t j = 0; j < chunks; ++j)
            for (size_t k = 0; k < K; ++k) {
                char* self = &token[k * chunks + j];
                char* left = j > 0 ? &token[k * chunks + j - 1] : &none;
                char* below = k > 0 ? &token[(k - 1) * chunks + j] : &none;
                char* reuse = k == 0 && j >= behind ? &token[(K - 1) * chunks + j - behind] : &none;
                const uint64_t i0 = j * chunk, n = std::min(chunk, b.columns - i0);
                (void)self, (void)left, (void)below, (void)reuse;  // GCC misses depend uses
#pragma omp task default(shared) firstprivate(k, i0, n) depend(in                             \
                                                               : left[0], below[0], reuse[0]) \
    depend(out                                                                                \
           : self[0])
                {
                    // After a failure the remaining tiles only run out.
                    if (!failed_.load(std::memory_order_relaxed)) {
                        try {
                            run_tile(k, first, i0, n, b);
                        } catch (...) {
#pragma omp critical(grundy_strip_error)
                            if (!error) error = std::current_exception();
                            failed_.store(true);
                        }
                    }
                }
            }
        if (error) std::rethrow_exception(error);
    }
    next_ = first + b.columns;
    if (mismatch_.load()) throw Error("internal: live comparison and snapshot disagree");
    if (b.compare && b.matched_rows) {
        // Row 0 has no segment (it is g(x, 0) = x): the sub-strip of row 0 always matches.
        b.matched_rows->assign(b.columns, static_cast<uint32_t>(rows_));
        for (const auto& band : bands_)
            for (uint64_t i = 0; i < b.columns; ++i)
                (*b.matched_rows)[i] = std::min((*b.matched_rows)[i], band->mismatch[i]);
    }
}

const BitWindow& Strip::window_of(const Segment& seg, uint64_t x) const {
    if (seg.is_row) return windows_->row_sets[seg.y];
    return windows_->diag_sets[windows_->diag_slot(x, seg.y - 1)];
}

uint64_t Strip::chunk(const BitWindow& w, int64_t v) {
    if (v < 0) {  // only for the first columns: values below 0 do not exist
        uint64_t r = 0;
        for (int64_t i = 0; i < 64; ++i)
            if (v + i >= 0 && w.contains(static_cast<uint64_t>(v + i))) r |= uint64_t{1} << i;
        return r;
    }
    auto word = [&w](uint64_t i) -> uint64_t {
        if ((i + 1) * 64 <= w.low) return ~uint64_t{0};
        uint64_t stored = (i >= w.base && i - w.base < w.capacity) ? w.words[i - w.base] : 0;
        if (i * 64 < w.low) stored |= (uint64_t{1} << (w.low % 64)) - 1;
        return stored;
    };
    const uint64_t u = static_cast<uint64_t>(v);
    const uint64_t i = u / 64, sh = u % 64;
    uint64_t r = word(i) >> sh;
    if (sh) r |= word(i + 1) << (64 - sh);
    return r;
}

template <class Visit>
bool Strip::for_each_segment_word(const Segment& seg, uint64_t x, Visit&& visit) const {
    const BitWindow& w = window_of(seg, x);
    const int64_t first = static_cast<int64_t>(x) + seg.start;
    for (uint64_t k = 0; k * 64 < seg.bits; ++k) {
        uint64_t c = chunk(w, first + static_cast<int64_t>(k * 64));
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
    for_each_state_word(all_segments_, x, [&](uint64_t i, uint64_t word) {
        out.words[i] = word;
        return true;
    });
}

bool Strip::matches(const StripSnapshot& s) const {
    if (next_ == 0 || s.rows != rows_ || s.words.size() != state_words_) return false;
    // Stops at the first differing word: cheap when the states differ, as they almost always do.
    return for_each_state_word(all_segments_, next_ - 1,
                               [&](uint64_t i, uint64_t word) { return word == s.words[i]; });
}

// The band's part of matches(), right after the band swept column x: its segments cannot change
// before it starts column x + 1 (strip.hpp). Returns the row of the lowest segment that differs.
// A match of all its segments is checked again by copying them out, as snapshot() would, and
// comparing the copies.
uint32_t Strip::band_mismatch(Band& band, const StripSnapshot& s, uint64_t x) {
    if (s.rows != rows_ || s.words.size() != state_words_) return 0;
    for (const uint32_t i : band.segments) {
        const Segment& seg = layout_[i];
        if (!for_each_segment_word(seg, x,
                                   [&](uint64_t w, uint64_t word) { return word == s.words[w]; }))
            return static_cast<uint32_t>(seg.y);
    }
    // Sized once: only this band's words are written and compared.
    if (band.check.words.size() != state_words_) band.check.words.assign(state_words_, 0);
    for_each_state_word(band.segments, x, [&](uint64_t i, uint64_t word) {
        band.check.words[i] = word;
        return true;
    });
    for (const uint32_t i : band.segments) {
        const Segment& seg = layout_[i];
        for (uint64_t w = seg.offset; w < seg.offset + (seg.bits + 63) / 64; ++w)
            if (band.check.words[w] != s.words[w]) mismatch_.store(true);
    }
    return kNoMismatch;
}

void Strip::restore(const StripSnapshot& s) {
    if (s.rows != rows_ || s.words.size() != state_words_)
        throw Error("internal: snapshot of another strip");
    StripWindows& ws = *windows_;
    const uint64_t x = s.column;
    // Row 0 is g(x', 0) = x': everything up to x is in it.
    StripWindows::reset(ws.row_sets[0], x + 1);
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    for (const auto& seg : layout_) {
        BitWindow& w = seg.is_row ? ws.row_sets[seg.y] : ws.diag_sets[ws.diag_slot(x, seg.y - 1)];
        const int64_t first = static_cast<int64_t>(x) + seg.start;
        // A row holds every value below its segment; a diagonal keeps its own floor.
        const uint64_t floor = seg.is_row ? static_cast<uint64_t>(first > 0 ? first : 0)
                                          : ws.diagonal_floor(x, seg.y - 1);
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
    next_ = x + 1;
}

}  // namespace grundy::engine
