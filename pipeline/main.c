/* pipeline/main.c — gpipe's entry point: MPI up, the CLI, MPI down, the exit code. */
#include <mpi.h>
#include <stdio.h>
#include "pipeline/cli.h"

int main(int argc, char **argv)
{
    int provided = 0;  /* a worker thread computes; only the main thread calls MPI and HDF5 */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "gpipe: error: MPI_Init failed\n");
        return 2;
    }
    int rc = gp_cli_main(argc, argv, MPI_COMM_WORLD);
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    return rc;
}
