// The program behind `grundy` (main.cpp) and each rank of `grundy-mpi` (src/mpi/main.cpp).
#pragma once

namespace grundy::strip {
class RankLink;
}

namespace grundy::app {

struct Program {
    const char* name = "grundy";
    // Whether errors are printed (grundy-mpi: rank 0 only; the ranks agree on them).
    bool print_errors = true;
    // The only command accepted (grundy-mpi: "periods"); null: every command.
    const char* only_command = nullptr;
    strip::RankLink* link = nullptr;  // grundy-mpi's ranks, handed to the command (Context)
};

// Dispatches argv to a command; returns the exit status.
int run_program(int argc, char** argv, const Program& program);

}  // namespace grundy::app
