/* bench/bench_read.c — gpipe's whole-row panel read against its ceiling, same ranks, same buffers:
 *   ceiling: each rank pread()s the file extent of its rows of the (contiguous) dataset straight
 *            into its panel buffer, panel by panel: the bytes and the copies, without HDF5/MPI-IO
 *   gpipe:   gp_h5_read_rows of the same panels (the collective H5Dread every reduction, job and
 *            alltoall transpose uses; its MPI-IO path follows GPIPE_MPIIO, default individual)
 * Each rep times both (alternating which goes first) as the slowest rank's seconds; prints the
 * medians, GB/s of the whole matrix and gpipe / ceiling. Run once more with
 * GPIPE_MPIIO=collective to see MPI-IO's two-phase read against the same ceiling.
 * usage: mpirun -n P bench_read IN.h5 [--reps N] [--panel-mib M] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/h5.h"
#include "pipeline/internal.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Slowest rank's seconds of one pass over this rank's panels, by pread (fd >= 0) or by gpipe. */
static double pass(MPI_Comm comm, gp_h5_in *in, int fd, haddr_t base, gp_range rb, size_t k, size_t npanels,
                   void *buf)
{
    size_t rowb = in->cols * in->esize;
    gp_error e = {0};
    MPI_Barrier(comm);
    double t0 = gp__now();
    for (size_t p = 0; p < npanels; p++) {
        size_t off = p * k, n = off < rb.count ? (rb.count - off < k ? rb.count - off : k) : 0;
        if (fd < 0) {
            gp_h5_read_rows(in, rb.start + (n ? off : 0), n, buf, &e);
            continue;
        }
        size_t want = n * rowb, got = 0;
        off_t at = (off_t)(base + (rb.start + off) * rowb);
        while (got < want) {
            ssize_t r = pread(fd, (char *)buf + got, want - got, at + (off_t)got);
            if (r <= 0) { fprintf(stderr, "bench_read: pread failed\n"); MPI_Abort(comm, 2); }
            got += (size_t)r;
        }
    }
    double t = gp__now() - t0, tmax = 0;
    if (e.code) { fprintf(stderr, "bench_read: %s\n", e.msg); MPI_Abort(comm, 2); }
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
}

int main(int argc, char **argv)
{
    int provided, rank, P;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    const char *path = NULL;
    int reps = 5;
    size_t panel_mib = 256;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--panel-mib") && i + 1 < argc) panel_mib = (size_t)atol(argv[++i]);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else {
            if (!rank) fprintf(stderr, "usage: mpirun -n P bench_read IN.h5 [--reps N] [--panel-mib M]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (!path || reps < 1 || reps > 1000 || !panel_mib) {
        if (!rank) fprintf(stderr, "usage: mpirun -n P bench_read IN.h5 [--reps N] [--panel-mib M]\n");
        MPI_Finalize();
        return 2;
    }
    gp_error e = {0};
    gp_h5_in in;
    if (gp_h5_open_input(comm, path, NULL, &in, &e)) { if (!rank) fprintf(stderr, "bench_read: %s\n", e.msg); MPI_Abort(comm, 2); }
    haddr_t base = H5Dget_offset(in.dset);
    if (!in.contiguous || base == HADDR_UNDEF) {
        if (!rank) fprintf(stderr, "bench_read: %s: %s is not a contiguous, allocated dataset\n", path, in.dset_path);
        MPI_Abort(comm, 2);
    }
    size_t rowb = in.cols * in.esize;
    gp_range rb = gp__split(in.rows, P, rank);
    size_t maxrows = gp__split(in.rows, P, 0).count;
    size_t k = (panel_mib << 20) / (rowb ? rowb : 1);
    if (!k) k = 1;
    if (k > maxrows && maxrows) k = maxrows;
    size_t npanels = maxrows ? (maxrows + k - 1) / k : 0;
    void *buf = malloc(k * rowb + 64);
    int fd = open(path, O_RDONLY);
    if (!buf || fd < 0) { fprintf(stderr, "bench_read: cannot allocate or open\n"); MPI_Abort(comm, 2); }
    double *tc = calloc((size_t)reps, sizeof *tc), *tg = calloc((size_t)reps, sizeof *tg);
    pass(comm, &in, fd, base, rb, k, npanels, buf);   /* warm: page cache and first touch */
    pass(comm, &in, -1, base, rb, k, npanels, buf);
    for (int r = 0; r < reps; r++) {
        if (r % 2) {
            tg[r] = pass(comm, &in, -1, base, rb, k, npanels, buf);
            tc[r] = pass(comm, &in, fd, base, rb, k, npanels, buf);
        } else {
            tc[r] = pass(comm, &in, fd, base, rb, k, npanels, buf);
            tg[r] = pass(comm, &in, -1, base, rb, k, npanels, buf);
        }
    }
    qsort(tc, (size_t)reps, sizeof *tc, cmp);
    qsort(tg, (size_t)reps, sizeof *tg, cmp);
    if (!rank) {
        double bytes = (double)in.rows * (double)rowb, mc = tc[reps / 2], mg = tg[reps / 2];
        const char *mode = getenv("GPIPE_MPIIO");
        printf("bench_read %s (%zux%zu, %zu-byte elements, %.2f GiB) on %d ranks, panels of %zu rows, median of %d\n",
               path, in.rows, in.cols, in.esize, bytes / 1073741824.0, P, k, reps);
        printf("  ceiling, pread of each rank's extent:  %.4f s  %.2f GB/s\n", mc, bytes / mc / 1e9);
        printf("  gp_h5_read_rows, GPIPE_MPIIO=%-10s %.4f s  %.2f GB/s\n", mode ? mode : "auto", mg,
               bytes / mg / 1e9);
        printf("  ratio gpipe / ceiling: %.2f\n", mc / mg);
    }
    free(tc);
    free(tg);
    free(buf);
    close(fd);
    gp_h5_close_input(&in);
    MPI_Finalize();
    return 0;
}
