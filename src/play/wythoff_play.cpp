// Exact winning moves of Wythoff's game from the cold positions (a_n, b_n), a_n = floor(n phi),
// b_n = a_n + n. Integer arithmetic only: floating-point phi is off by one from n ~ 10^15 on.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "grundy/error.hpp"
#include "grundy/play.hpp"
#include "play/exact_sqrt.hpp"

namespace grundy {
namespace {

using u128 = uint128;

void check_coordinate(uint64_t v) {
    if (v > kMaxCoordinate)
        throw Error("coordinate " + std::to_string(v) +
                    " exceeds 2^63 - 1 = " + std::to_string(kMaxCoordinate));
}

}  // namespace

uint64_t isqrt128(uint128 n) {
    if (n == 0) return 0;
    const uint64_t hi = static_cast<uint64_t>(n >> 64);
    const int bits =
        hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll(static_cast<uint64_t>(n));
    // Newton's iteration decreases monotonically to floor(sqrt(n)) from any start above it.
    u128 x = u128{1} << ((bits + 1) / 2);
    for (;;) {
        const u128 next = (x + n / x) / 2;
        if (next >= x) break;
        x = next;
    }
    return static_cast<uint64_t>(x);
}

// 5 n^2 needs 129 bits for n near 2^63, so take m = floor(sqrt(5 n^2 / 4)) = floor(n sqrt(5) / 2)
// and decide the last bit exactly:
// 2m + 1 <= n sqrt 5  <=>  4m^2 + 4m + 1 <= 5 n^2  <=>  m^2 + m <= floor((5 n^2 - 1) / 4).
uint128 floor_sqrt5_times(uint64_t n) {
    check_coordinate(n);
    if (n == 0) return 0;
    const u128 sq = u128{n} * n;  // < 2^126
    const u128 q = sq >> 2, r = sq & 3;
    const u128 five_quarter = q * 5 + (r * 5) / 4;  // floor(5 n^2 / 4) < 2^128
    const u128 five_minus_one = r == 0 ? q * 5 - 1 : q * 5 + (r * 5 - 1) / 4;
    const u128 m = isqrt128(five_quarter);  // < 2^64
    return 2 * m + (m * m + m <= five_minus_one ? 1 : 0);
}

uint64_t wythoff_a(uint64_t n) {
    check_coordinate(n);
    // floor((n + sqrt(5) n) / 2) = floor((n + floor(sqrt(5) n)) / 2) since n is an integer.
    return static_cast<uint64_t>((u128{n} + floor_sqrt5_times(n)) / 2);
}

uint64_t wythoff_partner(uint64_t v) {
    check_coordinate(v);
    if (v == 0) return 0;
    // v = a_k exactly when k = ceil(v / phi) = floor(v / phi) + 1 gives a_k = v, and
    // floor(v / phi) = floor(v phi) - v. Otherwise v = b_j with j = v - k + 1 (the Beatty
    // complement: floor(v / phi^2) = v - ceil(v / phi)).
    const uint64_t k = wythoff_a(v) - v + 1;
    if (wythoff_a(k) == v) return v + k;
    const uint64_t j = v - k + 1;
    const uint64_t a = v - j;
    if (wythoff_a(j) != a)
        throw std::logic_error("wythoff_partner: " + std::to_string(v) + " is in neither sequence");
    return a;
}

bool wythoff_is_p_position(uint64_t x, uint64_t y) {
    check_coordinate(x);
    check_coordinate(y);
    return wythoff_partner(std::min(x, y)) == std::max(x, y);
}

std::vector<WythoffPosition> wythoff_winning_moves(uint64_t x, uint64_t y) {
    check_coordinate(x);
    check_coordinate(y);
    std::vector<WythoffPosition> moves;
    const uint64_t px = wythoff_partner(x), py = wythoff_partner(y);
    if (x <= y ? px == y : py == x) return moves;  // a P-position
    // Every column, row and diagonal holds exactly one P-position, so there is at most one
    // winning move along each.
    if (px < y) moves.push_back({x, px});
    if (py < x) moves.push_back({py, y});
    const uint64_t lo = std::min(x, y), d = std::max(x, y) - lo;
    if (const uint64_t a = wythoff_a(d); a < lo) {
        // The diagonal's P-position is (a_d, a_d + d) oriented like (x, y).
        moves.push_back(x <= y ? WythoffPosition{a, a + d} : WythoffPosition{a + d, a});
    }
    auto taken = [&](const WythoffPosition& p) { return u128{x - p.x} + (y - p.y); };
    std::sort(moves.begin(), moves.end(), [&](const WythoffPosition& a, const WythoffPosition& b) {
        if (taken(a) != taken(b)) return taken(a) < taken(b);
        return a.x != b.x ? a.x < b.x : a.y < b.y;
    });
    return moves;
}

std::optional<WythoffPosition> wythoff_winning_move(uint64_t x, uint64_t y) {
    const auto moves = wythoff_winning_moves(x, y);
    if (moves.empty()) return std::nullopt;
    return moves.front();
}

std::optional<WythoffPosition> wythoff_losing_move(uint64_t x, uint64_t y) {
    check_coordinate(x);
    check_coordinate(y);
    if (x == 0 && y == 0) return std::nullopt;
    return x >= y ? WythoffPosition{x - 1, y} : WythoffPosition{x, y - 1};
}

std::vector<WythoffPosition> wythoff_perfect_game(uint64_t x, uint64_t y, uint64_t max_moves) {
    std::vector<WythoffPosition> game{{x, y}};
    for (uint64_t i = 0; i < max_moves; ++i) {
        const WythoffPosition s = game.back();
        auto next = wythoff_winning_move(s.x, s.y);
        if (!next) next = wythoff_losing_move(s.x, s.y);
        if (!next) break;
        game.push_back(*next);
    }
    return game;
}

}  // namespace grundy
