// grundy: the command-line program (program.cpp).
#include "app/program.hpp"

int main(int argc, char** argv) {
    return grundy::app::run_program(argc, argv, {});
}
