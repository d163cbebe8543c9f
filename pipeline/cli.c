/* pipeline/cli.c — the command-line client: subcommands, options (getopt_long), help texts.
 * Everything it does goes through the library (gpipe.h); it only maps errors to exit codes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/backend.h"
#include "pipeline/cli.h"
#include "pipeline/gpipe.h"

static const char *usage_main =
    "usage: gpipe COMMAND [options]\n"
    "\n"
    "MPI-distributed matrix pipeline over parallel HDF5 (CPU and CUDA backends).\n"
    "Run it under MPI, e.g.  mpirun -n 8 gpipe transpose in.h5\n"
    "\n"
    "commands:\n"
    "  transpose IN   transpose a 2-D dataset into a new file (IN.T.h5 by default)\n"
    "  gen OUT        write a random 2-D dataset (for tests and benchmarks)\n"
    "  info FILE      list the datasets of a file: shape, type, layout, chunks, filters, size\n"
    "  reduce IN      sum/mean/min/max/absmax/sumsq/norm2 over rows, columns or all,\n"
    "                 bit-reproducible for any rank count, panel size and backend\n"
    "  stats IN       count, min, max, mean, std, NaN/Inf counts, checksum (one pass)\n"
    "  verify A B     compare two datasets (--transposed: B == A^T) without gathering them\n"
    "  run JOB.ini    run a job file: a chain of stages over many datasets in one launch\n"
    "  bench kernels  GPU transpose kernel benchmark (CUDA builds with a GPU)\n"
    "\n"
    "options:\n"
    "  -h, --help     this help (and `gpipe COMMAND --help`)\n"
    "  -V, --version  print the version\n"
    "\n"
    "exit codes: 0 success, 1 differences found (verify), 2 error (one line on stderr from\n"
    "rank 0, no output file left).\n";

static const char *usage_transpose =
    "usage: gpipe transpose IN [options]\n"
    "\n"
    "Transpose the 2-D dataset of IN (R x C) into OUT (C x R), with the exact same HDF5 datatype.\n"
    "Rows are split over the MPI ranks; each rank reads its rows, transposes them on its GPU or\n"
    "CPU, exchanges blocks with the other ranks and writes its rows of the result. The output is\n"
    "written under a temporary name and renamed only when every rank succeeded.\n"
    "\n"
    "options:\n"
    "  -d, --dataset PATH         input dataset (default: the only 2-D dataset in IN)\n"
    "  -o, --output FILE          output file (default: <dir of IN>/<stem>.T.h5)\n"
    "      --output-dataset PATH  dataset path in the output (default: the input's path)\n"
    "  -f, --force                overwrite an existing output file\n"
    "      --device auto|cpu|cuda backend (default auto: CUDA when a GPU is visible)\n"
    "      --mem SIZE             host memory budget per rank for the panel and write-band\n"
    "                             buffers, e.g. 512M, 2G (default: half the node's available\n"
    "                             memory shared by its ranks); alltoall writes a rank's share of\n"
    "                             the output as one block when it fits, else in bands of as many\n"
    "                             panels as fit; direct writes each panel as it is done\n"
    "      --gpu-mem SIZE         GPU memory budget per rank (default: what the GPU has free);\n"
    "                             the CUDA backend streams each panel through it in slabs\n"
    "      --panel-rows K         rows per rank per panel (default: from --mem)\n"
    "      --threads N            CPU backend: threads per rank for the transpose (default: the\n"
    "                             CPUs the rank may run on, shared with the node's ranks whose\n"
    "                             CPUs overlap them; also GPIPE_THREADS)\n"
    "      --strategy auto|alltoall|direct  alltoall: ranks read row panels, transpose them and\n"
    "                             exchange blocks; direct: each rank reads the column slab it owns\n"
    "                             and MPI-IO's collective buffering does the exchange; auto\n"
    "                             (default): direct when 1 or 2 ranks are on one node, each rank's\n"
    "                             slab has rows of >= 8 KiB and the input is not compressed, else\n"
    "                             alltoall (always with --exchange nccl); --json names the one taken\n"
    "      --exchange auto|mpi|nccl  how panels move between ranks: mpi (host buffers) or nccl\n"
    "                             (GPU to GPU over NVLink/PCIe, no host staging; needs --device\n"
    "                             cuda, one rank per GPU and libnccl.so.2, or GPIPE_NCCL_LIBRARY);\n"
    "                             auto (default): nccl when every rank has its own GPU and NCCL\n"
    "                             loads, else mpi\n"
    "      --chunk RxC            chunked output with this chunk shape (default: contiguous when\n"
    "                             one write band holds the whole output of a rank, else chunks of\n"
    "                             one rank's rows x the columns of one band; direct: of one panel)\n"
    "      --progress, --no-progress  progress lines on stderr every few seconds (default on;\n"
    "                             one updating line on a terminal, plain lines in batch logs)\n"
    "      --json FILE            append a JSON-lines summary with per-stage times (- = stdout)\n"
    "      --resume               finish an interrupted run (killed, timed out, signalled) from its\n"
    "                             partial output .OUT.gpipe-tmp; any rank count; the input must be\n"
    "                             unchanged (size, mtime, shape, type, sampled rows are checked)\n"
    "      --timeout SECONDS      abort the job (exit 2) when no rank makes progress for that long\n"
    "                             (a rank stuck in HDF5 or MPI-IO; also GPIPE_WATCHDOG=SECONDS)\n"
    "  -q, --quiet                no summary or progress on stderr\n"
    "  -h, --help                 this help\n"
    "\n"
    "example:\n"
    "  mpirun -n 8 gpipe transpose in.h5 -d /grp/A -o out.h5 --output-dataset /At --force\n";

static const char *usage_gen =
    "usage: gpipe gen OUT --shape RxC --dtype TYPE [options]\n"
    "\n"
    "Write a random R x C dataset. Values depend only on the seed and the element's position,\n"
    "so the file is the same for any number of ranks. Floats are uniform in [-1, 1).\n"
    "\n"
    "options:\n"
    "  -s, --shape RxC        rows x columns, both >= 1 (required)\n"
    "  -t, --dtype TYPE       i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128, optionally\n"
    "                         followed by be or le (byte order, default le), e.g. f64be (required)\n"
    "  -c, --chunk RxC        chunked layout with this chunk shape (default: contiguous)\n"
    "      --seed N           random seed (default 1)\n"
    "  -d, --dataset PATH     dataset path (default /data)\n"
    "  -f, --force            overwrite an existing file\n"
    "  -q, --quiet            no summary line\n"
    "  -h, --help             this help\n"
    "\n"
    "example:\n"
    "  mpirun -n 4 gpipe gen m.h5 --shape 1000x777 --dtype f64 --chunk 128x128 --seed 7\n";

static const char *usage_info =
    "usage: gpipe info FILE [--json]\n"
    "\n"
    "List every dataset of FILE: path, shape, type (with byte order), layout, chunk shape,\n"
    "filters, logical and stored size. --json prints one JSON object per dataset instead.\n";

typedef struct { int rank; } cli_ctx;

/* reduce, stats, verify (cli_reduce.c) */
int gp_cli_reduce(int argc, char **argv, MPI_Comm comm);
int gp_cli_stats(int argc, char **argv, MPI_Comm comm);
int gp_cli_verify(int argc, char **argv, MPI_Comm comm);
/* run (cli_job.c) */
int gp_cli_run(int argc, char **argv, MPI_Comm comm);

