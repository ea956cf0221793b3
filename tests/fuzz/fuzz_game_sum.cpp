// Fuzzes the sum-of-games text of `grundy move --sum` and `grundy play --sum`
// (src/play/game_sum.cpp): the input is the text. A sum that parses must print back as text
// that parses to the same sum; small sums are then valued and played (a winning move must
// leave a nim-sum of 0). Refusals are grundy::Error; anything else escaping, or a crash, is a
// finding.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "grundy/error.hpp"
#include "grundy/play.hpp"

namespace {

using namespace grundy;

void fail(const std::string& text, const char* why) {
    std::fprintf(stderr, "sum '%s': %s\n", text.c_str(), why);
    std::abort();
}

// Valued and played only when quick: heaps and moves within a few thousand.
bool small(const GameSum& sum) {
    for (const SumComponent& c : sum) {
        if (c.x > 4096 || c.y > 4096) return false;
        for (const uint64_t m : c.moves)
            if (m > 4096) return false;
    }
    return sum.size() <= 16;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    GameSum sum;
    try {
        sum = parse_sum(text);
    } catch (const Error&) {
        return 0;
    }
    if (parse_sum(format_sum(sum)) != sum) fail(text, "prints as another sum");
    if (!small(sum)) return 0;
    try {
        const WythoffValues wythoff = WythoffValues::computed(sum, uint64_t{1} << 16, 1);
        const SumAnalysis a = analyze_sum(sum, &wythoff);
        const std::optional<GameSum> move = sum_winning_move(sum, &wythoff);
        if (move.has_value() != (a.nim_sum != 0)) fail(text, "winning move and nim-sum disagree");
        if (move && analyze_sum(*move, &wythoff).nim_sum != 0)
            fail(text, "the winning move leaves a nonzero nim-sum");
        sum_losing_move(sum);
    } catch (const Error&) {
    }
    return 0;
}
