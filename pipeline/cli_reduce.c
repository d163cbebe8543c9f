/* pipeline/cli_reduce.c — command-line parsing of `gpipe reduce`, `gpipe stats` and
 * `gpipe verify` (issue 5). Called from pipeline/cli.c with argv[0] = the command name; returns
 * the exit code (0 ok, 1 verify found a difference, 2 error); only rank 0 prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/cli.h"
#include "pipeline/reduce.h"

int gp_cli_reduce(int argc, char **argv, MPI_Comm comm);
int gp_cli_stats(int argc, char **argv, MPI_Comm comm);
int gp_cli_verify(int argc, char **argv, MPI_Comm comm);

static const char *usage_reduce =
    "usage: gpipe reduce IN --op OP [--axis rows|cols|all] [options]\n"
    "\n"
    "Reduce the 2-D dataset of IN: one value per row (--axis rows), per column (--axis cols) or\n"
    "for the whole matrix (--axis all, the default). Sums are exact and rounded once, so the\n"
    "result has the same bits for any number of ranks, any panel size, CPU or GPU.\n"
    "Float inputs give f64 results; integer sum/min/max are exact in i64 (u64 for unsigned\n"
    "inputs and absmax; an overflow is an error); mean, sumsq and norm2 are f64.\n"
    "--result-type input keeps the input's type instead: f32 data give f32 results (the f64\n"
    "result rounded to nearest), integer data their own integer type (a result that does not\n"
    "fit is an error naming the row or column; mean and norm2 of integers have no such result).\n"
    "NaN: any NaN makes sum/mean/sumsq/norm2/min/max/absmax NaN; +Inf and -Inf together give NaN.\n"
    "argmin/argmax give the int64 index of the first minimum/maximum (ties: the smallest index;\n"
    "any NaN: the first NaN, like numpy; -0 < +0): the column for --axis rows, the row for --axis\n"
    "cols, the flat row-major index for --axis all (printed with its row and column).\n"
    "\n"
    "options:\n"
    "      --op OP                sum, mean, min, max, absmax, sumsq, norm2, argmin, argmax\n"
    "                             (required)\n"
    "  -a, --axis AXIS            rows, cols or all (default all)\n"
    "  -d, --dataset PATH         input dataset (default: the only 2-D dataset in IN)\n"
    "  -o, --output FILE          write the result to an HDF5 file (1-D dataset)\n"
    "      --output-dataset PATH  dataset path in the output (default /rows, /cols or /all)\n"
    "  -f, --force                overwrite an existing output file\n"
    "      --result-type wide|input  f64/i64/u64 results (wide, the default) or the input's\n"
    "                             element type (input; argmin/argmax indices stay int64)\n"
    "      --json FILE            append the result as one JSON line (- = stdout)\n"
    "      --device auto|cpu|cuda backend (default auto: CUDA when a GPU is visible)\n"
    "      --mem SIZE             host memory budget per rank, e.g. 512M, 2G\n"
    "      --panel-rows K         rows per rank per panel (default: from --mem)\n"
    "      --timeout SECONDS      abort the job (exit 2) when no rank makes progress for that long\n"
    "  -q, --quiet                no summary line on stderr\n"
    "  -h, --help                 this help\n"
    "\n"
    "Without -o or --json the result is printed on stdout (one `index value` line per row or\n"
    "column). Exit codes: 0 success, 2 error.\n"
    "\n"
    "examples:\n"
    "  mpirun -n 8 gpipe reduce m.h5 --op sum --axis cols -o sums.h5 --output-dataset /colsum\n"
    "  mpirun -n 8 gpipe reduce m.h5 --op max --axis all --json -\n"
    "  mpirun -n 8 gpipe reduce m.h5 --op argmax --axis rows -o where.h5\n";

static const char *usage_stats =
    "usage: gpipe stats IN [-d PATH] [--json FILE] [options]\n"
    "\n"
    "One pass over the dataset: count, NaN and +-Inf counts, min and max (over non-NaN values),\n"
    "mean and std (population, over the finite values; from exact sums, so the same bits for any\n"
    "rank count and panel size) and an order-independent checksum (xxh3 of every element's\n"
    "value bytes seeded by its index, summed mod 2^64).\n"
    "\n"
    "options:\n"
    "  -d, --dataset PATH   input dataset (default: the only 2-D dataset in IN)\n"
    "      --json FILE      append the result as one JSON line (- = stdout) instead of the table\n"
    "      --device auto|cpu|cuda backend (default auto: CUDA when a GPU is visible; the\n"
    "                       same bits either way)\n"
    "      --mem SIZE       host memory budget per rank (two panels: one read while the\n"
    "                       other is reduced)\n"
    "      --panel-rows K   rows per rank per panel (default: from --mem)\n"
    "      --timeout SECONDS  abort the job (exit 2) when no rank makes progress for that long\n"
    "  -q, --quiet          no summary line on stderr\n"
    "  -h, --help           this help\n";

static const char *usage_verify =
    "usage: gpipe verify A.h5 B.h5 [--transposed] [-d PATH] [-D PATH] [options]\n"
    "\n"
    "Check that B holds the same elements as A (or A's transpose with --transposed) without\n"
    "gathering the data: each rank fingerprints its panels (xxh3 of (index, value) summed per row\n"
    "and column bucket), the fingerprints are merged, and a mismatch is narrowed down to a row and\n"
    "column. Values are compared bit for bit after conversion to native byte order (so a\n"
    "big-endian copy of a little-endian file is equal; -0 and +0 differ; NaNs compare by bits).\n"
    "\n"
    "options:\n"
    "  -t, --transposed       B is expected to be A transposed\n"
    "  -d, --dataset PATH     dataset in A (default: the only 2-D dataset)\n"
    "  -D, --dataset-b PATH   dataset in B (default: the only 2-D dataset)\n"
    "      --json FILE        append the verdict as one JSON line (- = stdout)\n"
    "      --device auto|cpu|cuda  where the fingerprints are computed (default auto: CUDA\n"
    "                         when a GPU is visible; the same bits either way)\n"
    "      --mem SIZE         host memory budget per rank (two panels: one read while the\n"
    "                         other is fingerprinted)\n"
    "      --panel-rows K     rows per rank per panel (default: from --mem)\n"
    "      --timeout SECONDS  abort the job (exit 2) when no rank makes progress for that long\n"
    "  -q, --quiet            no verdict line on stdout\n"
    "  -h, --help             this help\n"
    "\n"
    "exit codes: 0 equal, 1 different (a location is named), 2 error.\n";

static int g_rank;

int gp_cli_timeout(const char *arg)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0) || v > 1e9) return -1;
    return setenv("GPIPE_WATCHDOG", arg, 1) == 0 ? 0 : -1;
}

static int err_line(const char *fmt, const char *a, const char *b)
{
    if (g_rank == 0) {
        fprintf(stderr, "gpipe: error: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    return 2;
}

/* --device of reduce, stats and verify: auto, cpu or cuda (0), else a message and 2 */
static int device_arg(const char *arg, const char **device)
{
    if (strcmp(arg, "auto") && strcmp(arg, "cpu") && strcmp(arg, "cuda"))
        return err_line("--device %s: expected auto, cpu or cuda%s", arg, "");
    *device = arg;
    return 0;
}

