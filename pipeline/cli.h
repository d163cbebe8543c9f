/* pipeline/cli.h — the command-line client (cli.c), called by main.c. */
#ifndef GP_CLI_H
#define GP_CLI_H
#include <mpi.h>
/* Parses argv, runs the command over comm, returns the process exit code (0, 2). */
int gp_cli_main(int argc, char **argv, MPI_Comm comm);
/* --timeout SECONDS (cli_reduce.c): a positive number, passed to the watchdog of the library
 * (pipeline/watchdog.c) as GPIPE_WATCHDOG. Returns 0, or -1 for a bad value. */
int gp_cli_timeout(const char *arg);
#endif
