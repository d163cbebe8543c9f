/* tests/gpu/test_cuda_transpose.cu — every layout (and tuning variant) x element size of
 * gp_cuda_transpose_dev against a naive host loop, on odd shapes, with the destination poisoned
 * (0xA5) before each launch and guard bytes after it. Exits 77 when no CUDA device is visible.
 * Options: --quick (skip the large shapes), --big (add the > 2^31-element case),
 * --max-elems N (only shapes of at most N elements: for compute-sanitizer runs),
 * --async-only (of the tuned variants only the cp.async kernel's and shapes E/F, plus default
 * and naive), --big-only (only the > 2^31-element cases). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include "kernels/backend.h"
#include "pipeline/status.h"
#include "kernels/cuda/cuda_kernels.h"

static int g_fail = 0, g_runs = 0;
static const size_t GUARD = 256;

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(e_));                                                      \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return g_rng;
}
static void fill_random(uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { uint64_t v = rnd(); memcpy(p + i, &v, 8); }
    for (; i < n; i++) p[i] = (uint8_t)rnd();
}

/* The reference: the plain definition dst[c][r] = src[r][c]. */
static void host_transpose(const uint8_t *src, uint8_t *dst, size_t rows, size_t cols, size_t es)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            memcpy(dst + (c * rows + r) * es, src + (r * cols + c) * es, es);
}

/* Checks dst against src element by element (cache-blocked, no reference buffer): for the
 * shapes too big for a second host copy. Returns the first bad element index or SIZE_MAX. */
static size_t blocked_check(const uint8_t *src, const uint8_t *dst, size_t rows, size_t cols,
                            size_t es)
{
    const size_t B = 64;
    if (es == 1) { /* the > 2^31-element cases: no memcmp call per byte */
        for (size_t r0 = 0; r0 < rows; r0 += B)
            for (size_t c0 = 0; c0 < cols; c0 += B)
                for (size_t c = c0; c < cols && c < c0 + B; c++)
                    for (size_t r = r0; r < rows && r < r0 + B; r++)
                        if (dst[c * rows + r] != src[r * cols + c]) return c * rows + r;
        return SIZE_MAX;
    }
    for (size_t r0 = 0; r0 < rows; r0 += B)
        for (size_t c0 = 0; c0 < cols; c0 += B)
            for (size_t c = c0; c < cols && c < c0 + B; c++)
                for (size_t r = r0; r < rows && r < r0 + B; r++)
                    if (memcmp(dst + (c * rows + r) * es, src + (r * cols + c) * es, es))
                        return c * rows + r;
    return SIZE_MAX;
}

struct Case {
    size_t rows, cols, es;
    gp_tile_layout layout;
    int tune;
    size_t off; /* byte offset added to both device pointers (misalignment) */
};

static void report(const Case &k, const char *what, size_t idx)
{
    fprintf(stderr,
            "FAIL %zux%zu esize %zu layout %s tune %d offset %zu: %s at element %zu "
            "(dst row %zu, col %zu)\n",
            k.rows, k.cols, k.es, gp_cuda_layout_name(k.layout), k.tune, k.off, what, idx,
            idx / (k.rows ? k.rows : 1), idx % (k.rows ? k.rows : 1));
    g_fail++;
}

