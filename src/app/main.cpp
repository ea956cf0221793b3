// grundy: the command-line program. Dispatches to the subcommands (cmd_*.cpp) and turns every
// error a user can fix into one line on stderr and exit status 2.
#include <boost/program_options/errors.hpp>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "app/command.hpp"
#include "app/option_names.hpp"
#include "grundy/error.hpp"
#include "grundy/version.hpp"

namespace grundy::app {
int run_job_file(const Args& args);
}

namespace {

void print_usage(std::ostream& out) {
    out << "Usage: grundy COMMAND [OPTIONS]   (grundy COMMAND --help for each command)\n\n"
           "Sprague-Grundy tables of Wythoff's game: compute, store, analyse, play.\n\n"
           "Commands:\n";
    for (const auto& c : grundy::app::commands()) {
        out << "  " << c.name;
        for (size_t n = std::strlen(c.name); n < 13; ++n) out << ' ';
        out << c.summary << "\n";
    }
    out << "\nOptions:\n  --help       show this help\n  --version    print the version\n";
}

}  // namespace

int main(int argc, char** argv) {
    using namespace grundy::app;
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    const std::string first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
        print_usage(std::cout);
        return 0;
    }
    if (first == "--version" || first == "-V") {
        std::cout << grundy::kSoftwareName << " " << grundy::kVersion << "\n";
        return 0;
    }
    const Command* command = find_command(first);
    if (!command) {
        std::cerr << "grundy: unknown command '" << first << "' (see grundy --help)\n";
        return 2;
    }
    try {
        // `run` takes the options of the commands its job file names, so it parses its own.
        if (first == "run") return run_job_file(Args(argv + 2, argv + argc));
        return run_command(*command, Args(argv + 2, argv + argc), nullptr);
    } catch (const grundy::Error& e) {
        std::cerr << "grundy " << command->name << ": error: " << cli_message(e) << "\n";
    } catch (const std::bad_alloc&) {
        std::cerr << "grundy " << command->name << ": error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "grundy " << command->name << ": error: " << e.what() << "\n";
    }
    return 2;
}
