/* pipeline/main.c — gpipe's entry point: MPI up, the CLI, MPI down, the exit code. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "io/probe.h"
#include "pipeline/cli.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>   /* the sanitized test build (-DGPIPE_SANITIZE=ON) */
#endif

int main(int argc, char **argv)
{
    /* rank 0's child that parses an untrusted input first (io/probe.c): no MPI */
    if (argc > 1 && !strcmp(argv[1], "__probe")) return gp_probe_main(argc, argv);
    gp_probe_enable(1);
    int provided = 0;  /* a worker thread computes; only the main thread calls MPI and HDF5 */
#if defined(__SANITIZE_ADDRESS__)
    /* What Open MPI allocates in MPI_Init and never frees (~18 blocks per process) is not
     * gpipe's: LeakSanitizer ignores this thread's allocations until MPI is up, so the sanitized
     * tests need no suppression by function for them, which would take the slow full-stack
     * unwinder on every malloc (tests/CMakeLists.txt, tests/lsan.supp). */
    __lsan_disable();
#endif
    int init = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#if defined(__SANITIZE_ADDRESS__)
    __lsan_enable();
#endif
    if (init != MPI_SUCCESS) {
        fprintf(stderr, "gpipe: error: MPI_Init failed\n");
        return 2;
    }
    int rc = gp_cli_main(argc, argv, MPI_COMM_WORLD);
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    return rc;
}
