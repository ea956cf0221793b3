// LineSet, the sliding set of values seen along one row or diagonal of a stored table, and the
// bit helper it scans with. Written for the analysis only; nothing here comes from the engine, so
// that verification stays independent of it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace grundy::analysis {

// Bits o .. o + 63 of the bitset `bits` (n words), as one word; bits outside it read as 0.
inline uint64_t bits_from(const uint64_t* bits, uint64_t n, int64_t o) {
    // Word q = floor(o / 64) and the next; an index below 0 wraps to >= n, so one comparison
    // each tells whether a word is stored (verify's scan calls this three times a step).
    const uint64_t q = static_cast<uint64_t>(o >> 6);
    const unsigned s = static_cast<unsigned>(o & 63);
    const uint64_t low = q < n ? bits[q] : 0;
    if (s == 0) return low;
    const uint64_t high = q + 1 < n ? bits[q + 1] : 0;
    return (low >> s) | (high << (64 - s));
}

// A set of naturals that fills up from below, as the values seen along a row or a diagonal of
// the table do: every value below 64 * base() is in it, words() holds the bits of the words
// first() .. end() - 1, and the words between base() and first() are empty. A diagonal starts
// with large values and fills its low values late, so its stored window starts where its values
// are, not at 0 (else wide tables would cost O(X) per diagonal).
class LineSet {
  public:
    uint64_t base() const { return base_; }
    uint64_t first() const { return first_; }
    uint64_t end() const { return first_ + size_; }         // first word index not stored
    const uint64_t* data() const { return words_.data(); }  // data()[w - first()] for word w
    uint64_t word(uint64_t w) const {
        if (w < base_) return ~uint64_t{0};
        const uint64_t i = w - first_;  // wraps below first_: never < size then
        return i < size_ ? words_[i] : 0;
    }
    // Bit j set when word w + j is full, for w >= base() (words not stored are not full): the
    // scan skips those words without reading them.
    uint64_t full_from(uint64_t w) const {
        return bits_from(full_.data(), full_size_,
                         static_cast<int64_t>(w) - static_cast<int64_t>(first_));
    }
    bool contains(uint64_t v) const { return (word(v / 64) >> (v % 64)) & 1; }
    // Adds v; false if it was already there. The common case, a bit of a stored word that
    // does not fill it, is inline; the rest is insert_rest (verify calls this twice a cell,
    // and the whole function, not inlined, was a large part of its time).
    bool insert(uint64_t v) {
        const uint64_t i = v / 64 - first_;  // wraps below first_: never < size then
        if (i < size_) {
            const uint64_t bit = uint64_t{1} << (v % 64);
            const uint64_t before = words_[i];
            if (before & bit) return false;
            if ((before | bit) != ~uint64_t{0}) {
                words_[i] = before | bit;
                return true;
            }
        }
        return insert_rest(v);
    }
    // The least value not in the set.
    uint64_t mex() const {
        return 64 * base_ + static_cast<uint64_t>(std::countr_one(word(base_)));
    }
    void release() {
        std::vector<uint64_t>().swap(words_);
        std::vector<uint64_t>().swap(full_);
        base_ = first_ = size_ = full_size_ = 0;
    }

  private:
    [[gnu::noinline]] bool insert_rest(uint64_t v) {
        const bool inserted = insert_into_vectors(v);
        size_ = words_.size();
        full_size_ = full_.size();
        return inserted;
    }

    bool insert_into_vectors(uint64_t v) {
        const uint64_t w = v / 64;
        if (w < base_) return false;
        if (words_.empty()) {
            first_ = w;
            full_.clear();
        } else if (w < first_) {  // rare: a diagonal's values below its first ones
            words_.insert(words_.begin(), first_ - w, 0);
            first_ = w;
            rebuild_full();
        }
        const uint64_t i = w - first_;
        if (i >= words_.size()) words_.resize(i + 1, 0);
        const uint64_t bit = uint64_t{1} << (v % 64);
        if (words_[i] & bit) return false;
        words_[i] |= bit;
        if (words_[i] != ~uint64_t{0}) return true;
        if (full_.size() <= i / 64) full_.resize(i / 64 + 1, 0);
        full_[i / 64] |= uint64_t{1} << (i % 64);
        if (i == 0 && first_ == base_) {
            // Full words at the bottom carry no information any more: drop them, and their
            // summary bits.
            uint64_t k = 0;
            while (k < words_.size() && words_[k] == ~uint64_t{0}) ++k;
            words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(k));
            base_ += k;
            first_ = base_;
            const uint64_t q = k / 64, r = k % 64;
            for (uint64_t j = 0; j + q < full_.size(); ++j) {
                const uint64_t next = j + q + 1 < full_.size() ? full_[j + q + 1] : 0;
                full_[j] = r == 0 ? full_[j + q] : full_[j + q] >> r | next << (64 - r);
            }
            full_.resize(full_.size() - q);
        }
        return true;
    }

    void rebuild_full() {
        full_.assign(words_.size() / 64 + 1, 0);
        for (uint64_t j = 0; j < words_.size(); ++j)
            if (words_[j] == ~uint64_t{0}) full_[j / 64] |= uint64_t{1} << (j % 64);
    }

    uint64_t base_ = 0, first_ = 0;
    // words_.size() and full_.size(), kept beside them: the inline paths then read one field
    // instead of two pointers.
    uint64_t size_ = 0, full_size_ = 0;
    std::vector<uint64_t> words_;
    std::vector<uint64_t> full_;  // bit j of full_[k]: words_[64 k + j] is full
};

}  // namespace grundy::analysis
