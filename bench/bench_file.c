/* bench/bench_file.c — file->file transpose against its I/O floor, same ranks, same bytes:
 *   floor:     each rank reads its row panels and writes them unchanged to a new file (R x C)
 *   transpose: gp_transpose() of the same file (read, transpose, exchange, write)
 * Prints both times, GB/s (bytes of the matrix / time) and the ratio floor/transpose.
 * usage: mpirun -n P bench_file IN.h5 [--reps N] [--mem SIZE] [--device cpu|cuda] [--json] [--stages FILE]
 *        [--panel-rows K] [--chunk RxC]   (the transpose's options; the floor keeps its own plan)
 *        [--only floor|transpose]          (time one side only: for profiling each under perf or time)
 *        [--strategy auto|alltoall|direct] (the transpose's exchange strategy)
 * --stages FILE appends, per rep, the floor's stage maxima over ranks (setup, read, write, finish:
 * close + fsync + rename) and the transpose's --json line (with its write bands: band_panels,
 * bands, buffer_bytes). The load average before and after is printed: on a shared machine the
 * times mean little without it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/h5.h"
#include "pipeline/internal.h"

/* The 1-minute load average ("?" where /proc/loadavg cannot be read). */
static void loadavg(char *buf, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = -1;
    if (f) {
        if (fscanf(f, "%lf", &a) != 1) a = -1;
        fclose(f);
    }
    if (a < 0) snprintf(buf, n, "?");
    else snprintf(buf, n, "%.2f", a);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seconds of the floor's stages in its last run (this rank): setup, read, write, finish. */
static double g_floor_st[4];

/* The I/O floor: the transpose's own read and write pattern without the transpose. */
static double copy_once(MPI_Comm comm, const char *in_path, const char *out_path, size_t mem)
{
    gp_error e = {0};
    gp_h5_in in;
    gp_h5_out out;
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    MPI_Barrier(comm);
    double t0 = gp__now();
    if (gp_h5_open_input(comm, in_path, NULL, &in, &e)) { if (!rank) fprintf(stderr, "%s\n", e.msg); MPI_Abort(comm, 2); }
    gp_plan plan;
    gp__plan_make(&plan, GP_STRATEGY_ALLTOALL, in.rows, in.cols, in.esize, P, rank, mem, 0, &e);
    void *buf = malloc(plan.panel_rows * in.cols * in.esize + 1);
    gp_h5_check_output(comm, NULL, out_path, 1, &e);
    gp_h5_create_output(comm, out_path, in.dset_path, in.type, in.rows, in.cols, 0, 0, &out, &e);
    double ts = gp__now();
    g_floor_st[0] = ts - t0;
    g_floor_st[1] = g_floor_st[2] = 0;
    for (size_t s = 0; s < plan.npanels; s++) {
        gp_range r = gp__plan_panel(&plan, rank, s);
        size_t c0 = 0, nc = in.cols;
        gp_h5_read_rows(&in, r.start, r.count, buf, &e);
        double t1 = gp__now();
        gp_h5_write_blocks(&out, in.type, r.start, r.count, 1, &c0, &nc, buf, &e);
        double t2 = gp__now();
        g_floor_st[1] += t1 - ts;
        g_floor_st[2] += t2 - t1;
        ts = t2;
    }
    gp_h5_finish_output(comm, &out, &e);
    g_floor_st[3] = gp__now() - ts;
    gp_h5_close_input(&in);
    MPI_Barrier(comm);
    double t = gp__now() - t0;
    if (e.code) { if (!rank) fprintf(stderr, "bench_file: %s\n", e.msg); MPI_Abort(comm, 2); }
    free(buf);
    gp__plan_free(&plan);
    return t;
}

/* Transpose options for experiments (the floor keeps its own plan): --panel-rows, --chunk. */
static size_t g_panel_rows, g_chunk_r, g_chunk_c;
static gp_strategy g_strategy = GP_STRATEGY_AUTO;

static double transpose_once(MPI_Comm comm, const char *in_path, const char *out_path, size_t mem,
                             const char *device, const char *json)
{
    gp_transpose_opts o = {0};
    o.input = in_path; o.output = out_path; o.force = 1; o.quiet = 1; o.mem = mem; o.device = device;
    o.json = json;
    o.panel_rows = g_panel_rows;
    o.strategy = g_strategy;
    o.chunk_rows = g_chunk_r;
    o.chunk_cols = g_chunk_c;
    gp_error e;
    MPI_Barrier(comm);
    double t0 = gp__now();
    if (gp_transpose(comm, &o, &e)) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (!rank) fprintf(stderr, "bench_file: %s\n", e.msg);
        MPI_Abort(comm, 2);
    }
    MPI_Barrier(comm);
    return gp__now() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P, reps = 5, json = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t mem = 0;
    const char *in = NULL, *device = "cpu", *stages = NULL, *only = NULL;
    const char *usage = "usage: mpirun -n P bench_file IN.h5 [--reps N] [--mem SIZE] [--device cpu|cuda] [--json]\n"
                        "       [--stages FILE] [--panel-rows K] [--chunk RxC] [--only floor|transpose]\n"
                        "       [--strategy auto|alltoall|direct]\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mem") && i + 1 < argc) gp_parse_size(argv[++i], &mem);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--stages") && i + 1 < argc) stages = argv[++i];
        else if (!strcmp(argv[i], "--panel-rows") && i + 1 < argc) g_panel_rows = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) gp_parse_shape(argv[++i], &g_chunk_r, &g_chunk_c);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--strategy") && i + 1 < argc && !gp_parse_strategy(argv[i + 1], &g_strategy)) i++;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (!rank) fputs(usage, stdout);
            MPI_Finalize();
            return 0;
        } else if (argv[i][0] == '-') {
            if (!rank) fprintf(stderr, "bench_file: unknown or incomplete option %s\n%s", argv[i], usage);
            MPI_Finalize();
            return 2;
        } else in = argv[i];
    }
    int do_floor = !only || !strcmp(only, "floor"), do_tr = !only || !strcmp(only, "transpose");
    if (!in || reps < 1 || (!do_floor && !do_tr)) {
        if (!rank) fputs(usage, stderr);
        MPI_Finalize();
        return 2;
    }
    char dir[4096], a[4200], b[4200];
    gp__path_dir(in, dir, sizeof dir);
    snprintf(a, sizeof a, "%s/bench_floor.h5", dir);
    snprintf(b, sizeof b, "%s/bench_transpose.h5", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    double *tc = calloc((size_t)reps, sizeof *tc), *tt = calloc((size_t)reps, sizeof *tt);
    char load0[32], load1[32];
    loadavg(load0, sizeof load0);
    copy_once(MPI_COMM_WORLD, in, a, mem);            /* warm the page cache */
    for (int r = 0; r < reps; r++) {                  /* interleaved: drift hits both alike */
        if (!do_floor) {
            tt[r] = transpose_once(MPI_COMM_WORLD, in, b, mem, device, stages);
            continue;
        }
        tc[r] = copy_once(MPI_COMM_WORLD, in, a, mem);
        double fmax[4];
        MPI_Reduce(g_floor_st, fmax, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (stages && !rank) {   /* the floor's stage maxima, then the transpose's own JSON line */
            FILE *f = fopen(stages, "a");
            if (f) {
                fprintf(f, "{\"op\":\"floor\",\"seconds\":%.4f,\"stage_seconds_max\":{\"setup\":%.4f,\"read\":%.4f,"
                        "\"write\":%.4f,\"finish\":%.4f}}\n", tc[r], fmax[0], fmax[1], fmax[2], fmax[3]);
                fclose(f);
            }
        }
        if (do_tr) tt[r] = transpose_once(MPI_COMM_WORLD, in, b, mem, device, stages);
    }
    loadavg(load1, sizeof load1);
    qsort(tc, (size_t)reps, sizeof *tc, cmp);
    qsort(tt, (size_t)reps, sizeof *tt, cmp);
    if (!rank) {
        double bytes = 0;
        FILE *fp = fopen(in, "rb");
        if (fp) { fseek(fp, 0, SEEK_END); bytes = (double)ftell(fp); fclose(fp); }
        double mc = tc[reps / 2], mt = tt[reps / 2];
        if (!do_tr) mt = mc;   /* one side only: the ratio is 1 and says nothing */
        if (!do_floor) mc = mt;
        if (json)
            printf("{\"bench\":\"file\",\"ranks\":%d,\"bytes\":%.0f,\"floor_s\":%.4f,\"transpose_s\":%.4f,"
                   "\"floor_gbps\":%.3f,\"transpose_gbps\":%.3f,\"ratio\":%.3f,\"loadavg\":[\"%s\",\"%s\"]}\n",
                   P, bytes, mc, mt, bytes / mc / 1e9, bytes / mt / 1e9, mc / mt, load0, load1);
        else
            printf("file->file on %d ranks, %.1f MB file, median of %d:\n"
                   "  floor (read + write, same pattern) %8.4f s  %6.2f GB/s\n"
                   "  gpipe transpose (%s)              %8.4f s  %6.2f GB/s\n"
                   "  ratio floor/transpose             %8.3f   (target >= 0.9)\n"
                   "  load average (1 min) before %s, after %s\n",
                   P, bytes / 1e6, reps, mc, bytes / mc / 1e9, device, mt, bytes / mt / 1e9, mc / mt, load0, load1);
        unlink(a);
        unlink(b);
    }
    free(tc);
    free(tt);
    MPI_Finalize();
    return 0;
}
