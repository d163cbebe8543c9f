/* bench/bench_cpu_transpose.c — in-memory CPU transpose against memcpy of the same bytes.
 *
 *   bench_cpu_transpose [--rows R] [--cols C] [--reps N] [--esize LIST] [--json]
 *
 * Default: 8192 x 8192, element sizes 4,8 (the targets) and 1,2,16 (for information), 7 reps.
 * For each element size, in the same run and on the same two buffers (from the CPU backend's
 * host_alloc, first touched before timing): memcpy src -> dst, then gp_cpu_transpose src -> dst.
 * Bandwidth counts read + write bytes (2 x R x C x esize) for both; reported figure is the median
 * of the reps; ratio = transpose GB/s / memcpy GB/s (target >= 0.8 for 4 and 8 bytes).
 * A plain program: no MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/backend.h"
#include "kernels/cpu/cpu.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_cpu_transpose [--rows R] [--cols C] [--reps N] [--esize 4,8,1,2,16] [--json]\n");
}

int main(int argc, char **argv)
{
    size_t rows = 8192, cols = 8192;
    int reps = 7, json = 0;
    size_t esizes[16] = {4, 8, 1, 2, 16};
    int nes = 5;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        if (!strcmp(o, "--json")) json = 1;
        else if (!strcmp(o, "--help") || !strcmp(o, "-h")) { usage(stdout); return 0; }
        else if (a + 1 < argc && !strcmp(o, "--rows")) rows = strtoull(argv[++a], NULL, 10);
        else if (a + 1 < argc && !strcmp(o, "--cols")) cols = strtoull(argv[++a], NULL, 10);
        else if (a + 1 < argc && !strcmp(o, "--reps")) reps = atoi(argv[++a]);
        else if (a + 1 < argc && !strcmp(o, "--esize")) {
            nes = 0;
            for (char *p = argv[++a]; *p && nes < 16;) {
                char *end;
                unsigned long long v = strtoull(p, &end, 10);
                if (end == p || v == 0) { usage(stderr); return 2; }
                esizes[nes++] = (size_t)v;
                p = *end == ',' ? end + 1 : end;
            }
        } else { usage(stderr); return 2; }
    }
    if (rows == 0 || cols == 0 || reps < 1 || reps > 1000) { usage(stderr); return 2; }

    size_t maxes = 0;
    for (int k = 0; k < nes; k++) if (esizes[k] > maxes) maxes = esizes[k];
    size_t maxbytes = rows * cols * maxes;

    char err[256];
    gp_backend *be = NULL;
    if (gp_cpu_backend_create(&be, err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); return 2; }
    unsigned char *src = be->host_alloc(be, maxbytes), *dst = be->host_alloc(be, maxbytes);
    if (!src || !dst) { fprintf(stderr, "bench: cannot allocate 2 x %zu bytes\n", maxbytes); return 2; }
    for (size_t i = 0; i < maxbytes; i++) src[i] = (unsigned char)(i * 2654435761u >> 13);
    memset(dst, 0, maxbytes);

    double *tm = malloc(sizeof(double) * (size_t)reps), *tt = malloc(sizeof(double) * (size_t)reps);
    if (!tm || !tt) return 2;
    if (json) printf("{\"bench\":\"cpu_transpose\",\"backend\":\"%s\",\"rows\":%zu,\"cols\":%zu,\"reps\":%d,\"results\":[",
                     be->desc, rows, cols, reps);
    else printf("# %s, %zu x %zu, median of %d reps, GB/s = (read + write bytes) / time\n"
                "# esize  MiB    memcpy GB/s  transpose GB/s  ratio\n", be->desc, rows, cols, reps);
    for (int k = 0; k < nes; k++) {
        size_t es = esizes[k], bytes = rows * cols * es;
        /* warm-up (page faults, frequency) */
        memcpy(dst, src, bytes);
        gp_cpu_transpose(src, dst, rows, cols, es);
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            memcpy(dst, src, bytes);
            double t1 = now_s();
            gp_cpu_transpose(src, dst, rows, cols, es);
            double t2 = now_s();
            tm[r] = t1 - t0;
            tt[r] = t2 - t1;
        }
        /* sanity: a few elements land where they should */
        for (size_t p = 0; p < 64; p++) {
            size_t i = (p * 7919) % rows, j = (p * 104729) % cols;
            if (memcmp(dst + (j * rows + i) * es, src + (i * cols + j) * es, es)) {
                fprintf(stderr, "bench: wrong result at (%zu,%zu) esize %zu\n", i, j, es);
                return 1;
            }
        }
        double gm = 2.0 * (double)bytes / median(tm, reps) / 1e9;
        double gt = 2.0 * (double)bytes / median(tt, reps) / 1e9;
        if (json) printf("%s{\"esize\":%zu,\"bytes\":%zu,\"memcpy_gbs\":%.3f,\"transpose_gbs\":%.3f,\"ratio\":%.3f}",
                         k ? "," : "", es, bytes, gm, gt, gt / gm);
        else printf("%6zu  %5zu  %11.2f  %14.2f  %5.2f\n", es, bytes >> 20, gm, gt, gt / gm);
        fflush(stdout);
    }
    if (json) printf("]}\n");
    be->host_free(be, src);
    be->host_free(be, dst);
    be->destroy(be);
    free(tm);
    free(tt);
    return 0;
}
