// Strip: the column sweep of a strip, its relative state, and comparisons and restores of it.
#include "engine/strip.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "engine/config.hpp"
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
            sweep_ = sweep_strip_column_summary;
            break;
        default:
            sweep_ = sweep_strip_column_portable;
            break;
    }
    kernel_name_ = mex_kernel_name(kernel);
    uint64_t bands = threads > 1 ? static_cast<uint64_t>(threads) : 1;
    bands = std::max<uint64_t>(1, std::min(bands, rows / kMinStripBandRows));
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

    // Bands of equal estimated work: cuts where the running cost passes k / bands of the total.
    auto cost = [](uint64_t y) { return kStripCostBase + kStripCostPerRow * y; };
    uint64_t total = 0;
    for (uint64_t y = 0; y < rows; ++y) total += cost(y);
    std::vector<uint64_t> starts = {0};
    uint64_t run = 0;
    for (uint64_t y = 0; y < rows && starts.size() < bands; ++y) {
        run += cost(y);
        // At least kMinStripBandRows rows in every band (there are at most rows / that many).
        const uint64_t k = starts.size();
        if (run * bands >= k * total && y + 1 - starts.back() >= kMinStripBandRows &&
            rows - (y + 1) >= (bands - k) * kMinStripBandRows)
            starts.push_back(y + 1);
    }
    starts.push_back(rows);
    set_bands(starts);
}

void Strip::set_bands(const std::vector<uint64_t>& starts) {
    const std::vector<double> waits = band_wait_seconds();  // kept across new cuts
    bands_.clear();
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
        auto band = std::make_unique<Band>();
        if (k < waits.size()) band->wait_seconds = waits[k];
        band->y0 = starts[k];
        band->y1 = starts[k + 1];
        band->g.resize(band->y1 - band->y0);
        // The band compares its rows, and the diagonals through (x, y - 1) for its rows y - 1.
        for (uint32_t i = 0; i < layout_.size(); ++i) {
            const Segment& seg = layout_[i];
            const uint64_t owner_row = seg.is_row ? seg.y : seg.y - 1;
            if (owner_row >= band->y0 && owner_row < band->y1) band->segments.push_back(i);
        }
        bands_.push_back(std::move(band));
    }
}

// Moves the cuts between bands towards equal CPU time per band, from the CPU time each band's
// thread spent on the block just swept (its own clock: time the thread was not running does not
// count, so a busy machine does not fool it). The cost of a row is taken as its band's average;
// cuts move halfway to where that model puts them, which settles in a few blocks without
// oscillating. Values do not depend on the cuts, only the balance does.
void Strip::rebalance() {
    const size_t T = bands_.size();
    double total = 0;
    for (const auto& b : bands_) total += b->cpu_seconds;
    if (T < 2 || !(total > 0)) return;
    std::vector<uint64_t> starts = {0};
    size_t k = 0;
    double before = 0;  // CPU time of the bands below band k
    for (size_t j = 1; j < T; ++j) {
        const double target = total * static_cast<double>(j) / static_cast<double>(T);
        while (k + 1 < T && before + bands_[k]->cpu_seconds < target)
            before += bands_[k++]->cpu_seconds;
        const Band& b = *bands_[k];
        const double rows_k = static_cast<double>(b.y1 - b.y0);
        const double frac = b.cpu_seconds > 0 ? (target - before) / b.cpu_seconds : 0.5;
        const double cut = static_cast<double>(b.y0) + std::clamp(frac, 0.0, 1.0) * rows_k;
        const double old = static_cast<double>(bands_[j]->y0);
        uint64_t next = static_cast<uint64_t>(std::llround(old + (cut - old) / 2));
        // At least kMinStripBandRows rows in every band.
        next = std::max(next, starts.back() + kMinStripBandRows);
        next = std::min(next, rows_ - (T - j) * kMinStripBandRows);
        starts.push_back(next);
    }
    starts.push_back(rows_);
    bool same = true;
    for (size_t j = 0; j < T; ++j) same = same && starts[j] == bands_[j]->y0;
    if (!same) set_bands(starts);
}

Strip::~Strip() = default;

std::vector<uint64_t> Strip::band_starts() const {
    std::vector<uint64_t> r;
    for (const auto& b : bands_) r.push_back(b->y0);
    r.push_back(rows_);
    return r;
}

