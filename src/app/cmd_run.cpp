// grundy run JOB.ini: run the sections of a job file in order, each as the subcommand it names
// ([compute], [analyze], ...), with the same option names as the command line. Options given
// after the job file override the file's values in every section that has them.
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "app/command.hpp"
#include "app/job_file.hpp"
#include "grundy/error.hpp"

namespace grundy::app {
namespace {

// The long option names a command accepts.
std::set<std::string> option_names(const Command& c) {
    po::options_description options;
    std::vector<std::string> positional;
    c.describe(options, positional);
    std::set<std::string> names = {"help"};
    for (const auto& o : options.options()) names.insert(o->long_name());
    return names;
}

void describe(po::options_description& o, std::vector<std::string>& positional) {
    o.add_options()("job", po::value<std::string>()->required(), "the job file (INI)")(
        "override", po::value<std::vector<std::string>>(), "options overriding the file");
    positional = {"job", "override"};
}

// Never called: `run` takes arbitrary options after the job file, so main() sends it to
// run_job instead of the generic parser; `describe` above only documents it.
int run(const po::variables_map&, const Context&) {
    return 0;
}

// `run` takes arbitrary options after the job file, so it parses its own arguments.
int run_job(const Args& args, const Context& context) {
    if (args.empty()) throw Error("usage: grundy run JOB.ini [--option value ...]");
    if (args[0] == "--help" || args[0] == "-h") {
        std::cout << "Usage: grundy run JOB.ini [--dry-run] [--option value ...]\n\n"
                     "Runs each [section] of JOB.ini as the command it names (compute, analyze,\n"
                     "periods, ...), in order, with the section's key = value lines as options\n"
                     "(the same names as on the command line). Options after the job file\n"
                     "override the file in every section that has them. Paths are relative to\n"
                     "the current directory. --dry-run checks every section's options and\n"
                     "prints the command each would run, running none.\n";
        return 0;
    }
    const std::vector<JobFileSection> sections = read_job_file(args[0]);
    // --dry-run: every section parsed and printed as the command it makes, none run.
    Args overrides(args.begin() + 1, args.end());
    const auto dry = std::find(overrides.begin(), overrides.end(), std::string("--dry-run"));
    const bool dry_run = dry != overrides.end();
    if (dry_run) overrides.erase(dry);
    // Every override must mean something to at least one section, or it is a typo.
    std::set<std::string> known;
    for (const auto& s : sections) {
        const auto names = option_names(*find_command(s.name));
        known.insert(names.begin(), names.end());
    }
    for (const auto& a : overrides)
        if (a.rfind("--", 0) == 0) {
            const std::string name = a.substr(2, a.find('=') - 2);
            if (!known.count(name))
                throw Error("option --" + name + " is not used by any section of " + args[0]);
        }
    for (const auto& s : sections) {
        const Command& c = *find_command(s.name);
        // Keep only the overrides this command knows (with their values).
        const auto names = option_names(c);
        Args mine;
        for (size_t i = 0; i < overrides.size(); ++i) {
            const std::string& a = overrides[i];
            if (a.rfind("--", 0) != 0) throw Error("unexpected argument '" + a + "'");
            const std::string name = a.substr(2, a.find('=') - 2);
            const bool has_value = a.find('=') == std::string::npos && i + 1 < overrides.size() &&
                                   overrides[i + 1].rfind("--", 0) != 0;
            if (names.count(name)) {
                mine.push_back(a);
                if (has_value) mine.push_back(overrides[i + 1]);
            }
            if (has_value) ++i;
        }
        const int status = run_command(c, mine, &s.job, context, dry_run);
        if (status != 0) return status;
    }
    return 0;
}

const CommandRegistrar registrar({"run", "run a job file (INI sections named after commands)",
                                  "JOB.ini [--dry-run] [--option value ...]", "", 90, describe,
                                  run});

}  // namespace

int run_job_file(const Args& args, const Context& context) {
    return run_job(args, context);
}

}  // namespace grundy::app