/* Runs one case on device buffers d_src/d_dst (big enough), compares with ref (or blocked). */
static void run_case(const Case &k, const uint8_t *h_src, const uint8_t *ref, uint8_t *h_out,
                     uint8_t *d_src0, uint8_t *d_dst0)
{
    const size_t bytes = k.rows * k.cols * k.es;
    uint8_t *d_src = d_src0 + k.off, *d_dst = d_dst0 + k.off;
    CK(cudaMemset(d_dst0, 0xA5, bytes + k.off + GUARD));
    int rc = gp_cuda_transpose_dev_tuned(d_src, d_dst, k.rows, k.cols, k.es, k.layout, k.tune, 0);
    cudaError_t e = cudaDeviceSynchronize();
    g_runs++;
    if (rc || e != cudaSuccess) {
        fprintf(stderr, "FAIL %zux%zu esize %zu layout %s tune %d: rc %d, %s\n", k.rows, k.cols,
                k.es, gp_cuda_layout_name(k.layout), k.tune, rc,
                cudaGetErrorString(e != cudaSuccess ? e : cudaGetLastError()));
        g_fail++;
        if (e != cudaSuccess) exit(1); /* sticky: nothing after this can be trusted */
        return;
    }
    CK(cudaMemcpy(h_out, d_dst0, bytes + k.off + GUARD, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < k.off; i++)
        if (h_out[i] != 0xA5) { report(k, "write before dst", i); return; }
    for (size_t i = 0; i < GUARD; i++)
        if (h_out[k.off + bytes + i] != 0xA5) { report(k, "write past dst", i); return; }
    const uint8_t *out = h_out + k.off;
    if (ref) {
        if (memcmp(out, ref, bytes)) {
            size_t i = 0;
            while (i < bytes && out[i] == ref[i]) i++;
            report(k, out[i] == 0xA5 ? "unwritten (0xA5) byte" : "wrong byte", i / k.es);
        }
    } else {
        size_t bad = blocked_check(h_src, out, k.rows, k.cols, k.es);
        if (bad != SIZE_MAX) report(k, "wrong element", bad);
    }
}

int main(int argc, char **argv)
{
    bool quick = false, big = false, async_only = false, big_only = false;
    size_t max_elems = SIZE_MAX;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--big")) big = true;
        else if (!strcmp(argv[i], "--async-only")) async_only = true;
        else if (!strcmp(argv[i], "--big-only")) big = big_only = true;
        else if (!strcmp(argv[i], "--max-elems") && i + 1 < argc)
            max_elems = strtoull(argv[++i], NULL, 10);
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device visible: skipped\n");
        return 77;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("device: %s (sm_%d%d)\n", p.name, p.major, p.minor);

    struct Shape { size_t r, c; bool large; };
    const Shape shapes[] = {
        {1, 1, false},      {1, 1000, false},   {1000, 1, false},   {2, 3, false},
        {16, 16, false},    {64, 64, false},    {128, 96, false},   {257, 509, false},
        {16, 4112, false},  {4112, 16, false},  {496, 304, false},  {1040, 2064, false},
        {33, 4097, false},  {4097, 8191, true}, {4112, 8208, true},
    };
    const size_t esizes[] = {1, 2, 3, 4, 8, 12, 16};
    const gp_tile_layout layouts[] = {GP_TILE_DEFAULT, GP_TILE_NONE, GP_TILE_PAD,
                                      GP_TILE_SWIZZLE, GP_TILE_NAIVE};
    size_t maxb = 0;
    for (const Shape &s : shapes)
        if (!(quick && s.large) && s.r * s.c <= max_elems) maxb = std::max(maxb, s.r * s.c * 16);
    uint8_t *d_src, *d_dst;
    CK(cudaMalloc(&d_src, maxb + 64 + GUARD));
    CK(cudaMalloc(&d_dst, maxb + 64 + GUARD));
    std::vector<uint8_t> h_src(maxb + 64), ref(maxb), out(maxb + 64 + GUARD);

    for (const Shape &s : shapes) {
        if ((quick && s.large) || s.r * s.c > max_elems || big_only) continue;
        for (size_t es : esizes) {
            const size_t bytes = s.r * s.c * es;
            fill_random(h_src.data(), bytes);
            host_transpose(h_src.data(), ref.data(), s.r, s.c, es);
            for (size_t off : {(size_t)0, es}) {
                if (off && s.large) continue;
                CK(cudaMemcpy(d_src + off, h_src.data(), bytes, cudaMemcpyHostToDevice));
                for (gp_tile_layout l : layouts) {
                    const bool tiled = l == GP_TILE_NONE || l == GP_TILE_PAD ||
                                       l == GP_TILE_SWIZZLE;
                    if (async_only) {
                        if (l == GP_TILE_DEFAULT || l == GP_TILE_NAIVE)
                            run_case({s.r, s.c, es, l, 0, off}, h_src.data(), ref.data(),
                                     out.data(), d_src, d_dst);
                    } else {
                        for (int t = 0; t < (tiled && !off ? 8 : 1); t++)
                            run_case({s.r, s.c, es, l, t, off}, h_src.data(), ref.data(),
                                     out.data(), d_src, d_dst);
                    }
                    /* the cp.async kernel (k_async): four shapes x row-major / column-major /
                     * panel tile order, every layout; misaligned: the fallback with the bit set */
                    if (tiled)
                        for (int a : {0, (int)GP_CUDA_TUNE_ALT, (int)GP_CUDA_TUNE_CFG_C,
                                      (int)GP_CUDA_TUNE_CFG_D, (int)GP_CUDA_TUNE_CFG_E,
                                      (int)GP_CUDA_TUNE_CFG_F})
                            for (int o : {0, (int)GP_CUDA_TUNE_COLMAJOR, (int)GP_CUDA_TUNE_GROUP}) {
                                if (off && (a || o != GP_CUDA_TUNE_COLMAJOR)) continue;
                                /* row-major: 3 blocks, panel order: 7 (many tiles per block,
                                 * the stage ring wraps); column-major: the full grid */
                                gp_cuda_async_grid_cap(o == 0 ? 3 : o == GP_CUDA_TUNE_GROUP ? 7 : 0);
                                run_case({s.r, s.c, es, l, GP_CUDA_TUNE_ASYNC | a | o, off},
                                         h_src.data(), ref.data(), out.data(), d_src, d_dst);
                                gp_cuda_async_grid_cap(0);
                            }
                    /* k_async through the bulk copy engine (ASYNC|STREAM): none and pad (swizzle
                     * runs pad), small grids so that the mbarrier phases wrap */
                    if ((l == GP_TILE_NONE || l == GP_TILE_PAD) && !off)
                        for (int a : {0, (int)GP_CUDA_TUNE_ALT, (int)GP_CUDA_TUNE_CFG_C,
                                      (int)GP_CUDA_TUNE_CFG_D, (int)GP_CUDA_TUNE_CFG_E,
                                      (int)GP_CUDA_TUNE_CFG_F})
                            for (int o : {(int)GP_CUDA_TUNE_COLMAJOR, (int)GP_CUDA_TUNE_GROUP}) {
                                gp_cuda_async_grid_cap(o == GP_CUDA_TUNE_GROUP ? 5 : 0);
                                run_case({s.r, s.c, es, l,
                                          GP_CUDA_TUNE_ASYNC | GP_CUDA_TUNE_STREAM | a | o, off},
                                         h_src.data(), ref.data(), out.data(), d_src, d_dst);
                                gp_cuda_async_grid_cap(0);
                            }
                    /* shapes E, F, E|F (k_vec1h for 1 B; with ALT its 256-byte-wide tiles),
                     * every layout, row-/column-major and both grouped tile orders with panels
                     * of 1-4 tiles (600 bytes), so that partial panels occur at the edges */
                    if (tiled && !off) {
                        gp_cuda_tile_group_bytes(600);
                        for (int e : {0, (int)GP_CUDA_TUNE_ALT, (int)GP_CUDA_TUNE_CFG_E,
                                      (int)GP_CUDA_TUNE_CFG_F, GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_CFG_F,
                                      GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT,
                                      GP_CUDA_TUNE_CFG_F | GP_CUDA_TUNE_ALT,
                                      GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_CFG_F | GP_CUDA_TUNE_ALT})
                            for (int o : {0, (int)GP_CUDA_TUNE_COLMAJOR, (int)GP_CUDA_TUNE_GROUP,
                                          GP_CUDA_TUNE_GROUP | GP_CUDA_TUNE_COLMAJOR}) {
                                if (e < GP_CUDA_TUNE_CFG_E && !(o & GP_CUDA_TUNE_GROUP))
                                    continue; /* k_vec's plain orders: the loop over t above */
                                run_case({s.r, s.c, es, l, e | o, off}, h_src.data(), ref.data(),
                                         out.data(), d_src, d_dst);
                            }
                        gp_cuda_tile_group_bytes(0);
                    }
                    /* the two extra tile shapes (swizzled layout) */
                    if (l == GP_TILE_SWIZZLE && !off && !async_only)
                        for (int t : {(int)GP_CUDA_TUNE_CFG_C, (int)GP_CUDA_TUNE_CFG_D,
                                      GP_CUDA_TUNE_CFG_C | GP_CUDA_TUNE_COLMAJOR,
                                      GP_CUDA_TUNE_CFG_D | GP_CUDA_TUNE_COLMAJOR})
                            run_case({s.r, s.c, es, l, t, off}, h_src.data(), ref.data(), out.data(),
                                     d_src, d_dst);
                }
            }
        }
        printf("%zu x %zu: %d runs, %d failures so far\n", s.r, s.c, g_runs, g_fail);
        fflush(stdout);
    }
    CK(cudaFree(d_src));
    CK(cudaFree(d_dst));

    if (big) {
        /* more than 2^31 elements (1-byte): the vector path and the odd-shape path */
        const Shape bs[] = {{46352, 46368, true}, {46341, 46349, true}};
        for (const Shape &s : bs) {
            const size_t bytes = s.r * s.c;
            CK(cudaMalloc(&d_src, bytes));
            CK(cudaMalloc(&d_dst, bytes + GUARD));
            std::vector<uint8_t> hs(bytes), ho(bytes + GUARD);
            fill_random(hs.data(), bytes);
            CK(cudaMemcpy(d_src, hs.data(), bytes, cudaMemcpyHostToDevice));
            const bool vec = s.r % 16 == 0 && s.c % 16 == 0;
            if (!vec) {
                run_case({s.r, s.c, 1, GP_TILE_DEFAULT, 0, 0}, hs.data(), nullptr, ho.data(),
                         d_src, d_dst);
            } else {
                /* the vector kernels, each against one reference (blocked host transpose) */
                std::vector<uint8_t> rf(bytes);
                const size_t B = 64;
                for (size_t r0 = 0; r0 < s.r; r0 += B)
                    for (size_t c0 = 0; c0 < s.c; c0 += B)
                        for (size_t c = c0; c < s.c && c < c0 + B; c++)
                            for (size_t r = r0; r < s.r && r < r0 + B; r++)
                                rf[c * s.r + r] = hs[r * s.c + c];
                const int tunes[] = {
                    -1, /* default */
                    GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_COLMAJOR, /* k_vec1h */
                    GP_CUDA_TUNE_ASYNC | GP_CUDA_TUNE_ALT | GP_CUDA_TUNE_GROUP, /* cp.async */
                    GP_CUDA_TUNE_ASYNC | GP_CUDA_TUNE_STREAM | GP_CUDA_TUNE_COLMAJOR, /* bulk */
                };
                for (int t : tunes)
                    run_case({s.r, s.c, 1, t < 0 ? GP_TILE_DEFAULT : GP_TILE_SWIZZLE,
                              t < 0 ? 0 : t, 0},
                             hs.data(), rf.data(), ho.data(), d_src, d_dst);
            }
            printf("%zu x %zu (1 B, %.2f G elements): %d runs, %d failures so far\n", s.r, s.c,
                   bytes / 1e9, g_runs, g_fail);
            CK(cudaFree(d_src));
            CK(cudaFree(d_dst));
        }
    }
    printf("%s: %d runs, %d failures\n", g_fail ? "FAILED" : "PASSED", g_runs, g_fail);
    return g_fail ? 1 : 0;
}
