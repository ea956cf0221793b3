// Rows changing hands between ranks (rank_moves.hpp).
#include "strip/ranks/rank_moves.hpp"

#include <algorithm>
#include <cstring>

#include "grundy/error.hpp"

namespace grundy::strip {
namespace {

// Rows a..b-1 (none when a >= b).
struct Rows {
    uint64_t a = 0, b = 0;
    bool empty() const { return a >= b; }
    uint64_t size() const { return empty() ? 0 : b - a; }
};

Rows overlap(Rows r, uint64_t a, uint64_t b) {
    return {std::max(r.a, a), std::min(r.b, b)};
}

uint64_t packed_words(uint64_t rows, uint64_t L) {
    return rows + (rows * L + 3) / 4;
}

// Rows r of this rank for another, appended to `out`: their last mismatches, then their ring
// entries a column at a time (x mod L = 0, 1, ...), as 16-bit values packed four to a word. One
// pass over the ring, a run of r.size() values per column.
void pack_rows(const SearchState& p, Rows r, std::vector<uint64_t>& out) {
    const uint64_t k = r.size(), L = p.ring_len, at = out.size();
    out.resize(at + packed_words(k, L));
    std::copy_n(p.last_mismatch.begin() + static_cast<int64_t>(r.a - p.first_row), k,
                out.begin() + static_cast<int64_t>(at));
    auto* bytes = reinterpret_cast<char*>(out.data() + at + k);
    for (uint64_t x = 0; x < L; ++x)
        std::memcpy(bytes + x * k * 2, p.ring.data() + p.ring_index(x, r.a), k * 2);
}

// The other side of pack_rows, from `in` (its packed_words(k, L) words) into rows r of this rank
// (p.first_row is already the new one).
void unpack_rows(SearchState& p, Rows r, const uint64_t* in) {
    const uint64_t k = r.size(), L = p.ring_len;
    std::copy_n(in, k, p.last_mismatch.begin() + static_cast<int64_t>(r.a - p.first_row));
    const auto* bytes = reinterpret_cast<const char*>(in + k);
    for (uint64_t x = 0; x < L; ++x)
        std::memcpy(p.ring.data() + p.ring_index(x, r.a), bytes + x * k * 2, k * 2);
}

// A new ring with room for rows first..end-1, holding the old one's rows `keep`. Where the
// room only grows at the top (rank 0's always does), in place: the ring grows, and each
// column's rows move up to their new place, the last column first so that no column is
// overwritten before it has moved; so rank 0 never holds two rings at once.
void lay_out_ring(SearchState& p, uint64_t first, uint64_t end, Rows keep) {
    const uint64_t stride = end - first, old_stride = p.ring_stride;
    if (first == p.ring_first && stride >= old_stride) {
        p.ring.grow(stride * p.ring_len);
        uint16_t* ring = p.ring.data();
        const uint64_t at = keep.a - first;
        for (uint64_t x = p.ring_len; !keep.empty() && x-- > 0;)
            std::memmove(ring + x * stride + at, ring + x * old_stride + at, keep.size() * 2);
        p.ring_stride = stride;
        return;
    }
    Ring ring;
    ring.assign((end - first) * p.ring_len);
    for (uint64_t x = 0; !keep.empty() && x < p.ring_len; ++x)
        std::memcpy(ring.data() + x * (end - first) + (keep.a - first),
                    p.ring.data() + p.ring_index(x, keep.a), keep.size() * 2);
    p.ring = std::move(ring);
    p.ring_first = first;
    p.ring_stride = end - first;
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

    const Rows before{p.first_row, p.end_row}, now{new_starts[me], new_starts[me + 1]};
    const Rows keep = overlap(before, now.a, now.b);
    const uint64_t gained = now.size() - keep.size();
    if (p.ring_len == 0) {  // no ring: only the state moves
        p.first_row = now.a, p.end_row = now.b;
        return gained;
    }
    std::vector<uint64_t> out, counts(R, 0), received;
    for (size_t r = 0; r < R; ++r)
        if (const Rows give = overlap(before, new_starts[r], new_starts[r + 1]);
            r != me && !give.empty()) {
            pack_rows(p, give, out);
            counts[r] = packed_words(give.size(), p.ring_len);
        }
    const std::vector<uint64_t> in = link.exchange(out, counts, received);
    out = {};  // before the ring may grow

    std::vector<uint64_t> last(now.size(), kNone);
    if (!keep.empty())
        std::copy_n(p.last_mismatch.begin() + static_cast<int64_t>(keep.a - before.a), keep.size(),
                    last.begin() + static_cast<int64_t>(keep.a - now.a));
    // The ring is laid out again only when the new rows do not fit its room, or fill less than
    // half of it (a rank that gave most of its rows away), and then with room for half as many
    // rows again above them: rows keep moving the same way as more settle.
    if (now.a < p.ring_first || now.b > p.ring_first + p.ring_stride ||
        2 * now.size() < p.ring_stride)
        lay_out_ring(p, now.a, std::min(new_starts.back(), now.b + now.size() / 2), keep);
    p.last_mismatch = std::move(last);
    p.first_row = now.a, p.end_row = now.b;
    uint64_t at = 0;  // rank r's words in `in`
    for (size_t r = 0; r < R; ++r) {
        const Rows take = overlap(now, old_starts[r], old_starts[r + 1]);
        const uint64_t expected =
            r != me && !take.empty() ? packed_words(take.size(), p.ring_len) : 0;
        if (received[r] != expected)
            throw Error("internal: rank " + std::to_string(r) + " sent other rows than asked for");
        if (expected) unpack_rows(p, take, in.data() + at);
        at += received[r];
    }
    return gained;
}

}  // namespace grundy::strip