static int finish(gp_status st, const gp_error *e)
{
    if (!st) return 0;
    if (g_rank == 0) fprintf(stderr, "gpipe: error: %s\n", e->msg[0] ? e->msg : gp_strerror(st));
    return 2;
}

static int parse_rows(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v == 0 || s[0] == '-' || !s[0]) return -1;
    *out = (size_t)v;
    return 0;
}

#define COMMON_CASES(cmd)                                                                          \
    case 'm':                                                                                      \
        if (gp_parse_size(optarg, &mem) || mem == 0)                                              \
            return err_line("--mem %s: expected a size such as 512M or 2G%s", optarg, "");        \
        break;                                                                                     \
    case 'k':                                                                                      \
        if (parse_rows(optarg, &panel_rows))                                                       \
            return err_line("--panel-rows %s: expected a positive integer%s", optarg, "");        \
        break;                                                                                     \
    case 'W':                                                                                      \
        if (gp_cli_timeout(optarg))                                                               \
            return err_line("--timeout %s: expected a number of seconds > 0%s", optarg, "");      \
        break;                                                                                     \
    case ':': return err_line(cmd ": option %s needs a value%s", argv[optind - 1], "");             \
    case '?': return err_line(cmd ": unknown option %s (see gpipe " cmd " --help)%s", argv[optind - 1], "");

