// Option parsing helpers shared by the subcommands: strict numbers, threads.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

#include "grundy/engine.hpp"
#include "grundy/memory.hpp"

namespace grundy::app {

namespace po = boost::program_options;

// A whole number in [min, max], from text: plain digits or "B^E"; no sign, no spaces, no
// fraction. Throws grundy::Error naming the option and its value otherwise.
uint64_t parse_count(const std::string& option, const std::string& text, uint64_t min,
                     uint64_t max);

// The same for a value that is not an option (a positional argument): `what` names it in
// messages as it is, without the "--" parse_count puts before an option's name.
uint64_t parse_whole_number(const std::string& what, const std::string& text, uint64_t min,
                            uint64_t max);

// A required or defaulted count option stored as a string.
uint64_t count_option(const po::variables_map& values, const char* name, uint64_t min,
                      uint64_t max);

// A size in bytes (grundy::parse_byte_size's rule: 8000000000, 8e9, 8G, 8GiB, 2^33) in
// [min, max], stored as a string. Throws grundy::ArgumentError naming the option.
uint64_t size_option(const po::variables_map& values, const char* name, uint64_t min = 0,
                     uint64_t max = ~uint64_t{0});

// The help text of every byte-size option's value, and --max-memory's option description.
inline constexpr const char* kSizeHelp =
    "(bytes: 8000000000, 8e9, 8G or 8GB = 10^9, 8GiB = 2^30, 2^33)";
void add_max_memory_option(po::options_description& o);

// --progress and --progress-every (compute and periods): whether and how the progress is shown
// (progress_wanted, progress_style in progress.hpp).
void add_progress_options(po::options_description& o);

// The memory budget (grundy::memory_budget): --max-memory if given, else the least of physical
// memory, the cgroup limit and RLIMIT_AS.
MemoryBudget budget_option(const po::variables_map& values);

// A number of seconds >= 0 (a decimal number, at most 1e9), stored as a string: the one parser
// of --checkpoint-every and --progress-every (compute and periods). Throws grundy::Error naming the
// option.
double seconds_option(const po::variables_map& values, const char* name);

// --threads: a count from 1 up, or absent for the OpenMP default (OMP_NUM_THREADS, else all
// cores). Returns 0 for the default.
int parse_threads(const po::variables_map& values);

}  // namespace grundy::app
