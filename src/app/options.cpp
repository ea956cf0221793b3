#include "app/options.hpp"

#include <cstdlib>

#include "grundy/error.hpp"
#include "io/byte_size.hpp"

namespace grundy::app {

uint64_t parse_count(const std::string& option, const std::string& text, uint64_t min,
                     uint64_t max) {
    return parse_whole_number("--" + option, text, min, max);
}

uint64_t parse_whole_number(const std::string& what, const std::string& text, uint64_t min,
                            uint64_t max) {
    const std::string range =
        "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    auto bad = [&](const std::string& why) {
        return Error(what + " " + why + ", got '" + text + "'");
    };
    auto digits = [&](const std::string& s) -> uint64_t {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
            throw bad("must be " + range);
        if (s.size() > 19) throw bad("is too large: must be " + range);
        return std::stoull(s);
    };
    uint64_t value = 0;
    const auto caret = text.find('^');
    if (caret == std::string::npos) {
        value = digits(text);
    } else {
        const uint64_t base = digits(text.substr(0, caret));
        const uint64_t exponent = digits(text.substr(caret + 1));
        value = 1;
        for (uint64_t i = 0; i < exponent; ++i) {
            if (base != 0 && value > max / base) throw bad("is too large: must be " + range);
            value *= base;
        }
    }
    if (value < min || value > max) throw bad("must be " + range);
    return value;
}

uint64_t count_option(const po::variables_map& values, const char* name, uint64_t min,
                      uint64_t max) {
    return parse_count(name, values[name].as<std::string>(), min, max);
}

uint64_t size_option(const po::variables_map& values, const char* name, uint64_t min,
                     uint64_t max) {
    std::string argument = name;
    for (char& c : argument) c = c == '-' ? '_' : c;  // rendered back as --name
    return parse_byte_size(argument, values[name].as<std::string>(), min, max);
}

void add_max_memory_option(po::options_description& o) {
    o.add_options()(
        "max-memory", po::value<std::string>(),
        (std::string("the memory budget, refusing up front a run that would not fit ") + kSizeHelp +
         "; default: the least of physical memory, this process's cgroup memory "
         "limit and RLIMIT_AS")
            .c_str());
}

void add_progress_options(po::options_description& o) {
    o.add_options()("progress", po::bool_switch(),
                    "show progress on stderr even when it is not a terminal")(
        "progress-every", po::value<std::string>()->default_value("60"),
        "seconds between progress lines where stderr is not a terminal (a batch job's log): "
        "each a line of its own, beginning with the time (UTC), and a last one at the end; at a "
        "terminal the line is redrawn in place");
}

MemoryBudget budget_option(const po::variables_map& values) {
    if (!values.count("max-memory")) return memory_budget();
    return memory_budget(size_option(values, "max-memory", 1));
}

double seconds_option(const po::variables_map& values, const char* name) {
    const std::string text = values[name].as<std::string>();
    char* end = nullptr;
    const double seconds = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(seconds >= 0) || seconds > 1e9)
        throw Error(std::string("--") + name + " must be a number of seconds >= 0, got '" + text +
                    "'");
    return seconds;
}

int parse_threads(const po::variables_map& values) {
    if (!values.count("threads")) return 0;
    return static_cast<int>(count_option(values, "threads", 1, 4096));
}

}  // namespace grundy::app
