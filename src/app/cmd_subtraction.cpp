// grundy subtraction: the Grundy sequence of a subtraction game S(M) and its period.
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/command.hpp"
#include "app/options.hpp"
#include "base/atomic_file.hpp"
#include "grundy/error.hpp"
#include "grundy/play.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>&) {
    // clang-format off
    o.add_options()
        ("moves", po::value<std::string>()->required(), "the move set, e.g. 1,3,4")
        ("n", po::value<std::string>()->default_value("1000"), "compute g(0), ..., g(N-1)")
        ("show", po::value<std::string>()->default_value("40"), "print the first K values")
        ("csv", po::value<std::string>(), "write every value to this CSV file (n,grundy)");
    // clang-format on
}

std::vector<uint64_t> parse_moves(const std::string& text) {
    std::vector<uint64_t> moves;
    std::string::size_type start = 0;
    for (;;) {
        const auto end = text.find(',', start);
        moves.push_back(parse_count("moves", text.substr(start, end - start), 1, kMaxCoordinate));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return moves;
}

int run(const po::variables_map& v, const Context&) {
    const auto moves = normalize_subtraction_moves(parse_moves(v["moves"].as<std::string>()));
    const uint64_t n = count_option(v, "n", 1, kMaxSubtractionLength);
    const uint64_t show = count_option(v, "show", 0, kMaxSubtractionLength);
    const SubtractionAnalysis a = analyze_subtraction(moves, n);
    std::string name = "S({";
    for (size_t i = 0; i < moves.size(); ++i) {
        if (i) name += ',';
        name += std::to_string(moves[i]);
    }
    name += "})";
    if (show > 0) {
        std::cout << name << ": g(0.." << std::min(show, n) - 1 << ") =";
        for (uint64_t i = 0; i < std::min(show, n); ++i) std::cout << " " << a.values[i];
        std::cout << "\n";
    }
    if (a.periodicity)
        std::cout << name << ": period " << a.periodicity->period << ", preperiod "
                  << a.periodicity->preperiod << " (" << a.periodicity->periods_observed
                  << " periods observed in " << n << " values)\n";
    else
        std::cout << name << ": no period <= " << a.max_period
                  << " with preperiod <= " << a.max_preperiod << " in " << n
                  << " values (try a larger --n)\n";
    if (v.count("csv")) {
        const std::string path = v["csv"].as<std::string>();
        base::AtomicTextFile out(path);  // whole or not at all, as every CSV
        out << "n,grundy\n";
        for (uint64_t i = 0; i < n; ++i) out << i << "," << uint64_t{a.values[i]} << "\n";
        out.commit();
    }
    std::cout << std::flush;
    return 0;
}

const CommandRegistrar registrar(
    {"subtraction", "Grundy sequence and period of a subtraction game S(M)",
     "--moves 1,3,4 [--n N] [--show K] [--csv F.csv]",
     "Computes g(0), ..., g(N-1) of the subtraction game S(M) (one heap; a move removes m\n"
     "tokens, m in M) and reports its period and preperiod with the project's periodicity\n"
     "criterion (grundy::find_period on the values themselves: pure, not additive\n"
     "periodicity) with bounds period <= N/4 and preperiod <= N/2, so a reported period has\n"
     "been seen at least twice after its preperiod. N is at most 2^24.",
     52, describe, run});

}  // namespace
}  // namespace grundy::app
