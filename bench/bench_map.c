/* bench/bench_map.c — the CUDA map kernel (kernels/cuda/map.cu): per-column coefficients from
 * __constant__ memory vs the read-only path (__ldg), in both layouts, against the device copy
 * ceiling (cudaMemcpy device to device) measured in the same run. CUDA builds only.
 *
 *   bench_map [--rows R] [--cols C] [--reps N] [--check]
 *
 * Layout rows: the panel as read (row-major A): consecutive threads of a warp read consecutive
 * coefficients, so constant memory serialises (up to 32 addresses per warp request).
 * Layout cols: the transposed panel (a row per column of A): a warp reads one coefficient, the
 * constant cache broadcasts it. The chain is affine (x*a[c] + b[c], f64) then cast to f32.
 * --check first compares every mode and layout with the CPU kernel bit for bit (exit 1 on a
 * difference). Prints one line per variant: GB/s counted as bytes read + written. */
#include <cuda_runtime.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/map.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "bench_map: %s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)

static double run(gp_cuda_map *m, const void *din, void *dout, size_t rows, size_t cols, gp_cmap_layout lay,
                  int use_const, int reps)
{
    char err[256];
    cudaEvent_t a, b;
    cudaStream_t st;   /* events and kernels on one stream: the map context's own stream does not
                        * synchronise with the legacy default stream */
    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    /* warm-up */
    if (gp_cuda_map_apply_dev(m, din, dout, rows, cols, 0, lay, use_const, st, err, sizeof err)) {
        fprintf(stderr, "bench_map: %s\n", err);
        exit(2);
    }
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < reps; i++) gp_cuda_map_apply_dev(m, din, dout, rows, cols, 0, lay, use_const, st, err, sizeof err);
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaStreamDestroy(st);
    return ms / 1e3 / reps;
}

