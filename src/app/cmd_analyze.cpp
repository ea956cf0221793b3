// grundy analyze: the analysis passes over a stored table (grundy/analysis.hpp does the work).
#include <iostream>

#include "analysis/summary.hpp"
#include "app/command.hpp"
#include "app/options.hpp"
#include "grundy/analysis.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>& positional) {
    o.add_options()("file", po::value<std::string>()->required(),
                    "the table (HDF5, from grundy compute)")(
        "passes",
        po::value<std::string>()->default_value("periodicity,verify,ppositions,properties"),
        "comma-separated passes to run: periodicity, verify, ppositions, properties")(
        "csv", po::value<std::string>(), "write the row periods to this CSV file")(
        "json", po::bool_switch(), "print the summary as JSON")(
        "no-store", po::bool_switch(), "do not write the results under /analysis in the file")(
        "allow-incomplete", po::bool_switch(), "analyse a file whose 'complete' is not 1")(
        "threads,t", po::value<std::string>(),
        "worker threads (default: OMP_NUM_THREADS, else all cores)");
    add_max_memory_option(o);
    positional = {"file"};
}

int run(const po::variables_map& v, const Context&) {
    AnalysisOptions options;
    parse_passes(v["passes"].as<std::string>(), options);
    if (v.count("csv")) options.csv_path = v["csv"].as<std::string>();
    options.store = !v["no-store"].as<bool>();
    options.allow_incomplete = v["allow-incomplete"].as<bool>();
    options.threads = parse_threads(v);
    if (v.count("max-memory")) options.max_memory = size_option(v, "max-memory", 1);
    const AnalysisReport report = analyze_table(v["file"].as<std::string>(), options);
    std::cout << (v["json"].as<bool>() ? summary_json(report) : summary_text(report)) << std::flush;
    return report.ok() ? 0 : 1;
}

const CommandRegistrar registrar(
    {"analyze",
     "analysis passes over a stored table: row periods, verification, P-positions, properties",
     "F.h5 [--passes LIST] [--csv F.csv] [--json] [options]",
     "Reads F.h5 band by band (never the whole table) and runs the passes:\n"
     "  periodicity  period and preperiod of every row of g(x, y) - x under one exact criterion\n"
     "               (stored as the attribute 'criterion'), with the block of g - x + 2y;\n"
     "  verify       every cell against the mex of its options, independently of the engine;\n"
     "  ppositions   the zeros against (a_n, a_n + n) and mirror, a_n = floor(n phi) exactly;\n"
     "  properties   symmetry, bounds x - 2y <= g <= x + y, no value twice in a row, column or\n"
     "               diagonal, every value below X - 2y in row y.\n"
     "Results go under /analysis in F.h5 (unless --no-store) and the row periods to --csv.\n"
     "Refused up front (exit status 2) when the passes would not fit the memory budget\n"
     "(--max-memory, else the least of physical memory, the cgroup limit and RLIMIT_AS).\n"
     "Exit status: 0 all checks pass, 1 a check failed, 2 bad input or a bad file.",
     30, describe, run});

}  // namespace
}  // namespace grundy::app
