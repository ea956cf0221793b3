// grundy play: a whole game between two perfect players, of Wythoff's game or of a sum of
// games, printed like seed 000's game().
#include <iostream>
#include <sstream>

#include "app/command.hpp"
#include "app/options.hpp"
#include "app/sum_options.hpp"
#include "grundy/error.hpp"
#include "grundy/play.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>& positional) {
    // clang-format off
    o.add_options()
        ("position", po::value<std::vector<std::string>>()->multitoken(), "X Y")
        ("sum", po::value<std::string>(),
         "play a sum of games: \"wythoff:X,Y nim:HEAP sub:M1,M2,...:HEAP ...\"")
        ("max-moves", po::value<std::string>()->default_value("1000"),
         "stop after this many moves");
    // clang-format on
    describe_sum_value_options(o);
    positional.push_back("position");
}

void print_line(size_t i, const std::string& position, bool in_kernel) {
    std::cout << (i ? "\u279e" : "  ") << " " << position << " "
              << (in_kernel ? "\u2208" : "\u2209") << " K\n";
}

int run_sum(const po::variables_map& v, uint64_t max_moves) {
    if (v.count("position")) throw Error("give either a position X Y or --sum, not both");
    const GameSum sum = parse_sum(v["sum"].as<std::string>());
    const std::optional<WythoffValues> values = wythoff_values_for(v, sum);
    const WythoffValues* table = values ? &*values : nullptr;
    const auto game = sum_perfect_game(sum, table, max_moves);
    for (size_t i = 0; i < game.size(); ++i)
        print_line(i, format_sum(game[i]), analyze_sum(game[i], table).nim_sum == 0);
    if (sum_losing_move(game.back()))
        std::cout << "stopped after " << max_moves << " moves (--max-moves)\n";
    std::cout << std::flush;
    return 0;
}

int run(const po::variables_map& v, const Context&) {
    const uint64_t max_moves = count_option(v, "max-moves", 0, uint64_t{1} << 40);
    if (v.count("sum")) return run_sum(v, max_moves);
    if (v.count("table")) throw Error("--table applies to --sum");
    const WythoffPosition start = parse_position(v);
    const auto game = wythoff_perfect_game(start.x, start.y, max_moves);
    for (size_t i = 0; i < game.size(); ++i) {
        const auto& p = game[i];
        std::ostringstream text;  // not string +: GCC 12 warns falsely (-Wrestrict) on it
        text << "(" << p.x << ", " << p.y << ")";
        print_line(i, text.str(), wythoff_is_p_position(p.x, p.y));
    }
    const auto& last = game.back();
    if (last.x != 0 || last.y != 0)
        std::cout << "stopped after " << max_moves << " moves (--max-moves)\n";
    std::cout << std::flush;
    return 0;
}

const CommandRegistrar registrar(
    {"play", "print a game between two perfect players (Wythoff X Y, or a sum of games)",
     "X Y [--max-moves N] | --sum \"wythoff:X,Y nim:N sub:1,3,4:N ...\" [--table F.h5]",
     "Plays from (X, Y) to (0, 0), one position per line, marking whether each is in the kernel\n"
     "K (the P-positions), as seed 000's game(). The player who can win moves into K (the move\n"
     "taking the fewest tokens); the lost player takes one token from the larger heap, which\n"
     "makes the game last. Games from large positions are long: --max-moves bounds them.\n"
     "With --sum the players of `grundy move --sum` play a sum; the lost one makes the smallest\n"
     "move in the first component that has one.",
     51, describe, run});

}  // namespace
}  // namespace grundy::app
