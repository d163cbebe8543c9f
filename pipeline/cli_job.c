/* pipeline/cli_job.c — `gpipe run JOB.ini`: job files (issue 6). Called from pipeline/cli.c with
 * argv[0] = "run"; returns the exit code (0 every entry succeeded or --check passed, 2 error);
 * only rank 0 prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/cli.h"
#include "pipeline/job.h"

int gp_cli_run(int argc, char **argv, MPI_Comm comm);

static const char *usage_run =
    "usage: gpipe run JOB.ini [--check] [--continue-on-error] [--json FILE] [options]\n"
    "\n"
    "Run a job file: a chain of stages (read, cast, scale, affine, standardize, transpose, write,\n"
    "reduce, stats) over every dataset its [read] section names, in order, in one MPI launch.\n"
    "Adjacent element-wise stages run fused in one pass (inside the transpose when one follows).\n"
    "Each entry ends with a status line on stderr (and a JSON line with --json); outputs are\n"
    "written under a temporary name and renamed when the entry succeeded, so a finished entry's\n"
    "output is never lost because a later one failed. Format: jobs/README.md, docs/jobs.md.\n"
    "\n"
    "options:\n"
    "      --check                validate the job file, expand its inputs and print the plan;\n"
    "                             reads no data and writes nothing\n"
    "  -k, --continue-on-error    report a failing entry and run the rest (default: stop at the\n"
    "                             first failure; the job file's continue_on_error = yes does the same)\n"
    "      --json FILE            append one JSON line per entry, per reduce/stats result and a\n"
    "                             final summary (- = stdout)\n"
    "      --device auto|cpu|cuda override the job's device (transposes and reductions)\n"
    "      --mem SIZE             override the job's per-rank memory budget, e.g. 512M, 2G\n"
    "  -f, --force                overwrite existing outputs\n"
    "      --timeout SECONDS      abort the job (exit 2) when no rank makes progress for that long\n"
    "  -q, --quiet                no status lines on stderr\n"
    "  -h, --help                 this help\n"
    "\n"
    "exit codes: 0 every entry succeeded, 2 an error (a bad job file names FILE:LINE; a failed\n"
    "entry is named with its cause).\n"
    "\n"
    "examples:\n"
    "  gpipe run --check jobs/standardize-transpose.ini\n"
    "  mpirun -n 8 gpipe run jobs/standardize-transpose.ini --continue-on-error --json report.jsonl\n";

static int err_line(int rank, const char *msg)
{
    if (rank == 0) fprintf(stderr, "gpipe: error: %s\n", msg);
    return 2;
}

int gp_cli_run(int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"check", no_argument, 0, 'C'}, {"continue-on-error", no_argument, 0, 'k'},
        {"json", required_argument, 0, 'j'}, {"device", required_argument, 0, 'D'},
        {"mem", required_argument, 0, 'm'}, {"force", no_argument, 0, 'f'},
        {"timeout", required_argument, 0, 'W'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int rank;
    MPI_Comm_rank(comm, &rank);
    gp_job_run_opts o = {0};
    o.continue_on_error = -1;
    int check = 0, ch;
    char m[1200];
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":kfqh", opts, NULL)) != -1) {
        switch (ch) {
        case 'C': check = 1; break;
        case 'k': o.continue_on_error = 1; break;
        case 'j': o.json = optarg; break;
        case 'D':
            if (strcmp(optarg, "auto") && strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
                snprintf(m, sizeof m, "run: --device %s: expected auto, cpu or cuda", optarg);
                return err_line(rank, m);
            }
            o.device = optarg;
            break;
        case 'm':
            if (gp_parse_size(optarg, &o.mem) || !o.mem) {
                snprintf(m, sizeof m, "run: --mem %s: expected a size such as 512M or 2G", optarg);
                return err_line(rank, m);
            }
            break;
        case 'f': o.force = 1; break;
        case 'W':
            if (gp_cli_timeout(optarg)) {
                snprintf(m, sizeof m, "run: --timeout %s: expected a number of seconds > 0", optarg);
                return err_line(rank, m);
            }
            break;
        case 'q': o.quiet = 1; break;
        case 'h':
            if (rank == 0) fputs(usage_run, stdout);
            return 0;
        case ':':
            snprintf(m, sizeof m, "run: option %s needs a value (see gpipe run --help)", argv[optind - 1]);
            return err_line(rank, m);
        default:
            snprintf(m, sizeof m, "run: unknown option %s (see gpipe run --help)", argv[optind - 1]);
            return err_line(rank, m);
        }
    }
    if (optind >= argc) return err_line(rank, "run: a job file is required (see gpipe run --help)");
    if (optind + 1 < argc) {
        snprintf(m, sizeof m, "run: one job file expected, got also '%s'", argv[optind + 1]);
        return err_line(rank, m);
    }
    const char *path = argv[optind];
    gp_job job;
    char perr[1024];
    /* every rank parses the same file; the result is agreed so that no rank runs alone */
    int rc = gp_job_parse(path, &job, perr, sizeof perr);
    int any = rc != 0, all_any = 0;
    MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_MAX, comm);
    if (all_any) {
        if (!rc) gp_job_free(&job);
        if (!any) snprintf(perr, sizeof perr, "%s: the job file could not be read on every rank", path);
        if (rank == 0) fprintf(stderr, "gpipe: error: %s\n", perr);
        return 2;
    }
    gp_job_entry *entries = NULL;
    size_t n = 0;
    gp_error e = {0};
    e.rank = -1;
    gp_status st = gp_job_expand(comm, &job, &entries, &n, &e);
    if (st) {
        gp_job_free(&job);
        if (rank == 0) fprintf(stderr, "gpipe: error: %s\n", e.msg[0] ? e.msg : gp_strerror(st));
        return 2;
    }
    if (check) {
        if (rank == 0) {
            gp_job_print_plan(stdout, &job, entries, n);
            fflush(stdout);
        }
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += entries[i].error[0] != 0;
        free(entries);
        gp_job_free(&job);
        if (bad) {
            snprintf(m, sizeof m, "%s: %zu of %zu entr%s cannot be planned (see the plan)", path, bad, n, n == 1 ? "y" : "ies");
            return err_line(rank, m);
        }
        return 0;
    }
    size_t nfailed = 0;
    st = gp_job_run(comm, &job, entries, n, &o, &nfailed, &e);
    free(entries);
    gp_job_free(&job);
    if (st) {
        if (rank == 0) fprintf(stderr, "gpipe: error: %s\n", e.msg[0] ? e.msg : gp_strerror(st));
        return 2;
    }
    return 0;
}
