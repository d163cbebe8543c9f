/* pipeline/main.c — gpipe's entry point: MPI up, the CLI, MPI down, the exit code. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "io/probe.h"
#include "pipeline/cli.h"

int main(int argc, char **argv)
{
    /* rank 0's child that parses an untrusted input first (io/probe.c): no MPI */
    if (argc > 1 && !strcmp(argv[1], "__probe")) return gp_probe_main(argc, argv);
    gp_probe_enable(1);
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