std::vector<double> Strip::band_wait_seconds() const {
    std::vector<double> r;
    for (const auto& b : bands_) r.push_back(b->wait_seconds);
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

// Spins briefly (the neighbour is usually a few microseconds behind), then sleeps on the counter:
// on a busy machine the thread it waits for may have lost its CPU for milliseconds, and a thread
// that sleeps instead of spinning or yielding lets the scheduler give that CPU back to it.
void Strip::wait_for(Band& band, Band& other, uint32_t target) {
    if (other.done.load(std::memory_order_acquire) >= target) return;
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t spins = 0; spins < kStripSpins; ++spins) {
        if (other.done.load(std::memory_order_acquire) >= target) break;
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
    }
    for (;;) {
        if (failed_.load()) throw Error("internal: another band failed");
        if (other.done.load(std::memory_order_acquire) >= target) break;
        // Announce the sleep before the last look, publish() stores before it looks for
        // sleepers (both sequentially consistent), so a wake-up cannot be missed; wait()
        // returns at once if the counter moved after that look.
        other.sleepers.fetch_add(1);
        const uint32_t seen = other.done.load();
        if (seen < target && !failed_.load()) other.done.wait(seen);
        other.sleepers.fetch_sub(1);
    }
    band.wait_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Strip::publish(Band& band, uint32_t count) {
    band.done.store(count);
    if (band.sleepers.load() != 0) band.done.notify_all();
}

namespace {
double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
}  // namespace

void Strip::run_band(size_t k, uint64_t first, const StripBlock& b) {
    Band& band = *bands_[k];
    const double cpu_start = thread_cpu_seconds();
    const size_t last_band = bands_.size() - 1;
    const uint64_t lag = windows_->lag;
    for (uint64_t i = 0; i < b.columns; ++i) {
        const uint64_t x = first + i;
        if (k > 0) {
            // Rows below, this column.
            wait_for(band, *bands_[k - 1], static_cast<uint32_t>(i + 1));
        } else if (last_band > 0 && i >= lag) {
            // Column slot x mod lag and the diagonal slots it reuses are free once the highest
            // band has finished column x - lag (at the block's start every band is done).
            wait_for(band, *bands_[last_band], static_cast<uint32_t>(i - lag + 1));
        }
        sweep_(*windows_, x, band.y0, band.y1, band.g.data());
        if (b.rows_done) b.rows_done(x, band.y0, band.y1, band.g.data());
        if (b.compare) band.matched[i] = band_matches(band, *b.compare, x) ? 1 : 0;
        publish(band, static_cast<uint32_t>(i + 1));
    }
    band.cpu_seconds = thread_cpu_seconds() - cpu_start;
}

void Strip::advance_block(const StripBlock& b) {
    if (b.columns == 0) return;
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    if (b.columns >= (uint64_t{1} << 31)) throw Error("internal: strip block too long");
    const uint64_t first = next_;
    for (auto& band : bands_) {
        band->done.store(0);
        if (b.compare) band->matched.assign(b.columns, 0);
    }
    if (bands_.size() == 1) {
        run_band(0, first, b);
    } else {
        // The exception of the band that failed first; the others then stop waiting and throw
        // too, but only to get out.
        std::exception_ptr error;
        auto work = [&](size_t k) {
            try {
                run_band(k, first, b);
            } catch (...) {
                if (!failed_.exchange(true)) error = std::current_exception();
                // Wake whoever sleeps on this band; they see failed_ and leave too.
                publish(*bands_[k], ~uint32_t{0});
            }
        };
        std::vector<std::thread> helpers;
        for (size_t k = 1; k < bands_.size(); ++k) helpers.emplace_back(work, k);
        work(0);
        for (auto& t : helpers) t.join();
        if (error) std::rethrow_exception(error);
    }
    next_ = first + b.columns;
    if (mismatch_.load()) throw Error("internal: live comparison and snapshot disagree");
    if (b.compare && b.matched) {
        b.matched->assign(b.columns, 1);
        for (const auto& band : bands_)
            for (uint64_t i = 0; i < b.columns; ++i) (*b.matched)[i] &= band->matched[i];
    }
    if (b.columns >= kStripRebalanceColumns) rebalance();
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
bool Strip::for_each_state_word(const std::vector<uint32_t>& segs, uint64_t x,
                                Visit&& visit) const {
    for (const uint32_t i : segs) {
        const Segment& seg = layout_[i];
        const BitWindow& w = window_of(seg, x);
        const int64_t first = static_cast<int64_t>(x) + seg.start;
        for (uint64_t k = 0; k * 64 < seg.bits; ++k) {
            uint64_t c = chunk(w, first + static_cast<int64_t>(k * 64));
            const uint64_t left = seg.bits - k * 64;
            if (left < 64) c &= (uint64_t{1} << left) - 1;
            if (!visit(seg.offset + k, c)) return false;
        }
    }
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
// before it starts column x + 1 (strip.hpp). A match is checked again by copying the segments
// out, as snapshot() would, and comparing the copies.
bool Strip::band_matches(Band& band, const StripSnapshot& s, uint64_t x) {
    if (s.rows != rows_ || s.words.size() != state_words_) return false;
    const bool same = for_each_state_word(
        band.segments, x, [&](uint64_t i, uint64_t word) { return word == s.words[i]; });
    if (!same) return false;
    band.check.words.assign(state_words_, 0);
    for_each_state_word(band.segments, x, [&](uint64_t i, uint64_t word) {
        band.check.words[i] = word;
        return true;
    });
    for (const uint32_t i : band.segments) {
        const Segment& seg = layout_[i];
        for (uint64_t w = seg.offset; w < seg.offset + (seg.bits + 63) / 64; ++w)
            if (band.check.words[w] != s.words[w]) mismatch_.store(true);
    }
    return true;
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
