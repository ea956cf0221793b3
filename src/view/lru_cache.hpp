// ByteBoundedLru: the caches of `grundy view` (decoded chunks, pages of the pyramid's blocks):
// shared values by key, the least recently used dropped once their bytes pass a bound, the
// last one put in always kept. Not locked: its owner holds a lock around every call.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>

namespace grundy::view {

template <class Key, class Value>
class ByteBoundedLru {
  public:
    using Shared = std::shared_ptr<const Value>;
    explicit ByteBoundedLru(uint64_t max_bytes) : max_bytes_(max_bytes) {}

    // The value of `key`, now the most recently used; null when it is not kept.
    Shared find(const Key& key) {
        const auto it = entries_.find(key);
        if (it == entries_.end()) return nullptr;
        order_.splice(order_.begin(), order_, it->second.place);
        return it->second.value;
    }
    // Keeps `value` (of `bytes`) for `key` and gives it back, or the value already kept there
    // (another thread read it meanwhile).
    Shared put(const Key& key, Shared value, uint64_t bytes) {
        if (Shared kept = find(key)) return kept;
        order_.push_front(key);
        entries_.emplace(key, Entry{value, bytes, order_.begin()});
        bytes_ += bytes;
        while (bytes_ > max_bytes_ && order_.size() > 1) {
            const auto last = entries_.find(order_.back());
            bytes_ -= last->second.bytes;
            entries_.erase(last);
            order_.pop_back();
        }
        return value;
    }
    uint64_t bytes() const { return bytes_; }

  private:
    struct Entry {
        Shared value;
        uint64_t bytes;
        typename std::list<Key>::iterator place;
    };
    uint64_t max_bytes_, bytes_ = 0;
    std::list<Key> order_;  // the most recently used first
    std::map<Key, Entry> entries_;
};

}  // namespace grundy::view
