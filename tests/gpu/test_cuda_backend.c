/* tests/gpu/test_cuda_backend.c — the CUDA gp_backend through its table: create, pinned
 * host_alloc, transpose (whole panels and, with GPIPE_CUDA_MEM_LIMIT, row slabs), destroy.
 * Compared with a naive host loop; destination poisoned (0xA5). Exits 77 without a device. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/backend.h"
#include "pipeline/status.h"

static int g_fail = 0, g_runs = 0;
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
        p[i] = (uint8_t)(g_rng >> 24);
    }
}

static void check(gp_backend *b, size_t rows, size_t cols, size_t es, const char *tag)
{
    const size_t bytes = rows * cols * es;
    uint8_t *src = b->host_alloc(b, bytes), *dst = b->host_alloc(b, bytes + 64);
    char err[256] = "";
    g_runs++;
    if (!src || !dst) {
        fprintf(stderr, "FAIL %s: host_alloc of %zu bytes returned NULL\n", tag, bytes);
        g_fail++;
        goto out;
    }
    fill_random(src, bytes);
    memset(dst, 0xA5, bytes + 64);
    int rc = b->transpose(b, src, dst, rows, cols, es, err, sizeof err);
    if (rc) {
        fprintf(stderr, "FAIL %s %zux%zu esize %zu: rc %d: %s\n", tag, rows, cols, es, rc, err);
        g_fail++;
        goto out;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            if (memcmp(dst + (c * rows + r) * es, src + (r * cols + c) * es, es)) {
                fprintf(stderr, "FAIL %s %zux%zu esize %zu: element (%zu,%zu) of src is wrong in "
                        "dst\n", tag, rows, cols, es, r, c);
                g_fail++;
                goto out;
            }
    for (size_t i = 0; i < 64; i++)
        if (dst[bytes + i] != 0xA5) {
            fprintf(stderr, "FAIL %s %zux%zu esize %zu: write past dst\n", tag, rows, cols, es);
            g_fail++;
            goto out;
        }
out:
    if (src) b->host_free(b, src);
    if (dst) b->host_free(b, dst);
}

int main(void)
{
    char err[256] = "";
    gp_backend *b = NULL;
    printf("visible CUDA devices: %d\n", gp_cuda_device_count());
    int rc = gp_cuda_backend_create(&b, 0, err, sizeof err);
    if (rc == GP_ENODEV) {
        printf("skipped: %s\n", err);
        return 77;
    }
    if (rc) {
        fprintf(stderr, "gp_cuda_backend_create: rc %d: %s\n", rc, err);
        return 1;
    }
    printf("backend: %s (%s)\n", b->name, b->desc);
    if (strcmp(b->name, "cuda") || strncmp(b->desc, "cuda:", 5)) {
        fprintf(stderr, "FAIL: name/desc\n");
        g_fail++;
    }
    static const size_t shapes[][2] = {{1, 1},     {1, 777},    {777, 1},     {3, 5},
                                       {257, 509}, {512, 1024}, {1000, 777},  {2049, 4099},
                                       {64, 48}};
    static const size_t esizes[] = {1, 2, 3, 4, 8, 12, 16};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t e = 0; e < sizeof esizes / sizeof esizes[0]; e++)
            check(b, shapes[s][0], shapes[s][1], esizes[e], "whole");
    /* the same backend again after bigger panels (buffers reused) */
    check(b, 31, 17, 4, "reuse");
    b->destroy(b);

    /* device memory capped at 256 KiB (4 slab buffers of 64 KiB): panels go in slabs. At 128 KiB
     * one line of the 2049 x 4099 16-byte panel (32784 B) did not fit a buffer (exit ENOMEM) */
    setenv("GPIPE_CUDA_MEM_LIMIT", "262144", 1);
    rc = gp_cuda_backend_create(&b, 5, err, sizeof err); /* local rank 5: 5 % count */
    if (rc) {
        fprintf(stderr, "gp_cuda_backend_create (limited): rc %d: %s\n", rc, err);
        return 1;
    }
    static const size_t slab_shapes[][2] = {{1000, 777}, {2049, 4099}, {4096, 64}, {333, 20000}};
    for (size_t s = 0; s < sizeof slab_shapes / sizeof slab_shapes[0]; s++)
        for (size_t e = 0; e < sizeof esizes / sizeof esizes[0]; e++)
            check(b, slab_shapes[s][0], slab_shapes[s][1], esizes[e], "slabs");
    b->destroy(b);
    unsetenv("GPIPE_CUDA_MEM_LIMIT");

    printf("%s: %d runs, %d failures\n", g_fail ? "FAILED" : "PASSED", g_runs, g_fail);
    return g_fail ? 1 : 0;
}
