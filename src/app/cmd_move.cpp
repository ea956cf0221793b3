// grundy move: a winning move of Wythoff's game (exact, no table) or of a sum of games.
#include <iostream>

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
         "a sum of games: \"wythoff:X,Y nim:HEAP sub:M1,M2,...:HEAP ...\"")
        ("all", po::bool_switch(), "list every winning move of X Y, best first")
        ("explain", po::bool_switch(), "print each component's value and the nim-sum");
    // clang-format on
    describe_sum_value_options(o);
    positional.push_back("position");
}

int run_sum(const po::variables_map& v) {
    if (v.count("position")) throw Error("give either a position X Y or --sum, not both");
    if (v["all"].as<bool>()) throw Error("--all applies to a position X Y, not to --sum");
    const GameSum sum = parse_sum(v["sum"].as<std::string>());
    const std::optional<WythoffValues> values = wythoff_values_for(v, sum);
    const WythoffValues* table = values ? &*values : nullptr;
    if (v["explain"].as<bool>()) {
        const SumAnalysis a = analyze_sum(sum, table);
        for (size_t i = 0; i < sum.size(); ++i)
            std::cout << format_component(sum[i]) << "  g = " << a.values[i] << "\n";
        std::cout << "nim-sum = " << a.nim_sum << "\n";
    }
    const auto next = sum_winning_move(sum, table);
    if (!next) {
        std::cout << "no winning move" << std::endl;
        return 1;
    }
    std::cout << format_sum(*next) << std::endl;
    return 0;
}

int run(const po::variables_map& v, const Context&) {
    if (v.count("sum")) return run_sum(v);
    if (v.count("table") || v["explain"].as<bool>())
        throw Error("--table and --explain apply to --sum");
    const WythoffPosition p = parse_position(v);
    const auto moves = wythoff_winning_moves(p.x, p.y);
    if (moves.empty()) {
        std::cout << "no winning move" << std::endl;
        return 1;
    }
    for (const auto& m : moves) {
        std::cout << m.x << " " << m.y << "\n";
        if (!v["all"].as<bool>()) break;
    }
    std::cout << std::flush;
    return 0;
}

const CommandRegistrar registrar(
    {"move", "perfect play: a winning move of Wythoff's game X Y, or of a sum of games (--sum)",
     "X Y [--all] | --sum \"wythoff:X,Y nim:N sub:1,3,4:N ...\" [--table F.h5] [--explain]",
     "Prints the position after a winning move, or 'no winning move' with exit status 1 when\n"
     "the position is lost (a P-position). For X Y (each up to 2^63 - 1) the move is exact,\n"
     "from the cold positions (a_n, a_n + n), a_n = floor(n phi) in integer arithmetic, with no\n"
     "table; of the up to three winning moves the one taking the fewest tokens is printed\n"
     "(--all: all of them). With --sum the value of each component is combined by xor\n"
     "(Sprague-Grundy); Wythoff values come from --table or from the engine, on the fly.",
     50, describe, run});

}  // namespace
}  // namespace grundy::app
