// ThreadLinks: the ranks of a strip (strip/ranks/rank_link.hpp) as threads of one process, for unit
// tests of the rank logic without MPI. Each rank's link has a queue of the messages from the rank
// below; the collectives put every rank's words side by side in one shared table between two
// waits at a barrier, so that each rank reads every contribution before any is replaced.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strip/ranks/rank_link.hpp"

namespace grundy::testing {

class ThreadLinks {
  public:
    explicit ThreadLinks(int ranks) : barrier_(ranks), slots_(ranks), queues_(ranks) {
        for (int r = 0; r < ranks; ++r) links_.push_back(std::make_unique<Link>(*this, r));
    }
    strip::RankLink& link(int rank) { return *links_[rank]; }

  private:
    struct Queue {
        std::mutex mutex;
        std::condition_variable ready;
        std::deque<std::vector<uint64_t>> messages;
    };

    // Every rank's `mine`, in rank order, on every rank.
    std::vector<std::vector<uint64_t>> all_gather(int rank, const std::vector<uint64_t>& mine) {
        slots_[rank] = mine;
        barrier_.arrive_and_wait();
        std::vector<std::vector<uint64_t>> all = slots_;
        barrier_.arrive_and_wait();
        return all;
    }

    class Link : public strip::RankLink {
      public:
        Link(ThreadLinks& links, int rank) : links_(links), rank_(rank) {}
        int rank() const override { return rank_; }
        int ranks() const override { return static_cast<int>(links_.slots_.size()); }

        void send_up(const uint64_t* words, uint64_t count) override {
            Queue& q = links_.queues_[rank_ + 1];
            {
                std::lock_guard<std::mutex> lock(q.mutex);
                q.messages.emplace_back(words, words + count);
            }
            q.ready.notify_one();
            bytes_ += count * 8;
        }
        void receive_from_below(uint64_t* words, uint64_t count) override {
            Queue& q = links_.queues_[rank_];
            std::unique_lock<std::mutex> lock(q.mutex);
            q.ready.wait(lock, [&] { return !q.messages.empty(); });
            const std::vector<uint64_t> m = std::move(q.messages.front());
            q.messages.pop_front();
            if (m.size() != count) fail("a message of another length than the one expected");
            std::copy(m.begin(), m.end(), words);
        }
        void min_each(std::vector<uint32_t>& v) override {
            const auto all = gather_all(std::vector<uint64_t>(v.begin(), v.end()));
            for (const auto& w : all)
                for (size_t i = 0; i < v.size(); ++i)
                    v[i] = std::min<uint32_t>(v[i], static_cast<uint32_t>(w.at(i)));
        }
        uint64_t max_of(uint64_t v) override {
            for (const auto& w : gather_all({v})) v = std::max(v, w[0]);
            return v;
        }
        uint64_t sum_of(uint64_t v) override {
            uint64_t sum = 0;
            for (const auto& w : gather_all({v})) sum += w[0];
            return sum;
        }
        void all_or(std::vector<uint64_t>& words) override {
            for (const auto& w : gather_all(words))
                for (size_t i = 0; i < words.size(); ++i) words[i] |= w.at(i);
        }
        // Each rank contributes its counts, then its words; rank r's words for this rank start
        // after what it sends to the ranks below this one.
        std::vector<uint64_t> exchange(const std::vector<uint64_t>& words,
                                       const std::vector<uint64_t>& counts,
                                       std::vector<uint64_t>& received) override {
            const size_t R = counts.size();
            if (R != static_cast<size_t>(ranks())) fail("an exchange without one count per rank");
            std::vector<uint64_t> mine(counts);
            mine.insert(mine.end(), words.begin(), words.end());
            std::vector<uint64_t> out;
            received.assign(R, 0);
            const auto all = gather_all(mine);
            for (size_t r = 0; r < R; ++r) {
                const std::vector<uint64_t>& w = all[r];
                uint64_t at = R;
                for (int below = 0; below < rank_; ++below) at += w[below];
                received[r] = w[rank_];
                out.insert(out.end(), w.begin() + at, w.begin() + at + w[rank_]);
                if (static_cast<int>(r) != rank_) bytes_ += counts[r] * 8;
            }
            return out;
        }
        std::string first_error(const std::string& error) override {
            for (const auto& w : gather_all(std::vector<uint64_t>(error.begin(), error.end())))
                if (!w.empty()) return std::string(w.begin(), w.end());
            return "";
        }
        std::vector<uint64_t> gather(const std::vector<uint64_t>& mine) override {
            std::vector<uint64_t> all;
            for (const auto& w : gather_all(mine))
                if (rank_ == 0) all.insert(all.end(), w.begin(), w.end());
            return all;
        }
        [[noreturn]] void abort(const std::string& message, int status) override {
            fail("rank " + std::to_string(rank_) + " ended the job (status " +
                 std::to_string(status) + "): " + message);
        }
        uint64_t bytes_sent() const override { return bytes_; }
        double wait_seconds() const override { return 0.0; }

      private:
        std::vector<std::vector<uint64_t>> gather_all(const std::vector<uint64_t>& mine) {
            return links_.all_gather(rank_, mine);
        }
        // The other threads would wait for ever: a failure of the fake ends the test binary.
        [[noreturn]] static void fail(const std::string& why) {
            std::fprintf(stderr, "ThreadLinks: %s\n", why.c_str());
            std::abort();
        }
        ThreadLinks& links_;
        const int rank_;
        std::atomic<uint64_t> bytes_{0};  // send_up may be called by several threads
    };

    std::barrier<> barrier_;
    std::vector<std::vector<uint64_t>> slots_;
    std::vector<Queue> queues_;
    std::vector<std::unique_ptr<Link>> links_;
};

}  // namespace grundy::testing
