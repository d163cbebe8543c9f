/* io/probe.h — the sandbox for parsing untrusted files (io/probe.c), as seen by main.c. */
#ifndef GP_IO_PROBE_H
#define GP_IO_PROBE_H
/* This process is the gpipe executable: rank 0 may re-run it as `gpipe __probe ...` to parse an
 * input in a child process. */
void gp_probe_enable(int on);
/* The child's main (argv[1] == "__probe"), called before MPI is initialised; returns the exit
 * code: 0 the file passed, 2 refused (one line on fd 3), 3 misuse. */
int gp_probe_main(int argc, char **argv);
#endif
