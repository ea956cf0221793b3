// Strip: the column sweep of a strip, its relative state, and comparisons and restores of it.
#include "engine/strip.hpp"

#include "grundy/error.hpp"

namespace grundy::engine {

bool same_state(const StripSnapshot& a, const StripSnapshot& b) {
    return a.rows == b.rows && a.words == b.words;
}

Strip::Strip(uint64_t rows, MexKernel kernel) : rows_(rows) {
    if (rows == 0) throw Error("a strip needs at least one row");
    // Strip windows are short (about 3y bits) and the scans shorter still, so the word-at-a-time
    // scan wins: rows 0..255 took 13.1 s with it, 14.0 s with the summary kernel and 15.7 s
    // with the flat AVX-512 one (one thread, same results).
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
    windows_ = std::make_unique<StripWindows>(rows);
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
}

uint64_t Strip::advance(uint64_t* g) {
    sweep_(*windows_, next_, g);
    return next_++;
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
bool Strip::for_each_state_word(uint64_t x, Visit&& visit) const {
    for (const auto& seg : layout_) {
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
    for_each_state_word(x, [&](uint64_t i, uint64_t word) {
        out.words[i] = word;
        return true;
    });
}

bool Strip::matches(const StripSnapshot& s) const {
    if (next_ == 0 || s.rows != rows_ || s.words.size() != state_words_) return false;
    // Stops at the first differing word: cheap when the states differ, as they almost always do.
    return for_each_state_word(next_ - 1,
                               [&](uint64_t i, uint64_t word) { return word == s.words[i]; });
}

void Strip::restore(const StripSnapshot& s) {
    if (s.rows != rows_ || s.words.size() != state_words_)
        throw Error("internal: snapshot of another strip");
    StripWindows& ws = *windows_;
    const uint64_t x = s.column;
    // Row 0 is g(x', 0) = x': everything up to x is in it.
    StripWindows::reset(ws.row_sets[0], x + 1);
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
