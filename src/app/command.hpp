// The subcommands of `grundy`. Each lives in its own cmd_*.cpp and registers itself with a
// static CommandRegistrar, so adding one touches no other file. The framework (options.cpp)
// does the parsing, --help, the job-file layering and the errors; a command only declares its
// options and runs.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace grundy::strip {
class RankLink;
}

namespace grundy::app {

namespace po = boost::program_options;
using Args = std::vector<std::string>;

// What a command runs in besides its options, handed down from the program (program.hpp).
struct Context {
    strip::RankLink* link = nullptr;  // grundy-mpi: this rank's link to the others; null in grundy
};

struct Command {
    const char* name;
    const char* summary;  // one line for `grundy --help`
    const char* usage;    // after "grundy NAME "
    const char* about;    // a paragraph for `grundy NAME --help`
    int order;            // position in `grundy --help`
    // Adds the command's options; `positional` lists the names of positional arguments, in
    // order (the last may be repeated when its option is multitoken).
    void (*describe)(po::options_description& options, std::vector<std::string>& positional);
    // Runs with parsed options; returns the exit status. Throws grundy::Error on bad input.
    int (*run)(const po::variables_map& values, const Context& context);
};

// The exit status of a run that stopped before the end (a signal, a full disk) and kept
// everything needed to continue: the same command again with --resume does (src/DESIGN.md,
// section 5.1; EX_TEMPFAIL of sysexits.h). Batch scripts resubmit on it. Bad input and unusable
// files are 2: main turns every grundy::Error into that.
constexpr int kExitResumable = 75;

struct CommandRegistrar {
    explicit CommandRegistrar(const Command& command);
};

const std::vector<Command>& commands();
const Command* find_command(const std::string& name);

// A job-file section given to a command: its key = value lines, applied under (and so
// overridden by) the command-line arguments.
struct JobSection {
    std::string text;    // the section's lines, INI syntax without the header
    std::string origin;  // "FILE [section]" for messages
};

// Parses `args` and, inside `grundy run`, a job section into `values`, as `command` declares its
// options. Returns false when --help was asked for (and printed). Throws grundy::Error for
// options the command does not have or values of the wrong kind.
bool parse_command_options(const Command& command, const Args& args, const JobSection* job,
                           po::variables_map& values);
// Parses and runs `command` with `args` and, inside `grundy run`, a job section. With
// `parse_only` (grundy run --dry-run) it stops after the parse and prints the command the
// options make, "grundy NAME --option value ...", instead of running it.
int run_command(const Command& command, const Args& args, const JobSection* job,
                const Context& context, bool parse_only = false);

}  // namespace grundy::app
