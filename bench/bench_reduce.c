/* bench/bench_reduce.c — CPU reduce kernels (one core, what one rank does per panel) against
 * memcpy of the same bytes in the same run: exact sum/sumsq over all, rows and cols, extrema,
 * argmin/argmax, stats, and a plain (non-reproducible) double sum loop as the "cost of exactness"
 * reference. Data: doubles scaled over 2^0..2^19 (and f32 of them: blocks span too many binades
 * for the f32 runs; their bits are the i32 cases' data), plus f32 and f64 uniform in [-1, 1) (one
 * scale: the runs' case).
 * usage: bench_reduce [MiB per array, default 256] [repeats, default 7]; prints medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pipeline/reduce.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

static volatile double sink;
/* Row sums of rows x 4096 of type t: the accumulators allocated before the clock starts (*t0). */
static void rows_sum(const void *x, size_t rows, gp_rtype t, gp_xfmt f, double *t0)
{
    int64_t *ra = calloc(rows * gp_rwords(f), 8);
    *t0 = now();
    gp_cpu_rsum(x, rows, 4096, t, GP_RK_SUM, GP_AXIS_ROWS, f, ra);
    free(ra);
}
/* Column sums of the whole array as rows of nc columns. */
static void cols_sum(const void *x, size_t bytes, size_t nc, gp_rtype t, gp_xfmt f, int64_t *acc)
{
    memset(acc, 0, nc * gp_rwords(f) * 8);
    gp_cpu_rsum(x, bytes / gp_rtype_size(t) / nc, nc, t, GP_RK_SUM, GP_AXIS_COLS, f, acc);
}
int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], 0, 10) : 256;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    size_t bytes = mib << 20;
    char *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) return 2;
    uint64_t s = 12345;
    for (size_t i = 0; i < bytes / 8; i++) {   /* random doubles in [-1, 1) scaled over 2^+-20 */
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double d = ((double)(s >> 11) * 0x1p-53 * 2 - 1) * (double)(1 << (s % 20));
        ((double *)src)[i] = d;
    }
    for (size_t i = 0; i < bytes / 4; i++) ((float *)dst)[i] = (float)((double *)src)[i % (bytes / 8)];
    float *f32 = malloc(bytes), *u32 = malloc(bytes);
    memcpy(f32, dst, bytes);
    for (size_t i = 0; i < bytes / 4; i++) {   /* f32 in [-1, 1) unscaled: runs of one scale */
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        u32[i] = (float)((double)(s >> 11) * 0x1p-53 * 2 - 1);
    }
    double *f64 = (double *)src, *u64 = malloc(bytes);   /* u64: doubles in [-1, 1), one scale */
    if (!u64) return 2;
    for (size_t i = 0; i < bytes / 8; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        u64[i] = (double)(s >> 11) * 0x1p-53 * 2 - 1;
    }
    int64_t *acc = calloc(1 << 20, 8);
    double *t = malloc(reps * sizeof *t);
    struct { const char *name; int kind; } cases[] = {
        {"memcpy", 0}, {"plain f64 sum loop (not reproducible)", 1},
        {"exact sum f64 all", 2}, {"exact sum f32 all", 3}, {"exact sumsq f64 all", 4},
        {"exact sum f32 cols (4096 cols)", 5}, {"exact sum f32 rows (4096 cols)", 6}, {"max f32 all", 7},
        {"exact sum i32 all", 8}, {"exact sum f32 all, uniform +-1", 9}, {"exact sum f32 rows, uniform +-1", 10},
        {"exact sum f32 cols, uniform +-1", 11}, {"exact sum f32 cols (7 cols), uniform +-1", 12},
        {"exact sum f64 rows (4096 cols)", 13}, {"exact sum f64 cols (4096 cols)", 14},
        {"exact sum f64 cols (7 cols)", 15}, {"exact sum f64 all, uniform +-1", 16},
        {"exact sumsq f64 all, uniform +-1", 17}, {"exact sumsq f32 all, uniform +-1", 18},
        {"max f64 all", 19}, {"min f32 cols (4096 cols)", 20}, {"absmax f32 rows (4096 cols)", 21},
        {"stats f64 (one pass: sums, extrema, checksum)", 22}, {"stats f32, uniform +-1", 23},
        {"exact sum i32 cols (4096 cols)", 24}, {"exact sumsq i16 all", 25},
        {"argmax f32 all", 26}, {"argmin f64 rows (4096 cols)", 27}, {"argmin i32 all", 28},
        {"argmax i32 cols (4096 cols)", 29}, {"argmin f32 cols (4096 cols)", 30},
        {"stats i32 (4096 cols)", 31}, {"checksum f64 (verify, 4096-col rows)", 32},
        {"checksum f32 transposed (verify)", 33}, {"exact sum f32 cols (4 cols), uniform +-1", 34},
        {"exact sum f32 cols (8 cols), uniform +-1", 35}, {"exact sum f32 cols (2 cols), uniform +-1", 36}};
    printf("%-40s %10s %8s\n", "case", "GB/s", "x memcpy");
    double base = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            gp_xfmt f;
            uint64_t key = 0;
            int64_t nan = 0;
            switch (cases[c].kind) {
            case 0: memcpy(dst, src, bytes); break;
            case 1: { double a = 0; for (size_t i = 0; i < bytes / 8; i++) a += f64[i]; sink = a; break; }
            case 2: f = GP_XFMT_F64; memset(acc, 0, 1024); gp_cpu_rsum(f64, 1, bytes / 8, GP_RT_F64, GP_RK_SUM, GP_AXIS_ALL, f, acc); break;
            case 3: f = GP_XFMT_F32; memset(acc, 0, 1024); gp_cpu_rsum(f32, 1, bytes / 4, GP_RT_F32, GP_RK_SUM, GP_AXIS_ALL, f, acc); break;
            case 4: f = GP_XFMT_F64; memset(acc, 0, 1024); gp_cpu_rsum(f64, 1, bytes / 8, GP_RT_F64, GP_RK_SQ, GP_AXIS_ALL, f, acc); break;
            case 5: cols_sum(f32, bytes, 4096, GP_RT_F32, GP_XFMT_F32, acc); break;
            case 6: rows_sum(f32, bytes / 4 / 4096, GP_RT_F32, GP_XFMT_F32, &t0); break;
            case 7: gp_cpu_rext(f32, 1, bytes / 4, GP_RT_F32, GP_RK_MAX, GP_AXIS_ALL, &key, &nan); break;
            case 9: f = GP_XFMT_F32; memset(acc, 0, 1024); gp_cpu_rsum(u32, 1, bytes / 4, GP_RT_F32, GP_RK_SUM, GP_AXIS_ALL, f, acc); break;
            case 10: rows_sum(u32, bytes / 4 / 4096, GP_RT_F32, GP_XFMT_F32, &t0); break;
            case 11: case 12: cols_sum(u32, bytes, cases[c].kind == 11 ? 4096 : 7, GP_RT_F32, GP_XFMT_F32, acc); break;
            case 34: case 35: case 36:
                cols_sum(u32, bytes, cases[c].kind == 34 ? 4 : cases[c].kind == 35 ? 8 : 2, GP_RT_F32, GP_XFMT_F32, acc);
                break;
            case 13: rows_sum(f64, bytes / 8 / 4096, GP_RT_F64, GP_XFMT_F64, &t0); break;
            case 14: case 15: cols_sum(f64, bytes, cases[c].kind == 14 ? 4096 : 7, GP_RT_F64, GP_XFMT_F64, acc); break;
            case 16: f = GP_XFMT_F64; memset(acc, 0, 1024); gp_cpu_rsum(u64, 1, bytes / 8, GP_RT_F64, GP_RK_SUM, GP_AXIS_ALL, f, acc); break;
            case 17: f = GP_XFMT_F64; memset(acc, 0, 1024); gp_cpu_rsum(u64, 1, bytes / 8, GP_RT_F64, GP_RK_SQ, GP_AXIS_ALL, f, acc); break;
            case 18: f = GP_XFMT_F32SQ; memset(acc, 0, 1024); gp_cpu_rsum(u32, 1, bytes / 4, GP_RT_F32, GP_RK_SQ, GP_AXIS_ALL, f, acc); break;
            case 19: gp_cpu_rext(f64, 1, bytes / 8, GP_RT_F64, GP_RK_MAX, GP_AXIS_ALL, &key, &nan); break;
            case 20: case 21: { const size_t rows = bytes / 4 / 4096, nt = cases[c].kind == 20 ? 4096 : rows;
                uint64_t *ks = calloc(nt, 8);
                int64_t *ns = calloc(nt, 8);
                if (cases[c].kind == 20) memset(ks, 0xff, nt * 8);
                t0 = now();
                gp_cpu_rext(f32, rows, 4096, GP_RT_F32, cases[c].kind == 20 ? GP_RK_MIN : GP_RK_ABSMAX,
                            cases[c].kind == 20 ? GP_AXIS_COLS : GP_AXIS_ROWS, ks, ns);
                sink = (double)ks[0];
                free(ks); free(ns); break; }
            case 22: case 23: { gp_rstats st;
                const int is64 = cases[c].kind == 22;
                gp_rstats_init(&st, is64 ? GP_RT_F64 : GP_RT_F32);
                gp_cpu_rstats(is64 ? (const void *)f64 : (const void *)u32, (bytes / (is64 ? 8 : 4)) / 4096, 4096, 0,
                              is64 ? GP_RT_F64 : GP_RT_F32, &st);
                sink = (double)st.checksum; break; }
            case 24: cols_sum(f32, bytes, 4096, GP_RT_I32, GP_XFMT_INT, acc); break;
            case 25: f = GP_XFMT_INTSQ; memset(acc, 0, 1024); gp_cpu_rsum(f32, 1, bytes / 2, GP_RT_I16, GP_RK_SQ, GP_AXIS_ALL, f, acc); break;
            case 26: { uint64_t k1 = gp_rext_identity(GP_RK_ARGMAX), i1 = GP_RARG_NONE;
                gp_cpu_rarg(f32, 1, bytes / 4, 0, GP_RT_F32, GP_RK_ARGMAX, GP_AXIS_ALL, &k1, &i1);
                sink = (double)i1; break; }
            case 27: { const size_t rows = bytes / 8 / 4096;
                uint64_t *ks = malloc(rows * 8), *is = malloc(rows * 8);
                for (size_t r = 0; r < rows; r++) { ks[r] = gp_rext_identity(GP_RK_ARGMIN); is[r] = GP_RARG_NONE; }
                t0 = now();
                gp_cpu_rarg(f64, rows, 4096, 0, GP_RT_F64, GP_RK_ARGMIN, GP_AXIS_ROWS, ks, is);
                sink = (double)is[0];
                free(ks); free(is); break; }
            case 28: { uint64_t k1 = gp_rext_identity(GP_RK_ARGMIN), i1 = GP_RARG_NONE;
                gp_cpu_rarg(f32, 1, bytes / 4, 0, GP_RT_I32, GP_RK_ARGMIN, GP_AXIS_ALL, &k1, &i1);
                sink = (double)i1; break; }
            case 29: case 30: { const size_t rows = bytes / 4 / 4096;
                const gp_rkind k = cases[c].kind == 29 ? GP_RK_ARGMAX : GP_RK_ARGMIN;
                uint64_t *ks = malloc(4096 * 8), *is = malloc(4096 * 8);
                for (size_t j = 0; j < 4096; j++) { ks[j] = gp_rext_identity(k); is[j] = GP_RARG_NONE; }
                t0 = now();
                gp_cpu_rarg(f32, rows, 4096, 0, cases[c].kind == 29 ? GP_RT_I32 : GP_RT_F32, k, GP_AXIS_COLS, ks, is);
                sink = (double)is[0];
                free(ks); free(is); break; }
            case 31: { gp_rstats st;
                gp_rstats_init(&st, GP_RT_I32);
                gp_cpu_rstats(f32, bytes / 4 / 4096, 4096, 0, GP_RT_I32, &st);
                sink = (double)st.checksum; break; }
            case 32: case 33: { const int tr = cases[c].kind == 33;   /* what verify's fingerprint() does per row */
                const size_t es = tr ? 4 : 8, rows = bytes / es / 4096;
                const unsigned char *b = tr ? (const unsigned char *)u32 : (const unsigned char *)f64;
                uint64_t h = 0;
                for (size_t r = 0; r < rows; r++)
                    h += tr ? gp_rhash_run(b + r * 4096 * es, 4096, es, r, rows)
                            : gp_rhash_run(b + r * 4096 * es, 4096, es, (uint64_t)r * 4096, 1);
                sink = (double)h; break; }
            case 8: f = GP_XFMT_INT; memset(acc, 0, 1024); gp_cpu_rsum(f32, 1, bytes / 4, GP_RT_I32, GP_RK_SUM, GP_AXIS_ALL, f, acc); break;
            }
            t[r] = now() - t0;
        }
        qsort(t, reps, sizeof *t, cmpd);
        double gbs = bytes / t[reps / 2] / 1e9;
        if (c == 0) base = gbs;
        printf("%-40s %10.2f %8.2f\n", cases[c].name, gbs, gbs / base);
    }
    return 0;
}
