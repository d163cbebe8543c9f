/* bench/bench_cpu_transpose.c — in-memory CPU transpose against memcpy of the same bytes.
 *
 *   bench_cpu_transpose [--rows R] [--cols C] [--reps N] [--esize LIST] [--threads T] [--json]
 *
 * Default: 8192 x 8192, element sizes 4,8 (the targets) and 1,2,16 (for information), 7 reps,
 * T = the CPUs this process may run on. For each element size, in the same run and on the same
 * two buffers (from the CPU backend's host_alloc, first touched before timing), each rep times:
 * memcpy src -> dst on one thread, memcpy on T threads (T pieces at once), gp_cpu_transpose on
 * one thread and on T threads. Bandwidth counts read + write bytes (2 x R x C x esize); each
 * figure is the median of the reps. The ceiling is the faster of the two memcpys (one memcpy
 * alone may already saturate the memory, or may not); ratio = transpose on T threads / ceiling
 * (target >= 0.8 for 4 and 8 bytes); "1 thr" = the single-threaded transpose / the same ceiling.
 * A plain program: no MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
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
    fprintf(f, "usage: bench_cpu_transpose [--rows R] [--cols C] [--reps N] [--esize 4,8,1,2,16] [--threads T] [--json]\n");
}

/* memcpy on nt threads, each a contiguous piece (64-byte multiples) */
typedef struct { unsigned char *d; const unsigned char *s; size_t n; } piece;
static void *copy_piece(void *a)
{
    piece *p = a;
    memcpy(p->d, p->s, p->n);
    return NULL;
}
static void memcpy_mt(unsigned char *d, const unsigned char *s, size_t n, int nt)
{
    pthread_t t[GP_CPU_MAX_THREADS];
    piece p[GP_CPU_MAX_THREADS];
    size_t per = ((n + (size_t)nt - 1) / (size_t)nt + 63) & ~(size_t)63, off = 0;
    int k = 0, started[GP_CPU_MAX_THREADS] = {0};
    for (; k < nt && off < n; k++, off += per) {
        p[k] = (piece){d + off, s + off, n - off < per ? n - off : per};
        if (k) started[k] = pthread_create(&t[k], NULL, copy_piece, &p[k]) == 0;
    }
    for (int i = 1; i < k; i++)
        if (!started[i]) copy_piece(&p[i]);
    copy_piece(&p[0]);
    for (int i = 1; i < k; i++)
        if (started[i]) pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    size_t rows = 8192, cols = 8192;
    int reps = 7, json = 0, nthr = gp_cpu_threads_auto();
    size_t esizes[16] = {4, 8, 1, 2, 16};
    int nes = 5;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        if (!strcmp(o, "--json")) json = 1;
        else if (!strcmp(o, "--help") || !strcmp(o, "-h")) { usage(stdout); return 0; }
        else if (a + 1 < argc && !strcmp(o, "--rows")) rows = strtoull(argv[++a], NULL, 10);
        else if (a + 1 < argc && !strcmp(o, "--cols")) cols = strtoull(argv[++a], NULL, 10);
        else if (a + 1 < argc && !strcmp(o, "--reps")) reps = atoi(argv[++a]);
        else if (a + 1 < argc && !strcmp(o, "--threads")) nthr = atoi(argv[++a]);
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
    if (rows == 0 || cols == 0 || reps < 1 || reps > 1000 || nthr < 1 || nthr > GP_CPU_MAX_THREADS) {
        usage(stderr);
        return 2;
    }

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

    double *tm = malloc(sizeof(double) * (size_t)reps * 4);
    if (!tm) return 2;
    double *tmt = tm + reps, *tt1 = tm + 2 * reps, *tt = tm + 3 * reps;
    if (json) printf("{\"bench\":\"cpu_transpose\",\"backend\":\"%s\",\"threads\":%d,\"rows\":%zu,\"cols\":%zu,\"reps\":%d,\"results\":[",
                     be->desc, nthr, rows, cols, reps);
    else printf("# %s, %d thread%s, %zu x %zu, median of %d reps, GB/s = (read + write bytes) / time\n"
                "# ceiling = the faster memcpy; ratio = transpose on %d thread%s / ceiling\n"
                "# esize  MiB  memcpy 1 thr  memcpy %2d thr  transpose 1 thr  transpose %2d thr  1 thr  ratio\n",
                be->desc, nthr, nthr > 1 ? "s" : "", rows, cols, reps, nthr, nthr > 1 ? "s" : "", nthr, nthr);
    for (int k = 0; k < nes; k++) {
        size_t es = esizes[k], bytes = rows * cols * es;
        /* warm-up (page faults, frequency) */
        memcpy(dst, src, bytes);
        gp_cpu_set_threads(nthr);
        gp_cpu_transpose(src, dst, rows, cols, es);   /* also starts the helper threads */
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            memcpy(dst, src, bytes);
            double t1 = now_s();
            memcpy_mt(dst, src, bytes, nthr);
            double t2 = now_s();
            gp_cpu_set_threads(1);
            gp_cpu_transpose(src, dst, rows, cols, es);
            double t3 = now_s();
            gp_cpu_set_threads(nthr);
            gp_cpu_transpose(src, dst, rows, cols, es);
            double t4 = now_s();
            tm[r] = t1 - t0;
            tmt[r] = t2 - t1;
            tt1[r] = t3 - t2;
            tt[r] = t4 - t3;
        }
        /* sanity: a few elements land where they should */
        for (size_t p = 0; p < 64; p++) {
            size_t i = (p * 7919) % rows, j = (p * 104729) % cols;
            if (memcmp(dst + (j * rows + i) * es, src + (i * cols + j) * es, es)) {
                fprintf(stderr, "bench: wrong result at (%zu,%zu) esize %zu\n", i, j, es);
                return 1;
            }
        }
        const double b2 = 2.0 * (double)bytes / 1e9;
        double g1 = b2 / median(tm, reps), gmt = b2 / median(tmt, reps);
        double gt1 = b2 / median(tt1, reps), gt = b2 / median(tt, reps);
        double gm = g1 > gmt ? g1 : gmt;
        if (json)
            printf("%s{\"esize\":%zu,\"bytes\":%zu,\"memcpy1_gbs\":%.3f,\"memcpy_threads_gbs\":%.3f,\"memcpy_gbs\":%.3f,"
                   "\"transpose1_gbs\":%.3f,\"transpose_gbs\":%.3f,\"ratio1\":%.3f,\"ratio\":%.3f}",
                   k ? "," : "", es, bytes, g1, gmt, gm, gt1, gt, gt1 / gm, gt / gm);
        else printf("%6zu  %5zu  %12.2f  %13.2f  %15.2f  %16.2f  %5.2f  %5.2f\n", es, bytes >> 20, g1, gmt, gt1, gt,
                    gt1 / gm, gt / gm);
        fflush(stdout);
    }
    if (json) printf("]}\n");
    be->host_free(be, src);
    be->host_free(be, dst);
    be->destroy(be);
    free(tm);
    return 0;
}
