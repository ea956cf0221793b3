// grundy verify: the independent check that every stored cell is the mex of its options.
#include <iostream>

#include "app/command.hpp"
#include "app/options.hpp"
#include "grundy/analysis.hpp"
#include "grundy/hdf5_reader.hpp"

namespace grundy::app {
namespace {

void describe(po::options_description& o, std::vector<std::string>& positional) {
    o.add_options()("file", po::value<std::string>()->required(),
                    "the table (HDF5, from grundy compute)")(
        "sample", po::value<std::string>(),
        "check K random cells, each by a direct mex over all its options, instead of all")(
        "seed", po::value<std::string>()->default_value("1"), "random seed for --sample")(
        "allow-incomplete", po::bool_switch(), "check a file whose 'complete' is not 1")(
        "threads,t", po::value<std::string>(),
        "worker threads (default: OMP_NUM_THREADS, else all cores)");
    add_max_memory_option(o);
    positional = {"file"};
}

int run(const po::variables_map& v, const Context&) {
    const std::string path = v["file"].as<std::string>();
    const Hdf5TableReader table(path, v["allow-incomplete"].as<bool>());
    VerifyReport report;
    if (v.count("sample")) {
        const uint64_t k = count_option(v, "sample", 1, uint64_t{1} << 40);
        const uint64_t seed = count_option(v, "seed", 0, ~uint64_t{0});
        report = verify_sample(table, k, seed);
    } else {
        report = verify_table(table, parse_threads(v),
                              v.count("max-memory") ? size_option(v, "max-memory", 1) : 0);
    }
    if (!report.ok()) {
        std::cerr << "grundy verify: " << path << " is WRONG: " << report.wrong->describe() << "\n";
        return 1;
    }
    std::cout << path << ": ok, " << report.cells_checked
              << (v.count("sample") ? " random cells" : " cells")
              << " are the mex of their options\n";
    return 0;
}

const CommandRegistrar registrar(
    {"verify", "independent check that every stored cell is the mex of its options",
     "F.h5 [--sample K] [--seed S] [--threads T] [--max-memory SIZE]",
     "Recomputes the mex of the options of every cell of F.h5 from the stored values, with\n"
     "code that shares nothing with the engine, streaming the file column band by column band.\n"
     "--sample K checks K random cells instead, each by a direct mex over all of its options.\n"
     "The full check holds row and diagonal sets of about 0.7 bytes per cell of the table's\n"
     "square part: refused up front (exit status 2) when that does not fit the memory budget\n"
     "(--max-memory, else the least of physical memory, the cgroup limit and RLIMIT_AS).\n"
     "Exit status: 0 the table is right, 1 a wrong cell (named as (x, y), with the value found\n"
     "and the value expected), 2 bad input or a bad file.",
     31, describe, run});

}  // namespace
}  // namespace grundy::app