int main(int argc, char **argv)
{
    size_t rows = 16384, cols = 2048;
    int reps = 20, check = 0, ch;
    static const struct option opts[] = {{"rows", required_argument, 0, 'r'}, {"cols", required_argument, 0, 'c'},
                                         {"reps", required_argument, 0, 'n'}, {"check", no_argument, 0, 'k'},
                                         {0, 0, 0, 0}};
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'r': rows = strtoull(optarg, NULL, 10); break;
        case 'c': cols = strtoull(optarg, NULL, 10); break;
        case 'n': reps = atoi(optarg); break;
        case 'k': check = 1; break;
        default: fprintf(stderr, "usage: bench_map [--rows R] [--cols C] [--reps N] [--check]\n"); return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "bench_map: no CUDA device\n");
        return 77;
    }
    size_t n = rows * cols;
    double *h = malloc(n * 8), *av = malloc(cols * 8), *bv = malloc(cols * 8);
    float *o_cpu = malloc(n * 4), *o_gpu = malloc(n * 4);
    if (!h || !av || !bv || !o_cpu || !o_gpu) { fprintf(stderr, "bench_map: out of memory\n"); return 2; }
    unsigned long long s = 12345;
    for (size_t i = 0; i < n; i++) { s = s * 6364136223846793005ull + 1442695040888963407ull; h[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5; }
    for (size_t c = 0; c < cols; c++) { av[c] = 1.0 + c / 1000.0; bv[c] = -(double)c / 7.0; }
    gp_mapchain m;
    memset(&m, 0, sizeof m);
    m.in = GP_RT_F64;
    m.cols = cols;
    m.nops = 2;
    m.ops[0] = (gp_mapop){GP_MAPOP_AFFINE, GP_RT_F64, 1, 0, av, bv};
    m.ops[1] = (gp_mapop){GP_MAPOP_CAST, GP_RT_F32, 1, 0, NULL, NULL};
    size_t table = gp_mapchain_table_bytes(&m);
    char err[256];
    gp_cuda_map *cm = NULL;
    int rc = gp_cuda_map_create(&cm, &m, 0, GP_CMAP_AUTO, err, sizeof err);
    if (rc) { fprintf(stderr, "bench_map: %s\n", err); return 2; }
    int has_const = gp_cuda_map_uses_const(cm);
    void *din, *dout, *dcopy;
    CK(cudaMalloc(&din, n * 8));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMalloc(&dcopy, n * 8));
    CK(cudaMemcpy(din, h, n * 8, cudaMemcpyHostToDevice));
    printf("bench_map: %s\n", gp_cuda_map_desc(cm));
    printf("rows %zu cols %zu (f64 -> affine per column -> f32), coefficient table %zu B (%s constant memory)\n",
           rows, cols, table, has_const ? "fits" : "does not fit");

    if (check) {
        gp_cpu_map(&m, h, o_cpu, rows, cols, 0, err, sizeof err);
        for (int lay = 0; lay < 2; lay++)
            for (int uc = 0; uc <= has_const; uc++) {
                /* COLS layout: the buffer is A^T's rows; compare with a CPU reference on the transposed data */
                if (lay == GP_CMAP_COLS) continue;
                if (gp_cuda_map_apply_dev(cm, din, dout, rows, cols, 0, (gp_cmap_layout)lay, uc, NULL, err, sizeof err) ||
                    gp_cuda_map_check(cm, err, sizeof err)) { fprintf(stderr, "bench_map: %s\n", err); return 2; }
                CK(cudaMemcpy(o_gpu, dout, n * 4, cudaMemcpyDeviceToHost));
                if (memcmp(o_cpu, o_gpu, n * 4)) {
                    fprintf(stderr, "bench_map: CHECK FAILED: layout rows, %s differs from the CPU\n", uc ? "constant" : "ldg");
                    return 1;
                }
            }
        /* the COLS layout: treat the buffer as cols x rows with coefficient = row index */
        double *ht = malloc(n * 8);
        float *ot = malloc(n * 4);
        for (size_t r = 0; r < rows; r++) for (size_t c = 0; c < cols; c++) ht[c * rows + r] = h[r * cols + c];
        CK(cudaMemcpy(din, ht, n * 8, cudaMemcpyHostToDevice));
        for (int uc = 0; uc <= has_const; uc++) {
            if (gp_cuda_map_apply_dev(cm, din, dout, cols, rows, 0, GP_CMAP_COLS, uc, NULL, err, sizeof err) ||
                gp_cuda_map_check(cm, err, sizeof err)) { fprintf(stderr, "bench_map: %s\n", err); return 2; }
            CK(cudaMemcpy(ot, dout, n * 4, cudaMemcpyDeviceToHost));
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 0; c < cols; c++)
                    if (memcmp(&ot[c * rows + r], &o_cpu[r * cols + c], 4)) {
                        fprintf(stderr, "bench_map: CHECK FAILED: layout cols, %s differs at (%zu, %zu)\n",
                                uc ? "constant" : "ldg", r, c);
                        return 1;
                    }
        }
        CK(cudaMemcpy(din, h, n * 8, cudaMemcpyHostToDevice));
        free(ht);
        free(ot);
        printf("check: every mode and layout equals the CPU bit for bit\n");
    }

    double bytes = (double)n * (8 + 4);
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaMemcpy(dcopy, din, n * 8, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(a, 0));
    for (int i = 0; i < reps; i++) CK(cudaMemcpy(dcopy, din, n * 8, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    double tc = ms / 1e3 / reps;
    printf("%-34s %8.3f ms  %7.1f GB/s (read + write)\n", "ceiling: cudaMemcpy D2D", tc * 1e3, 2.0 * n * 8 / tc / 1e9);
    for (int lay = 0; lay < 2; lay++)
        for (int uc = 0; uc <= has_const; uc++) {
            size_t r = lay == GP_CMAP_COLS ? cols : rows, c = lay == GP_CMAP_COLS ? rows : cols;
            double t = run(cm, din, dout, r, c, (gp_cmap_layout)lay, uc, reps);
            char name[64];
            snprintf(name, sizeof name, "map layout %s, coefficients %s", lay ? "cols" : "rows", uc ? "const" : "ldg");
            printf("%-34s %8.3f ms  %7.1f GB/s  (%.0f%% of the copy)\n", name, t * 1e3, bytes / t / 1e9,
                   100.0 * (bytes / t) / (2.0 * n * 8 / tc));
        }
    gp_cuda_map_destroy(cm);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dcopy);
    free(h); free(av); free(bv); free(o_cpu); free(o_gpu);
    return 0;
}
