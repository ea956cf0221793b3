// Perfect play: exact winning moves of Wythoff's game for coordinates up to 2^63 - 1 (integer
// arithmetic only, no table), sums of games by the Sprague-Grundy theorem (Wythoff, Nim and
// subtraction-game components), and Grundy sequences of subtraction games.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grundy/periodicity.hpp"

namespace grundy {

// Largest heap or coordinate the players accept: every intermediate fits in 128 bits.
inline constexpr uint64_t kMaxCoordinate = 0x7fffffffffffffffULL;

// ---- Wythoff's game, exact -------------------------------------------------------------------

struct WythoffPosition {
    uint64_t x = 0, y = 0;
    bool operator==(const WythoffPosition&) const = default;
};

// a_n = floor(n * phi) = (n + isqrt(5 n^2)) / 2, for n <= kMaxCoordinate.
uint64_t wythoff_a(uint64_t n);

// The other coordinate of the one P-position whose smaller or larger coordinate is v: b_k for
// v = a_k, a_k for v = b_k, 0 for v = 0. v <= kMaxCoordinate; the result may exceed it.
uint64_t wythoff_partner(uint64_t v);

bool wythoff_is_p_position(uint64_t x, uint64_t y);

// Every winning move (at most three: along the column, the row and the diagonal), best first:
// fewest tokens taken, then the smaller position in lexicographic order. Empty at P-positions.
// Throws grundy::Error if a coordinate exceeds kMaxCoordinate.
std::vector<WythoffPosition> wythoff_winning_moves(uint64_t x, uint64_t y);
std::optional<WythoffPosition> wythoff_winning_move(uint64_t x, uint64_t y);

// The move of a player who is lost: one token from the larger heap (the first on a tie), which
// keeps the game as long as possible. nullopt at (0, 0).
std::optional<WythoffPosition> wythoff_losing_move(uint64_t x, uint64_t y);

// A whole game between perfect players from (x, y): the positions in order, starting with
// (x, y), ending at (0, 0) unless max_moves moves were made first.
std::vector<WythoffPosition> wythoff_perfect_game(uint64_t x, uint64_t y, uint64_t max_moves);

// ---- Subtraction games
// ---------------------------------------------------------------------------

// Sorts and checks a move set: non-empty, every move from 1 to kMaxCoordinate, no repeats.
std::vector<uint64_t> normalize_subtraction_moves(std::vector<uint64_t> moves);

// g(0), ..., g(n - 1) of the subtraction game S(moves) (moves normalised). Throws grundy::Error
// above kMaxSubtractionLength values.
inline constexpr uint64_t kMaxSubtractionLength = uint64_t{1} << 24;
std::vector<uint32_t> subtraction_grundy(const std::vector<uint64_t>& moves, uint64_t n);

struct SubtractionAnalysis {
    std::vector<uint32_t> values;
    uint64_t max_period = 0, max_preperiod = 0;  // the bounds given to find_period
    std::optional<Periodicity> periodicity;      // pure periodicity of the values themselves
};
// Values and their period by the project's criterion with bounds n / 4 and n / 2.
SubtractionAnalysis analyze_subtraction(const std::vector<uint64_t>& moves, uint64_t n);

// ---- Sums of games
// -------------------------------------------------------------------------------

struct SumComponent {
    enum class Kind { Wythoff, Nim, Subtraction };
    Kind kind = Kind::Nim;
    uint64_t x = 0, y = 0;        // Wythoff: (x, y); Nim and subtraction: the heap x
    std::vector<uint64_t> moves;  // subtraction: the move set, normalised
    bool operator==(const SumComponent&) const = default;
};
using GameSum = std::vector<SumComponent>;

// "wythoff:13,9 nim:5 sub:1,3,4:10": components separated by blanks (sub:MOVES:HEAP). Throws
// grundy::Error with the offending component for anything malformed or out of range.
GameSum parse_sum(const std::string& text);
std::string format_component(const SumComponent& c);
std::string format_sum(const GameSum& sum);

// Grundy values of Wythoff positions for a sum: from the engine (only the rectangle the sum's
// components need) or from a stored table.
class WythoffValues {
  public:
    // Refuses (grundy::Error) rectangles of more than max_cells cells.
    static WythoffValues computed(const GameSum& sum, uint64_t max_cells = uint64_t{1} << 26,
                                  int threads = 0);
    // Refuses (grundy::Error) a file that does not hold every option of every component.
    static WythoffValues from_file(const std::string& path, const GameSum& sum);
    uint32_t operator()(uint64_t x, uint64_t y) const;

  private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

struct SumAnalysis {
    std::vector<uint64_t> values;  // per component
    uint64_t nim_sum = 0;
};
SumAnalysis analyze_sum(const GameSum& sum, const WythoffValues* wythoff);

// The position after a winning move (one component changed to an option of value g_i xor
// total; the first component where that is possible, the smallest such move in it), or nullopt
// when the nim-sum is 0. `wythoff` may be null when the sum has no Wythoff component.
std::optional<GameSum> sum_winning_move(const GameSum& sum, const WythoffValues* wythoff);

// The move of a player who is lost: in the first component that has a move, the smallest one
// (Wythoff: wythoff_losing_move). nullopt when no component has a move.
std::optional<GameSum> sum_losing_move(const GameSum& sum);

// A whole game between perfect players from `sum`, `sum` first, until no component has a move
// or max_moves moves were made.
std::vector<GameSum> sum_perfect_game(const GameSum& sum, const WythoffValues* wythoff,
                                      uint64_t max_moves);

}  // namespace grundy