/* Prints from rank 0 only. */
static int say_error(cli_ctx *c, const char *fmt, const char *a, const char *b)
{
    if (c->rank == 0) {
        fprintf(stderr, "gpipe: error: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    return 2;
}

static int finish(cli_ctx *c, gp_status st, const gp_error *e)
{
    if (!st) return 0;
    if (c->rank == 0) fprintf(stderr, "gpipe: error: %s\n", e->msg[0] ? e->msg : gp_strerror(st));
    return 2;
}

static int bad_option(cli_ctx *c, const char *cmd, int optopt_, const char *arg)
{
    (void)optopt_;
    char m[512];
    snprintf(m, sizeof m, "%s (see gpipe %s --help)", arg, cmd);   /* say_error takes two strings */
    return say_error(c, "%s: %s", cmd, m);
}

/* getopt_long with its own messages off; unknown options and missing arguments become one
 * error line. Returns 0 to continue, or an exit code. */
#define GETOPT_ERROR(cmd)                                                                      \
    case '?': {                                                                                \
        char m[256];                                                                           \
        snprintf(m, sizeof m, "unknown option or missing value: %s", argv[optind - 1]);        \
        return bad_option(&c, cmd, optopt, m);                                                 \
    }

static int cmd_transpose(cli_ctx c, int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"dataset", required_argument, 0, 'd'}, {"output", required_argument, 0, 'o'},
        {"output-dataset", required_argument, 0, 'O'}, {"force", no_argument, 0, 'f'},
        {"device", required_argument, 0, 'D'}, {"mem", required_argument, 0, 'm'},
        {"gpu-mem", required_argument, 0, 'G'},
        {"panel-rows", required_argument, 0, 'k'}, {"json", required_argument, 0, 'j'},
        {"strategy", required_argument, 0, 'S'}, {"chunk", required_argument, 0, 'c'},
        {"progress", no_argument, 0, 'P'}, {"no-progress", no_argument, 0, 'N'},
        {"resume", no_argument, 0, 'R'}, {"exchange", required_argument, 0, 'X'},
        {"timeout", required_argument, 0, 'W'}, {"threads", required_argument, 0, 'T'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    gp_transpose_opts o = {0};
    o.device = "auto";
    o.progress = 1;
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":d:o:fqhc:", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': o.dataset = optarg; break;
        case 'o': o.output = optarg; break;
        case 'O': o.output_dataset = optarg; break;
        case 'f': o.force = 1; break;
        case 'q': o.quiet = 1; o.progress = 0; break;
        case 'P': o.progress = 1; break;
        case 'R': o.resume = 1; break;
        case 'W':
            if (gp_cli_timeout(optarg)) return say_error(&c, "--timeout %s: expected a number of seconds > 0%s", optarg, "");
            break;
        case 'N': o.progress = 0; break;
        case 'j': o.json = optarg; break;
        case 'S':
            if (gp_parse_strategy(optarg, &o.strategy))
                return say_error(&c, "--strategy %s: expected auto, alltoall or direct%s", optarg, "");
            break;
        case 'c':
            if (gp_parse_shape(optarg, &o.chunk_rows, &o.chunk_cols))
                return say_error(&c, "--chunk %s: expected RxC with R, C >= 1, e.g. 256x256%s", optarg, "");
            break;
        case 'X':
            if (strcmp(optarg, "auto") && strcmp(optarg, "mpi") && strcmp(optarg, "nccl"))
                return say_error(&c, "--exchange %s: expected auto, mpi or nccl%s", optarg, "");
            o.exchange = optarg;
            break;
        case 'D':
            if (strcmp(optarg, "auto") && strcmp(optarg, "cpu") && strcmp(optarg, "cuda"))
                return say_error(&c, "--device %s: expected auto, cpu or cuda%s", optarg, "");
            o.device = optarg;
            break;
        case 'm':
            if (gp_parse_size(optarg, &o.mem) || o.mem == 0)
                return say_error(&c, "--mem %s: expected a size such as 512M or 2G%s", optarg, "");
            break;
        case 'G':
            if (gp_parse_size(optarg, &o.gpu_mem) || o.gpu_mem == 0)
                return say_error(&c, "--gpu-mem %s: expected a size such as 512M or 8G%s", optarg, "");
            break;
        case 'k': {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || v == 0 || optarg[0] == '-')
                return say_error(&c, "--panel-rows %s: expected a positive integer%s", optarg, "");
            o.panel_rows = (size_t)v;
            break;
        }
        case 'T':
            if (gp_parse_threads(optarg, &o.threads))
                return say_error(&c, "--threads %s: expected a number of threads from 1 to 64%s", optarg, "");
            break;
        case 'h': if (c.rank == 0) fputs(usage_transpose, stdout); return 0;
        case ':': return say_error(&c, "transpose: option %s needs a value%s", argv[optind - 1], "");
        GETOPT_ERROR("transpose")
        }
    }
    if (optind >= argc) return say_error(&c, "transpose: missing input file (see gpipe transpose --help)%s%s", "", "");
    if (argc - optind > 1) return say_error(&c, "transpose: unexpected argument %s%s", argv[optind + 1], "");
    o.input = argv[optind];
    gp_error e;
    return finish(&c, gp_transpose(comm, &o, &e), &e);
}

