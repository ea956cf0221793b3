// The command-line program (grundy, and grundy-mpi's ranks): dispatches to the subcommands
// (cmd_*.cpp) and turns every error a user can fix into one line on stderr and exit status 2.
#include <boost/program_options/errors.hpp>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "app/command.hpp"
#include "app/option_names.hpp"
#include "app/program.hpp"
#include "grundy/error.hpp"
#include "grundy/version.hpp"

namespace grundy::app {
int run_job_file(const Args& args, const Context& context);

namespace {

void print_usage(std::ostream& out, const Program& program) {
    if (program.only_command) {
        out << "Usage: mpirun -np R " << program.name << " " << program.only_command
            << " [OPTIONS]   (" << program.name << " " << program.only_command << " --help)\n\n"
            << program.name << " runs `grundy " << program.only_command
            << "` across the ranks of an MPI job; use grundy for the other commands.\n";
        return;
    }
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

int run_program(int argc, char** argv, const Program& p) {
    if (argc < 2) {
        print_usage(std::cerr, p);
        return 2;
    }
    const std::string first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
        print_usage(std::cout, p);
        return 0;
    }
    if (first == "--version" || first == "-V") {
        std::cout << grundy::kSoftwareName << " " << grundy::kVersion << "\n";
        return 0;
    }
    const Command* command = find_command(first);
    if (!command || (p.only_command && first != p.only_command)) {
        if (p.print_errors)
            std::cerr << p.name << ": unknown command '" << first << "' (see " << p.name
                      << " --help)\n";
        return 2;
    }
    std::string message;
    try {
        // `run` takes the options of the commands its job file names, so it parses its own.
        const Context context{.link = p.link};
        if (first == "run") return run_job_file(Args(argv + 2, argv + argc), context);
        return run_command(*command, Args(argv + 2, argv + argc), nullptr, context);
    } catch (const grundy::Error& e) {
        message = cli_message(e);
    } catch (const std::bad_alloc&) {
        message = "out of memory";
    } catch (const std::exception& e) {
        message = e.what();
    }
    if (p.print_errors) std::cerr << "grundy " << command->name << ": error: " << message << "\n";
    return 2;
}

}  // namespace grundy::app
