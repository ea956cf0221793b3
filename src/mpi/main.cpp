// grundy-mpi: `grundy periods` across the ranks of an MPI job (mpirun -np R grundy-mpi periods
// ...). A second program rather than grundy itself, so that grundy needs no MPI to build or to
// run and never starts MPI's runtime; both are the same commands over the same library.
#include <mpi.h>

#include <cstdio>

#include "app/program.hpp"
#include "mpi/mpi_link.hpp"

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
        std::fprintf(stderr,
                     "grundy-mpi: error: this MPI library cannot be called from "
                     "several threads (MPI_THREAD_SERIALIZED)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int status = 0;
    {
        grundy::mpi::MpiLink link(MPI_COMM_WORLD);
        grundy::app::Program program;
        program.name = "grundy-mpi";
        program.print_errors = link.rank() == 0;
        program.only_command = "periods";
        program.link = &link;
        status = grundy::app::run_program(argc, argv, program);
    }
    MPI_Finalize();
    return status;
}