static int cmd_gen(cli_ctx c, int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {
        {"shape", required_argument, 0, 's'}, {"dtype", required_argument, 0, 't'},
        {"chunk", required_argument, 0, 'c'}, {"seed", required_argument, 0, 'S'},
        {"dataset", required_argument, 0, 'd'}, {"force", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    gp_gen_opts o = {0};
    o.seed = 1;
    o.dataset = "/data";
    int ch, have_shape = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":s:t:c:d:fqh", opts, NULL)) != -1) {
        switch (ch) {
        case 's':
            if (gp_parse_shape(optarg, &o.rows, &o.cols))
                return say_error(&c, "--shape %s: expected RxC with R, C >= 1, e.g. 1000x777%s", optarg, "");
            have_shape = 1;
            break;
        case 't': o.dtype = optarg; break;
        case 'c':
            if (gp_parse_shape(optarg, &o.chunk_rows, &o.chunk_cols))
                return say_error(&c, "--chunk %s: expected RxC with R, C >= 1, e.g. 128x128%s", optarg, "");
            break;
        case 'S': {
            char *end;
            o.seed = strtoull(optarg, &end, 10);
            if (*end || !optarg[0] || optarg[0] == '-')
                return say_error(&c, "--seed %s: expected a non-negative integer%s", optarg, "");
            break;
        }
        case 'd': o.dataset = optarg; break;
        case 'f': o.force = 1; break;
        case 'q': o.quiet = 1; break;
        case 'h': if (c.rank == 0) fputs(usage_gen, stdout); return 0;
        case ':': return say_error(&c, "gen: option %s needs a value%s", argv[optind - 1], "");
        GETOPT_ERROR("gen")
        }
    }
    if (optind >= argc) return say_error(&c, "gen: missing output file (see gpipe gen --help)%s%s", "", "");
    if (argc - optind > 1) return say_error(&c, "gen: unexpected argument %s%s", argv[optind + 1], "");
    if (!have_shape) return say_error(&c, "gen: --shape RxC is required%s%s", "", "");
    if (!o.dtype) return say_error(&c, "gen: --dtype is required%s%s", "", "");
    o.output = argv[optind];
    gp_error e;
    return finish(&c, gp_gen(comm, &o, &e), &e);
}

