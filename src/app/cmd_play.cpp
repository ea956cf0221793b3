// grundy play: a whole game of Wythoff's game between two perfect players, seed 000's game().
#include <iostream>

#include "app/command.hpp"
#include "app/options.hpp"
#include "grundy/error.hpp"
#include "grundy/play.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>& positional) {
    // clang-format off
    o.add_options()
        ("position", po::value<std::vector<std::string>>()->multitoken(), "X Y")
        ("max-moves", po::value<std::string>()->default_value("1000"),
         "stop after this many moves");
    // clang-format on
    positional.push_back("position");
}

int run(const po::variables_map& v) {
    const auto xy = v.count("position") ? v["position"].as<std::vector<std::string>>()
                                        : std::vector<std::string>{};
    if (xy.size() != 2) throw Error("give a position X Y (two whole numbers)");
    const uint64_t x = parse_whole_number("X", xy[0], 0, kMaxCoordinate);
    const uint64_t y = parse_whole_number("Y", xy[1], 0, kMaxCoordinate);
    const uint64_t max_moves = count_option(v, "max-moves", 0, uint64_t{1} << 40);
    const auto game = wythoff_perfect_game(x, y, max_moves);
    for (size_t i = 0; i < game.size(); ++i) {
        const auto& p = game[i];
        std::cout << (i ? "\u279e" : " ") << " (" << p.x << ", " << p.y << ") "
                  << (wythoff_is_p_position(p.x, p.y) ? "\u2208" : "\u2209") << " K\n";
    }
    const auto& last = game.back();
    if (last.x != 0 || last.y != 0)
        std::cout << "stopped after " << max_moves << " moves (--max-moves)\n";
    std::cout << std::flush;
    return 0;
}

const CommandRegistrar registrar(
    {"play", "print a game of Wythoff's game between two perfect players", "X Y [--max-moves N]",
     "Plays from (X, Y) to (0, 0), one position per line, marking whether each is in the kernel\n"
     "K (the P-positions), as seed 000's game(). The player who can win moves into K (the move\n"
     "taking the fewest tokens); the lost player takes one token from the larger heap, which\n"
     "makes the game last. Games from large positions are long: --max-moves bounds them.",
     51, describe, run});

}  // namespace
}  // namespace grundy::app
