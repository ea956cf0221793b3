// Finite impartial games in general (seed 000's GAME class): from a set of positions or a start
// position and a successor function, the Grundy value of every position by Kahn's algorithm in
// reverse topological order, the kernel, a kernel check, perfect moves and whole games.
// Header-only: positions are any hashable type. Cycles are reported, never looped on.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <ranges>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grundy/error.hpp"

namespace grundy {

// Text for a position in messages and printed games: integers and streamable types as such,
// pairs and ranges (vectors, arrays, tuples of two) like Python tuples: (1, 2, 3).
template <class T>
std::string format_position(const T& p);

namespace detail {
template <class T>
concept Streamable = requires(std::ostream& o, const T& t) {
    o << t;
};
template <class T>
concept PairLike = requires(const T& t) {
    t.first;
    t.second;
};
}  // namespace detail

template <class T>
std::string format_position(const T& p) {
    if constexpr (detail::PairLike<T>) {
        return "(" + format_position(p.first) + ", " + format_position(p.second) + ")";
    } else if constexpr (std::ranges::range<T> && !std::convertible_to<T, std::string>) {
        std::string s = "(";
        bool first = true;
        for (const auto& e : p) {
            if (!first) s += ", ";
            first = false;
            s += format_position(e);
        }
        s += ")";
        return s;
    } else if constexpr (detail::Streamable<T>) {
        std::ostringstream out;
        out << p;
        return out.str();
    } else {
        return "<position>";
    }
}

// Hash for ranges of integers (std::vector<int>, std::array<...>) and pairs, so they can be
// positions without writing one.
struct PositionHash {
    template <class T>
    size_t operator()(const T& p) const {
        if constexpr (detail::PairLike<T>) {
            return mix((*this)(p.first), (*this)(p.second));
        } else if constexpr (std::ranges::range<T>) {
            size_t h = 0x9e3779b97f4a7c15ULL;
            for (const auto& e : p) h = mix(h, (*this)(e));
            return h;
        } else {
            return std::hash<T>{}(p);
        }
    }

  private:
    static size_t mix(size_t h, size_t v) {
        return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    }
};

template <class Position, class Hash = PositionHash, class Equal = std::equal_to<Position>>
class FiniteGame {
  public:
    using Successors = std::function<std::vector<Position>(const Position&)>;

    // The game on exactly these positions; a successor outside them is an error.
    static FiniteGame from_positions(const std::vector<Position>& positions, Successors succ) {
        FiniteGame g(std::move(succ));
        for (const auto& p : positions) g.add(p);
        for (size_t i = 0; i < g.positions_.size(); ++i) g.link(i, /*explore=*/false);
        g.solve();
        return g;
    }

    // The game on every position reachable from `start` (explored without recursion).
    static FiniteGame from_start(const Position& start, Successors succ) {
        FiniteGame g(std::move(succ));
        g.add(start);
        for (size_t i = 0; i < g.positions_.size(); ++i) g.link(i, /*explore=*/true);
        g.solve();
        return g;
    }

    size_t size() const { return positions_.size(); }
    const std::vector<Position>& positions() const { return positions_; }
    bool contains(const Position& p) const { return index_.count(p) > 0; }

    uint64_t grundy(const Position& p) const { return grundy_[at(p)]; }
    bool in_kernel(const Position& p) const { return grundy(p) == 0; }

    // The successors as the successor function gave them, without repeats.
    std::vector<Position> successors(const Position& p) const {
        std::vector<Position> out;
        for (size_t j : succ_[at(p)]) out.push_back(positions_[j]);
        return out;
    }

    std::vector<Position> kernel() const {
        std::vector<Position> k;
        for (size_t i = 0; i < positions_.size(); ++i)
            if (grundy_[i] == 0) k.push_back(positions_[i]);
        return k;
    }

    // Whether `in_k` describes the kernel: a position is in it exactly when none of its
    // successors is (seed 000's verifK). Checks every position of the game.
    template <class InKernel>
    bool is_kernel(InKernel&& in_k) const {
        for (size_t i = 0; i < positions_.size(); ++i) {
            bool successor_in = false;
            for (size_t j : succ_[i])
                if (in_k(positions_[j])) {
                    successor_in = true;
                    break;
                }
            if (static_cast<bool>(in_k(positions_[i])) == successor_in) return false;
        }
        return true;
    }