static int cmd_info(cli_ctx c, int argc, char **argv, MPI_Comm comm)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch, json = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = 1; break;
        case 'h': if (c.rank == 0) fputs(usage_info, stdout); return 0;
        GETOPT_ERROR("info")
        }
    }
    if (optind >= argc) return say_error(&c, "info: missing file (see gpipe info --help)%s%s", "", "");
    gp_error e;
    return finish(&c, gp_info(comm, argv[optind], json, stdout, &e), &e);
}

int gp_cli_main(int argc, char **argv, MPI_Comm comm)
{
    cli_ctx c;
    MPI_Comm_rank(comm, &c.rank);
    if (argc < 2) {
        if (c.rank == 0) fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (c.rank == 0) fputs(usage_main, stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        if (c.rank == 0) printf("gpipe %s\n", GP_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "transpose")) return cmd_transpose(c, argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "gen")) return cmd_gen(c, argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "info")) return cmd_info(c, argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "reduce")) return gp_cli_reduce(argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "stats")) return gp_cli_stats(argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "verify")) return gp_cli_verify(argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "run")) return gp_cli_run(argc - 1, argv + 1, comm);
    if (!strcmp(cmd, "bench")) {
        if (argc < 3 || strcmp(argv[2], "kernels"))
            return say_error(&c, "bench: expected `gpipe bench kernels`%s%s", "", "");
        return gp_cuda_bench_kernels(argc - 2, argv + 2);
    }
    return say_error(&c, "unknown command %s (see gpipe --help)%s", cmd, "");
}