int gp_cli_reduce(int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"op", required_argument, 0, 'P'}, {"axis", required_argument, 0, 'a'},
        {"dataset", required_argument, 0, 'd'}, {"output", required_argument, 0, 'o'},
        {"output-dataset", required_argument, 0, 'O'}, {"force", no_argument, 0, 'f'},
        {"json", required_argument, 0, 'j'}, {"device", required_argument, 0, 'D'},
        {"mem", required_argument, 0, 'm'}, {"panel-rows", required_argument, 0, 'k'},
        {"timeout", required_argument, 0, 'W'}, {"result-type", required_argument, 0, 'T'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    MPI_Comm_rank(comm, &g_rank);
    gp_reduce_opts o;
    memset(&o, 0, sizeof o);
    o.device = "auto";
    o.axis = GP_AXIS_ALL;
    int have_op = 0, ch;
    size_t mem = 0, panel_rows = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":a:d:o:fqh", opts, NULL)) != -1) {
        switch (ch) {
        case 'P': {
            int found = 0;
            for (int i = 0; i < GP_OP_N; i++)
                if (!strcmp(optarg, gp_rop_name((gp_rop)i))) { o.op = (gp_rop)i; found = 1; }
            if (!found)
                return err_line("--op %s: expected sum, mean, min, max, absmax, sumsq, norm2, argmin or argmax%s",
                                optarg, "");
            have_op = 1;
            break;
        }
        case 'a':
            if (!strcmp(optarg, "rows") || !strcmp(optarg, "row")) o.axis = GP_AXIS_ROWS;
            else if (!strcmp(optarg, "cols") || !strcmp(optarg, "columns") || !strcmp(optarg, "col")) o.axis = GP_AXIS_COLS;
            else if (!strcmp(optarg, "all")) o.axis = GP_AXIS_ALL;
            else return err_line("--axis %s: expected rows, cols or all%s", optarg, "");
            break;
        case 'd': o.dataset = optarg; break;
        case 'o': o.output = optarg; break;
        case 'O': o.output_dataset = optarg; break;
        case 'f': o.force = 1; break;
        case 'q': o.quiet = 1; break;
        case 'j': o.json = optarg; break;
        case 'T':
            if (gp_parse_result_type(optarg, &o.result_input))
                return err_line("--result-type %s: expected wide or input%s", optarg, "");
            break;
        case 'D':
            if (device_arg(optarg, &o.device)) return 2;
            break;
        case 'h': if (g_rank == 0) fputs(usage_reduce, stdout); return 0;
        COMMON_CASES("reduce")
        }
    }
    if (optind >= argc) return err_line("reduce: missing input file (see gpipe reduce --help)%s%s", "", "");
    if (argc - optind > 1) return err_line("reduce: unexpected argument %s%s", argv[optind + 1], "");
    if (!have_op)
        return err_line("reduce: --op is required (sum, mean, min, max, absmax, sumsq, norm2, argmin, argmax)%s%s", "",
                        "");
    if (o.output_dataset && !o.output) return err_line("reduce: --output-dataset needs -o FILE%s%s", "", "");
    o.input = argv[optind];
    o.mem = mem;
    o.panel_rows = panel_rows;
    gp_error e;
    return finish(gp_reduce(comm, &o, &e), &e);
}

int gp_cli_stats(int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"dataset", required_argument, 0, 'd'}, {"json", required_argument, 0, 'j'},
        {"mem", required_argument, 0, 'm'}, {"panel-rows", required_argument, 0, 'k'},
        {"timeout", required_argument, 0, 'W'}, {"device", required_argument, 0, 'D'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    MPI_Comm_rank(comm, &g_rank);
    gp_stats_opts o;
    memset(&o, 0, sizeof o);
    o.device = "auto";
    int ch;
    size_t mem = 0, panel_rows = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":d:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': o.dataset = optarg; break;
        case 'j': o.json = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'D':
            if (device_arg(optarg, &o.device)) return 2;
            break;
        case 'h': if (g_rank == 0) fputs(usage_stats, stdout); return 0;
        COMMON_CASES("stats")
        }
    }
    if (optind >= argc) return err_line("stats: missing input file (see gpipe stats --help)%s%s", "", "");
    if (argc - optind > 1) return err_line("stats: unexpected argument %s%s", argv[optind + 1], "");
    o.input = argv[optind];
    o.mem = mem;
    o.panel_rows = panel_rows;
    gp_error e;
    return finish(gp_stats(comm, &o, &e), &e);
}

int gp_cli_verify(int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"transposed", no_argument, 0, 't'}, {"dataset", required_argument, 0, 'd'},
        {"dataset-b", required_argument, 0, 'D'}, {"json", required_argument, 0, 'j'},
        {"mem", required_argument, 0, 'm'}, {"panel-rows", required_argument, 0, 'k'},
        {"timeout", required_argument, 0, 'W'}, {"device", required_argument, 0, 'G'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    MPI_Comm_rank(comm, &g_rank);
    gp_verify_opts o;
    memset(&o, 0, sizeof o);
    o.device = "auto";
    int ch;
    size_t mem = 0, panel_rows = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":td:D:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 't': o.transposed = 1; break;
        case 'd': o.dset_a = optarg; break;
        case 'D': o.dset_b = optarg; break;
        case 'j': o.json = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'G':
            if (device_arg(optarg, &o.device)) return 2;
            break;
        case 'h': if (g_rank == 0) fputs(usage_verify, stdout); return 0;
        COMMON_CASES("verify")
        }
    }
    if (argc - optind < 2) return err_line("verify: expected two files A.h5 B.h5 (see gpipe verify --help)%s%s", "", "");
    if (argc - optind > 2) return err_line("verify: unexpected argument %s%s", argv[optind + 2], "");
    o.a = argv[optind];
    o.b = argv[optind + 1];
    o.mem = mem;
    o.panel_rows = panel_rows;
    gp_error e;
    int differ = 0;
    char msg[1024] = "";
    gp_status st = gp_verify(comm, &o, &differ, msg, sizeof msg, &e);
    if (st) return finish(st, &e);
    if (g_rank == 0 && !o.quiet) {
        if (differ) printf("gpipe: verify: %s and %s differ: %s\n", o.a, o.b, msg);
        else printf("gpipe: verify: %s and %s are equal%s\n", o.a, o.b, o.transposed ? " (B = A transposed)" : "");
        fflush(stdout);
    }
    return differ ? 1 : 0;
}
