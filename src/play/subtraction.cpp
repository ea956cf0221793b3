// Subtraction games S(M): one heap, a move takes m tokens for some m in M. Grundy values by mex
// over at most |M| options, and the period by the project's shared periodicity criterion.
#include <algorithm>
#include <string>

#include "grundy/error.hpp"
#include "grundy/play.hpp"

namespace grundy {

std::vector<uint64_t> normalize_subtraction_moves(std::vector<uint64_t> moves) {
    if (moves.empty()) throw Error("a subtraction game needs at least one move");
    std::sort(moves.begin(), moves.end());
    for (size_t i = 0; i < moves.size(); ++i) {
        if (moves[i] == 0 || moves[i] > kMaxCoordinate)
            throw Error("subtraction move " + std::to_string(moves[i]) +
                        " must be from 1 to 2^63 - 1");
        if (i > 0 && moves[i] == moves[i - 1])
            throw Error("subtraction move " + std::to_string(moves[i]) + " is given twice");
    }
    return moves;
}

std::vector<uint32_t> subtraction_grundy(const std::vector<uint64_t>& moves, uint64_t n) {
    if (n > kMaxSubtractionLength)
        throw Error("a subtraction sequence of " + std::to_string(n) +
                    " values is more than the limit " + std::to_string(kMaxSubtractionLength));
    std::vector<uint32_t> g(n);
    // A heap has at most |M| options, so its value is at most |M|.
    std::vector<uint64_t> seen(moves.size() + 1, UINT64_MAX);
    for (uint64_t s = 0; s < n; ++s) {
        for (uint64_t m : moves) {
            if (m > s) break;  // moves are sorted
            seen[g[s - m]] = s;
        }
        uint32_t mex = 0;
        while (seen[mex] == s) ++mex;
        g[s] = mex;
    }
    return g;
}

SubtractionAnalysis analyze_subtraction(const std::vector<uint64_t>& moves, uint64_t n) {
    SubtractionAnalysis r;
    r.values = subtraction_grundy(normalize_subtraction_moves(moves), n);
    r.max_period = n / 4;
    r.max_preperiod = n / 2;
    const std::vector<int64_t> s(r.values.begin(), r.values.end());
    r.periodicity = find_period(s, r.max_period, r.max_preperiod);
    return r;
}

}  // namespace grundy