    // A perfect player's move: into the kernel when possible (the first such successor in the
    // successor function's order), otherwise the first successor. nullopt without successors.
    std::optional<Position> perfect_move(const Position& p) const {
        const auto& s = succ_[at(p)];
        if (s.empty()) return std::nullopt;
        for (size_t j : s)
            if (grundy_[j] == 0) return positions_[j];
        return positions_[s.front()];
    }

    // A game between perfect players from p, p first, until a position without successors.
    std::vector<Position> perfect_game(const Position& p) const {
        std::vector<Position> game{p};
        while (auto next = perfect_move(game.back())) game.push_back(*next);
        return game;
    }

    // Seed 000's game(): one line per position, "∈ K" or "∉ K", moves marked with ➞.
    void print_game(std::ostream& out, const Position& p) const {
        bool first = true;
        for (const auto& s : perfect_game(p)) {
            out << (first ? "  " : "\u279e") << " " << format_position(s)
                << (in_kernel(s) ? " \u2208 K" : " \u2209 K") << "\n";
            first = false;
        }
    }

  private:
    explicit FiniteGame(Successors succ) : succ_fn_(std::move(succ)) {}

    size_t at(const Position& p) const {
        const auto it = index_.find(p);
        if (it == index_.end())
            throw Error("position " + format_position(p) + " is not in the game");
        return it->second;
    }

    size_t add(const Position& p) {
        const auto [it, inserted] = index_.emplace(p, positions_.size());
        if (inserted) {
            positions_.push_back(p);
            succ_.emplace_back();
        }
        return it->second;
    }

    void link(size_t i, bool explore) {
        // Copy: add() may grow positions_ and invalidate references into it.
        const Position p = positions_[i];
        std::vector<size_t> out;
        for (const auto& t : succ_fn_(p)) {
            size_t j;
            if (explore) {
                j = add(t);
            } else {
                const auto it = index_.find(t);
                if (it == index_.end())
                    throw Error("successor " + format_position(t) + " of " + format_position(p) +
                                " is not among the game's positions");
                j = it->second;
            }
            if (std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
        }
        succ_[i] = std::move(out);
    }

    // Kahn's algorithm on the reversed graph: a position is ready once all its successors have
    // values (count of pending successors reaches 0), as in seed 000.
    void solve() {
        const size_t n = positions_.size();
        std::vector<std::vector<size_t>> pred(n);
        std::vector<size_t> pending(n);
        std::vector<size_t> stack;
        for (size_t i = 0; i < n; ++i) {
            pending[i] = succ_[i].size();
            for (size_t j : succ_[i]) pred[j].push_back(i);
            if (pending[i] == 0) stack.push_back(i);
        }
        grundy_.assign(n, 0);
        std::vector<size_t> seen_at;  // seen_at[v] == i + 1: value v occurs among i's options
        size_t done = 0;
        while (!stack.empty()) {
            const size_t i = stack.back();
            stack.pop_back();
            ++done;
            seen_at.assign(succ_[i].size() + 1, 0);
            for (size_t j : succ_[i])
                if (grundy_[j] < seen_at.size()) seen_at[grundy_[j]] = i + 1;
            uint64_t mex = 0;
            while (seen_at[mex] == i + 1) ++mex;
            grundy_[i] = mex;
            for (size_t r : pred[i])
                if (--pending[r] == 0) stack.push_back(r);
        }
        if (done < n) report_cycle(pending, n - done);
    }

    // Positions left with pending successors each have one that is also left, so following
    // them must revisit a position: that one lies on a cycle.
    [[noreturn]] void report_cycle(const std::vector<size_t>& pending, size_t left) const {
        size_t i = 0;
        while (pending[i] == 0) ++i;
        std::vector<char> visited(positions_.size(), 0);
        while (!visited[i]) {
            visited[i] = 1;
            for (size_t j : succ_[i])
                if (pending[j] != 0) {
                    i = j;
                    break;
                }
        }
        throw Error(
            "the game graph has a cycle through position " + format_position(positions_[i]) + " (" +
            std::to_string(left) +
            " positions are on a cycle or lead to one); Grundy values need an acyclic game");
    }

    Successors succ_fn_;
    std::vector<Position> positions_;
    std::unordered_map<Position, size_t, Hash, Equal> index_;
    std::vector<std::vector<size_t>> succ_;
    std::vector<uint64_t> grundy_;
};

}  // namespace grundy
