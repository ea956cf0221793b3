// Rows changing hands between ranks (rank_moves.hpp).
#include "strip/rank_moves.hpp"

#include <algorithm>
#include <cstring>

#include "grundy/error.hpp"

namespace grundy::strip {
namespace {

size_t owner(const std::vector<uint64_t>& starts, uint64_t y) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), y) - starts.begin()) -
           1;
}

// One row's part of the search: its last mismatch, then its ring entries (x mod L = 0..L-1),
// four to a word.
void pack_row(const SearchState& p, uint64_t y, std::vector<uint64_t>& out) {
    const uint64_t L = p.ring_len, stride = p.end_row - p.first_row, i = y - p.first_row;
    out.push_back(p.last_mismatch[i]);
    for (uint64_t x = 0; x < L; x += 4) {
        uint64_t word = 0;
        for (uint64_t k = 0; k < 4 && x + k < L; ++k)
            word |= uint64_t{p.ring[(x + k) * stride + i]} << (16 * k);
        out.push_back(word);
    }
}

uint64_t packed_row_words(uint64_t L) {
    return 1 + (L + 3) / 4;
}

}  // namespace

uint64_t move_rows(SearchState& p, const std::vector<uint64_t>& old_starts,
                   const std::vector<uint64_t>& new_starts, RankLink& link) {
    const auto me = static_cast<size_t>(link.rank());
    const auto R = static_cast<size_t>(link.ranks());
    if (old_starts.size() != R + 1 || new_starts.size() != R + 1 || p.first_row != old_starts[me] ||
        p.end_row != old_starts[me + 1])
        throw Error("internal: rows moved between ranks from another cut");
    link.all_or(p.strip.words);
    if (p.has_saved) link.all_or(p.saved.words);

    const uint64_t lo = new_starts[me], hi = new_starts[me + 1], L = p.ring_len;
    uint64_t gained = 0;
    for (uint64_t y = lo; y < hi; ++y) gained += owner(old_starts, y) != me;
    if (L == 0) {  // no ring: only the state moves
        p.first_row = lo, p.end_row = hi;
        return gained;
    }
    std::vector<std::vector<uint64_t>> out(R);
    for (uint64_t y = p.first_row; y < p.end_row; ++y)
        if (const size_t to = owner(new_starts, y); to != me) pack_row(p, y, out[to]);
    const std::vector<std::vector<uint64_t>> in = link.exchange(out);

    const uint64_t stride = hi - lo, old_stride = p.end_row - p.first_row;
    Ring ring;
    ring.assign(stride * L);
    std::vector<uint64_t> last(stride, kNone);
    // The rows it keeps, a run of each ring column at a time.
    const uint64_t keep_lo = std::max(lo, p.first_row), keep_hi = std::min(hi, p.end_row);
    if (keep_lo < keep_hi) {
        for (uint64_t x = 0; x < L; ++x)
            std::memcpy(ring.data() + x * stride + (keep_lo - lo),
                        p.ring.data() + x * old_stride + (keep_lo - p.first_row),
                        (keep_hi - keep_lo) * sizeof(uint16_t));
        std::copy(p.last_mismatch.begin() + static_cast<int64_t>(keep_lo - p.first_row),
                  p.last_mismatch.begin() + static_cast<int64_t>(keep_hi - p.first_row),
                  last.begin() + static_cast<int64_t>(keep_lo - lo));
    }
    // The rows it gains, in the order each sender packed them (rising rows).
    std::vector<size_t> read(R, 0);
    for (uint64_t y = lo; y < hi; ++y) {
        const size_t from = owner(old_starts, y);
        if (from == me) continue;
        const std::vector<uint64_t>& words = in[from];
        if (read[from] + packed_row_words(L) > words.size())
            throw Error("internal: rank " + std::to_string(from) + " sent too few rows");
        const uint64_t* w = words.data() + read[from];
        last[y - lo] = w[0];
        for (uint64_t x = 0; x < L; ++x)
            ring.data()[x * stride + (y - lo)] =
                static_cast<uint16_t>(w[1 + x / 4] >> (16 * (x % 4)));
        read[from] += packed_row_words(L);
    }
    for (size_t r = 0; r < R; ++r)
        if (read[r] != in[r].size())
            throw Error("internal: rank " + std::to_string(r) + " sent rows not asked for");
    p.ring = std::move(ring);
    p.last_mismatch = std::move(last);
    p.first_row = lo, p.end_row = hi;
    return gained;
}

}  // namespace grundy::strip
