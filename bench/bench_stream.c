/* bench/bench_stream.c — host-resident streaming through the GPU (issue 4): the CUDA backend's
 * transpose of a pinned host panel (copy in, kernel, copy out overlapped in slabs) against the
 * pinned-copy ceilings measured in the same run: host->device alone, device->host alone, and
 * both at once (the ceiling for a stream that moves every byte in and out).
 * usage: bench_stream [--mib N (default 1024)] [--reps N (default 10)] [--json] */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/backend.h"
#include "pipeline/internal.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

/* GB/s of copying `bytes` each way: mode 0 h2d, 1 d2h, 2 both at once on two streams. */
static double copy_rate(int mode, void *h_in, void *h_out, void *d_a, void *d_b, size_t bytes, int reps)
{
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    double *t = malloc(sizeof *t * (size_t)reps);
    for (int r = 0; r < reps; r++) {
        cudaDeviceSynchronize();
        double t0 = gp__now();
        if (mode != 1) cudaMemcpyAsync(d_a, h_in, bytes, cudaMemcpyHostToDevice, s1);
        if (mode != 0) cudaMemcpyAsync(h_out, d_b, bytes, cudaMemcpyDeviceToHost, s2);
        cudaDeviceSynchronize();
        t[r] = gp__now() - t0;
    }
    double m = median(t, reps);
    free(t);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    return (double)bytes / m / 1e9;
}

int main(int argc, char **argv)
{
    size_t mib = 1024;
    int reps = 10, json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json")) json = 1;
    }
    char err[512] = "";
    gp_backend *be = NULL;
    if (gp_cuda_backend_create(&be, 0, err, sizeof err)) {
        fprintf(stderr, "bench_stream: %s\n", err);
        return 77;
    }
    size_t bytes = mib << 20;
    char *src = be->host_alloc(be, bytes), *dst = be->host_alloc(be, bytes);
    void *d_a = NULL, *d_b = NULL;
    if (!src || !dst || cudaMalloc(&d_a, bytes) || cudaMalloc(&d_b, bytes)) {
        fprintf(stderr, "bench_stream: cannot allocate 2 x %zu MiB pinned + device\n", mib);
        return 2;
    }
    for (size_t i = 0; i < bytes; i++) src[i] = (char)(i * 131 + 7);
    double h2d = copy_rate(0, src, dst, d_a, d_b, bytes, reps);
    double d2h = copy_rate(1, src, dst, d_a, d_b, bytes, reps);
    double both = copy_rate(2, src, dst, d_a, d_b, bytes, reps);
    cudaFree(d_a);
    cudaFree(d_b);
    if (!json)
        printf("pinned copy ceilings (%zu MiB, median of %d): h2d %.1f GB/s, d2h %.1f GB/s, "
               "both at once %.1f GB/s each way\n", mib, reps, h2d, d2h, both);
    struct { size_t rows, esize; } cases[] = {{4096, 4}, {1u << 18, 4}, {4096, 8}, {4096, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t es = cases[c].esize, rows = cases[c].rows, cols = bytes / es / rows;
        double *t = malloc(sizeof *t * (size_t)reps);
        be->transpose(be, src, dst, rows, cols, es, err, sizeof err);   /* warm-up, buffers */
        for (int r = 0; r < reps; r++) {
            double t0 = gp__now();
            if (be->transpose(be, src, dst, rows, cols, es, err, sizeof err)) {
                fprintf(stderr, "bench_stream: %s\n", err);
                return 2;
            }
            t[r] = gp__now() - t0;
        }
        /* spot check: element (i, j) of src is element (j, i) of dst */
        size_t i = rows / 3, j = cols / 2;
        if (memcmp(src + (i * cols + j) * es, dst + (j * rows + i) * es, es)) {
            fprintf(stderr, "bench_stream: wrong result\n");
            return 2;
        }
        double rate = (double)bytes / median(t, reps) / 1e9;
        if (json)
            printf("{\"bench\":\"stream\",\"rows\":%zu,\"cols\":%zu,\"esize\":%zu,\"gbps_each_way\":%.2f,"
                   "\"ceiling_both\":%.2f,\"h2d\":%.2f,\"d2h\":%.2f,\"ratio\":%.3f}\n",
                   rows, cols, es, rate, both, h2d, d2h, rate / both);
        else
            printf("  transpose %8zu x %-8zu %2zu B: %6.1f GB/s each way = %5.1f%% of both-at-once "
                   "(target >= 90%%)\n", rows, cols, es, rate, 100 * rate / both);
        free(t);
    }
    be->host_free(be, src);
    be->host_free(be, dst);
    be->destroy(be);
    return 0;
}
