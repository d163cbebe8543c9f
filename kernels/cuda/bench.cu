/* kernels/cuda/bench.cu — `gpipe bench kernels`: every transpose variant against the device copy
 * ceiling measured in the same run (CUDA events, median of --reps, bytes read + written). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <algorithm>
#include <vector>
#include <dlfcn.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>   /* types and prototypes only: cuBLAS is loaded at run time (Blas below) */
#include "kernels/backend.h"
#include "pipeline/status.h"
#include "kernels/cuda/cuda_kernels.h"

// kernels

namespace {

/* Random words; nonan clears bit 30 so that no float or double is Inf/NaN (for cuBLAS, which
 * may quiet NaN payloads). */
__global__ void k_fill(uint32_t *p, size_t nwords, uint32_t seed, int nonan)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nwords;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
        p[i] = nonan ? (uint32_t)x & 0xBFFFFFFFu : (uint32_t)x;
    }
}

/* Counts dst elements that differ from the transposed src, byte by byte (independent of the
 * kernels under test). */
__global__ void k_check(const uint8_t *src, const uint8_t *dst, size_t rows, size_t cols,
                        size_t esize, unsigned long long *bad)
{
    const size_t n = rows * cols;
    unsigned long long nb = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t c = i / rows, r = i - c * rows; /* dst element i = (c, r) */
        const uint8_t *d = dst + i * esize, *s = src + (r * cols + c) * esize;
        for (size_t k = 0; k < esize; k++)
            if (d[k] != s[k]) { nb++; break; }
    }
    if (nb) atomicAdd(bad, nb);
}

} // namespace

// bench

namespace {

/* cuBLAS, the bench's peer for 4 and 8 B (geam), loaded by dlopen when the bench runs: linked
 * into gpipe, libcublas and libcublasLt (~600 MB) were mapped and relocated by every gpipe
 * process, ~26 k page faults and 0.07 s of system time per rank for a library nothing else
 * uses. GPIPE_CUBLAS_LIBRARY names another file. */
struct Blas {
    void *lib = nullptr;
    cublasHandle_t h = nullptr;
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSgeam) sgeam = nullptr;
    decltype(&cublasDgeam) dgeam = nullptr;
    char why[320] = "";   /* why it is not there */
};

void blas_open(Blas &b)
{
    char def[64];
    snprintf(def, sizeof def, "libcublas.so.%d", CUBLAS_VER_MAJOR);
    const char *env = getenv("GPIPE_CUBLAS_LIBRARY");
    const char *name = env && *env ? env : def;
    if (!(b.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(b.why, sizeof b.why, "cannot load %s: %s", name, dlerror());
        return;
    }
    *(void **)&b.create = dlsym(b.lib, "cublasCreate_v2");
    *(void **)&b.destroy = dlsym(b.lib, "cublasDestroy_v2");
    *(void **)&b.sgeam = dlsym(b.lib, "cublasSgeam");
    *(void **)&b.dgeam = dlsym(b.lib, "cublasDgeam");
    cublasStatus_t st = CUBLAS_STATUS_NOT_INITIALIZED;
    if (!b.create || !b.destroy || !b.sgeam || !b.dgeam)
        snprintf(b.why, sizeof b.why, "%s lacks cublasCreate_v2, cublasSgeam or cublasDgeam", name);
    else if ((st = b.create(&b.h)) != CUBLAS_STATUS_SUCCESS)
        snprintf(b.why, sizeof b.why, "cublasCreate failed (status %d)", (int)st);
    if (b.why[0]) {
        b.h = nullptr;
        dlclose(b.lib);
        b.lib = nullptr;
    }
}

void blas_close(Blas &b)
{
    if (b.h) b.destroy(b.h);
    if (b.lib) dlclose(b.lib);
    b.h = nullptr;
    b.lib = nullptr;
}

struct Ctx {
    void *src = nullptr, *dst = nullptr;
    unsigned long long *bad = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    Blas blas;
    FILE *json = nullptr;
    int reps = 20;
    char dev[160] = "";
};

int fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "gpipe bench kernels: %s failed: %s\n", what, cudaGetErrorString(e));
    return 2;
}

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) return fail(#call, e_);                                            \
    } while (0)

/* Times fn() reps times after 2 warm-ups; median milliseconds into *ms. fn returns 0 or error. */
template <typename F> int time_median(Ctx &c, F fn, double *ms)
{
    for (int i = 0; i < 2; i++)
        if (fn()) return 2;
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < c.reps; i++) {
        CK(cudaEventRecord(c.e0));
        if (fn()) return 2;
        CK(cudaEventRecord(c.e1));
        CK(cudaEventSynchronize(c.e1));
        float f = 0;
        CK(cudaEventElapsedTime(&f, c.e0, c.e1));
        t.push_back(f);
    }
    std::sort(t.begin(), t.end());
    const size_t n = t.size();
    *ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return 0;
}

int check(Ctx &c, size_t rows, size_t cols, size_t es, unsigned long long *bad)
{
    CK(cudaMemset(c.bad, 0, sizeof *c.bad));
    k_check<<<132 * 16, 256>>>((const uint8_t *)c.src, (const uint8_t *)c.dst, rows, cols, es,
                               c.bad);
    CK(cudaGetLastError());
    CK(cudaMemcpy(bad, c.bad, sizeof *bad, cudaMemcpyDeviceToHost));
    return 0;
}

struct Row {
    const char *name;
    double ms, gbps, pct;
    unsigned long long bad;
    bool checked;
};

void emit(Ctx &c, size_t es, size_t rows, size_t cols, const Row &r, double copy_gbps)
{
    if (!c.json) return;
    fprintf(c.json,
            "{\"bench\":\"kernels\",\"device\":\"%s\",\"esize\":%zu,\"rows\":%zu,\"cols\":%zu,"
            "\"variant\":\"%s\",\"ms\":%.4f,\"gbps\":%.1f,\"pct_of_copy\":%.2f,"
            "\"copy_gbps\":%.1f,\"reps\":%d,\"checked\":%s,\"mismatches\":%llu}\n",
            c.dev, es, rows, cols, r.name, r.ms, r.gbps, r.pct, copy_gbps, c.reps,
            r.checked ? "true" : "false", r.bad);
    fflush(c.json);
}

/* --help: the usage on stdout, exit 0; a bad argument: on stderr, exit 2 */
int usage(bool help = false)
{
    fprintf(help ? stdout : stderr,
            "usage: gpipe bench kernels [--size-mib N] [--rows N] [--cols N] [--reps N] "
            "[--json FILE|-] [--tune] [--esize N] [--match NAME,NAME...]\n"
            "  GPU transposes of every element size (1, 2, 4, 8, 16 B) against device copy\n"
            "  (and cuBLAS geam at 4 and 8 B) in the same run, on device 0\n"
            "  --size-mib N  bytes per matrix (default 2048)\n"
            "  --rows N, --cols N  matrices of N rows or columns (multiples of 16; the other\n"
            "                side fills --size-mib) instead of the squarest shape\n"
            "  --reps N      timed repetitions, the median is shown (default 20)\n"
            "  --json FILE   one JSON line per variant (- for stdout)\n"
            "  --tune        every tile layout, tuning bit and tile order, not only the layouts\n"
            "  --esize N     only this element size\n"
            "  --match A,B   only variants whose names contain one of these (and the default)\n");
    return help ? 0 : 2;
}

} // namespace

extern "C" int gp_cuda_bench_kernels(int argc, char **argv)
{
    size_t size_mib = 2048;
    int reps = 20, tune = 0;
    size_t only_es = 0, want_rows = 0, want_cols = 0;
    const char *json = nullptr, *match = nullptr;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i == 0 && a[0] != '-') continue; /* program or subcommand name */
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(true);
        if (!strcmp(a, "--tune")) { tune = 1; continue; }
        if (!strcmp(a, "--match") && i + 1 < argc) { match = argv[++i]; continue; }
        if (i + 1 >= argc) return usage();
        char *end = nullptr;
        if (!strcmp(a, "--size-mib")) {
            size_mib = strtoull(argv[++i], &end, 10);
            if (*end || size_mib < 1) return usage();
        } else if (!strcmp(a, "--reps")) {
            reps = (int)strtol(argv[++i], &end, 10);
            if (*end || reps < 1) return usage();
        } else if (!strcmp(a, "--json")) {
            json = argv[++i];
        } else if (!strcmp(a, "--rows")) {
            want_rows = strtoull(argv[++i], &end, 10);
            if (*end || want_rows < 16 || want_rows % 16) return usage();
        } else if (!strcmp(a, "--cols")) {
            want_cols = strtoull(argv[++i], &end, 10);
            if (*end || want_cols < 16 || want_cols % 16) return usage();
        } else if (!strcmp(a, "--esize")) {
            only_es = strtoull(argv[++i], &end, 10);
            if (*end) return usage();
        } else {
            return usage();
        }
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        fprintf(stderr, "gpipe bench kernels: no CUDA device visible (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 2;
    }
    Ctx c;
    c.reps = reps;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    snprintf(c.dev, sizeof c.dev, "cuda:0 %s (sm_%d%d, %d SMs)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount);
    if (json) {
        c.json = strcmp(json, "-") ? fopen(json, "w") : stdout;
        if (!c.json) {
            fprintf(stderr, "gpipe bench kernels: cannot open %s\n", json);
            return 2;
        }
    }
    const size_t bytes = size_mib << 20;
    int rc = 0;
    printf("gpipe bench kernels: %s, %zu MiB per matrix, median of %d reps, GB/s = (read + "
           "written bytes) / time\n",
           c.dev, size_mib, reps);
    if (!want_rows && !want_cols)
        printf("the squarest shapes; figures move with the shape (bench/NOTES.md: 76-98%% of copy "
               "on an H200): --rows N --cols N times yours\n");
    e = cudaMalloc(&c.src, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&c.dst, bytes);
    if (e != cudaSuccess) {
        fprintf(stderr, "gpipe bench kernels: cudaMalloc of 2 x %zu MiB failed: %s\n", size_mib,
                cudaGetErrorString(e));
        cudaFree(c.src);
        if (c.json && c.json != stdout) fclose(c.json);
        return 2;
    }
    CK(cudaMalloc(&c.bad, sizeof *c.bad));
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    blas_open(c.blas);
    if (!c.blas.h) printf("cuBLAS geam not measured: %s\n", c.blas.why);

    struct Summary {
        size_t es;
        double copy;
        std::vector<Row> rows;
    };
    std::vector<Summary> all;
    const size_t sizes[5] = {1, 2, 4, 8, 16};
    for (size_t es : sizes) {
        if (only_es && es != only_es) continue;
        const size_t n = bytes / es;
        size_t rows = want_rows ? want_rows : want_cols ? n / want_cols : (size_t)sqrt((double)n);
        rows -= rows % 16;
        size_t cols = want_cols && rows ? want_cols : rows ? n / rows : 0;
        cols -= cols % 16;
        if (rows < 16 || cols < 16 || rows * cols > n) {
            fprintf(stderr, "gpipe bench kernels: %zu x %zu elements of %zu B do not fit %zu MiB "
                            "with at least 16 rows and columns\n", rows, cols, es, size_mib);
            rc = 2;
            break;
        }
        const size_t mb = rows * cols * es;
        k_fill<<<132 * 16, 256>>>((uint32_t *)c.src, mb / 4, (uint32_t)es * 7919u, 0);
        CK(cudaGetLastError());
        Summary s;
        s.es = es;
        double ms;
        if ((rc = time_median(c, [&] {
                 return cudaMemcpyAsync(c.dst, c.src, mb, cudaMemcpyDeviceToDevice) !=
                        cudaSuccess;
             }, &ms)))
            break;
        s.copy = 2.0 * mb / (ms * 1e6);
        s.rows.push_back({"copy", ms, s.copy, 100.0, 0, false});

        struct V {
            const char *name;
            gp_tile_layout l;
            int tune;
            size_t group; /* GROUP orders: panel bytes (0 = the library's 2048) */
        };
        std::vector<V> vs = {{"naive", GP_TILE_NAIVE, 0},   {"none", GP_TILE_NONE, 0},
                             {"pad", GP_TILE_PAD, 0},       {"swizzle", GP_TILE_SWIZZLE, 0},
                             {"default", GP_TILE_DEFAULT, 0}};
        static const char *tn[8] = {"",     "+alt",     "+str",     "+alt+str",
                                    "+cm",  "+alt+cm",  "+str+cm",  "+alt+str+cm"};
        static char names[5][3][8][32];
        if (tune) {
            const gp_tile_layout ls[3] = {GP_TILE_NONE, GP_TILE_PAD, GP_TILE_SWIZZLE};
            const int ei = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4;
            for (int li = 0; li < 3; li++)
                for (int t = 1; t < 8; t++) {
                    snprintf(names[ei][li][t], 32, "%s%s", gp_cuda_layout_name(ls[li]), tn[t]);
                    vs.push_back({names[ei][li][t], ls[li], t});
                }
            vs.push_back({"swizzle+cfgC+cm", GP_TILE_SWIZZLE, GP_CUDA_TUNE_CFG_C | GP_CUDA_TUNE_COLMAJOR});
            vs.push_back({"swizzle+cfgD+cm", GP_TILE_SWIZZLE, GP_CUDA_TUNE_CFG_D | GP_CUDA_TUNE_COLMAJOR});
            vs.push_back({"swizzle+cfgC", GP_TILE_SWIZZLE, GP_CUDA_TUNE_CFG_C});
            vs.push_back({"swizzle+cfgD", GP_TILE_SWIZZLE, GP_CUDA_TUNE_CFG_D});
            /* the cp.async pipelined kernel: its four shapes, two tile orders, the layouts */
            static const char *an[6] = {"async0", "async1", "async2", "async3", "async4", "async5"};
            static const int at[6] = {0, GP_CUDA_TUNE_ALT, GP_CUDA_TUNE_CFG_C, GP_CUDA_TUNE_CFG_D,
                                      GP_CUDA_TUNE_CFG_E, GP_CUDA_TUNE_CFG_F};
            static char anames[5][6][3][2][40];
            for (int a = 0; a < 6; a++)
                for (int li = 0; li < 3; li++)
                    for (int o = 0; o < 2; o++) {
                        if (li == 0 && a > 0) continue; /* none: base shape only */
                        snprintf(anames[ei][a][li][o], 40, "%s+%s+%s", gp_cuda_layout_name(ls[li]),
                                 an[a], o ? "grp" : "cm");
                        vs.push_back({anames[ei][a][li][o], ls[li],
                                      GP_CUDA_TUNE_ASYNC | at[a] |
                                          (o ? GP_CUDA_TUNE_GROUP : GP_CUDA_TUNE_COLMAJOR)});
                    }
            vs.push_back({"swizzle+async0", GP_TILE_SWIZZLE, GP_CUDA_TUNE_ASYNC});
            /* k_async through the bulk copy engine (whole rows: none or pad) */
            static char bnames[5][6][2][2][40];
            for (int a = 0; a < 6; a++)
                for (int li = 0; li < 2; li++)
                    for (int o = 0; o < 2; o++) {
                        if (li == 0 && (a > 0 || o)) continue;
                        snprintf(bnames[ei][a][li][o], 40, "%s+bulk%d+%s",
                                 gp_cuda_layout_name(ls[li]), a, o ? "grp" : "cm");
                        vs.push_back({bnames[ei][a][li][o], ls[li],
                                      GP_CUDA_TUNE_ASYNC | GP_CUDA_TUNE_STREAM | at[a] |
                                          (o ? GP_CUDA_TUNE_GROUP : GP_CUDA_TUNE_COLMAJOR)});
                    }
            /* shapes E, F, E|F: fewer registers per load in flight (1 B: k_vec1h) */
            static const char *en[3] = {"cfgE", "cfgF", "cfgEF"};
            static const int et[3] = {GP_CUDA_TUNE_CFG_E, GP_CUDA_TUNE_CFG_F,
                                      GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_CFG_F};
            static char enames[5][3][3][40];
            for (int e = 0; e < 3; e++)
                for (int li = 0; li < 3; li++) {
                    snprintf(enames[ei][e][li], 40, "%s+%s+cm", gp_cuda_layout_name(ls[li]), en[e]);
                    vs.push_back({enames[ei][e][li], ls[li], et[e] | GP_CUDA_TUNE_COLMAJOR});
                }
            vs.push_back({"swizzle+cfgE", GP_TILE_SWIZZLE, GP_CUDA_TUNE_CFG_E});
            if (es == 1 || es == 8) { /* 1 B: k_vec1h's wider tiles; 8 B: fewer threads */
                vs.push_back({"swizzle+cfgE+alt+cm", GP_TILE_SWIZZLE,
                              GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT | GP_CUDA_TUNE_COLMAJOR});
                vs.push_back({"swizzle+cfgF+alt+cm", GP_TILE_SWIZZLE,
                              GP_CUDA_TUNE_CFG_F | GP_CUDA_TUNE_ALT | GP_CUDA_TUNE_COLMAJOR});
                vs.push_back({"swizzle+cfgEF+alt+cm", GP_TILE_SWIZZLE,
                              GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_CFG_F | GP_CUDA_TUNE_ALT |
                                  GP_CUDA_TUNE_COLMAJOR});
                vs.push_back({"pad+cfgE+alt+cm", GP_TILE_PAD,
                              GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT | GP_CUDA_TUNE_COLMAJOR});
                vs.push_back({"none+cfgE+alt+cm", GP_TILE_NONE,
                              GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT | GP_CUDA_TUNE_COLMAJOR});
                vs.push_back({"swizzle+cfgE+alt", GP_TILE_SWIZZLE,
                              GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT});
            }
            /* the default kernel with grouped tile orders, panels of 1-16 KB (row-major inside
             * src-wide panels: grp; column-major inside dst-tall panels: grpcm) */
            static char gnames[5][5][2][40];
            const int dt = gp_cuda_default_tune(es);
            for (int w = 0; w < 5; w++)
                for (int o = 0; o < 2; o++) {
                    snprintf(gnames[ei][w][o], 40, "default+grp%s%dk", o ? "cm" : "", 1 << w);
                    vs.push_back({gnames[ei][w][o], gp_cuda_default_layout(es),
                                  (o ? dt : dt & ~GP_CUDA_TUNE_COLMAJOR) | GP_CUDA_TUNE_GROUP,
                                  (size_t)1024 << w});
                }
            vs.push_back({"default#2", GP_TILE_DEFAULT, 0});
        }
        if (match) { /* --match a,b,c: only variants whose names contain one of them */
            std::vector<V> keep;
            for (const V &v : vs) {
                bool ok = !strcmp(v.name, "default");
                for (const char *m = match; *m && !ok;) {
                    const char *e = strchr(m, ',');
                    const size_t n = e ? (size_t)(e - m) : strlen(m);
                    for (const char *q = v.name; *q && !ok; q++)
                        if (!strncmp(q, m, n)) ok = true;
                    m = e ? e + 1 : m + n;
                }
                if (ok) keep.push_back(v);
            }
            vs.swap(keep);
        }
        for (const V &v : vs) {
            CK(cudaMemset(c.dst, 0xA5, mb));
            gp_cuda_tile_group_bytes(v.group);
            if ((rc = time_median(c, [&] {
                     return gp_cuda_transpose_dev_tuned(c.src, c.dst, rows, cols, es, v.l,
                                                        v.tune, 0) != 0;
                 }, &ms))) {
                fprintf(stderr, "gpipe bench kernels: %s, %zu B: %s\n", v.name, es,
                        cudaGetErrorString(cudaGetLastError()));
                break;
            }
            Row r{v.name, ms, 2.0 * mb / (ms * 1e6), 0, 0, true};
            r.pct = 100.0 * r.gbps / s.copy;
            gp_cuda_tile_group_bytes(0);
            if ((rc = check(c, rows, cols, es, &r.bad))) break;
            s.rows.push_back(r);
        }
        gp_cuda_tile_group_bytes(0);
        if (rc) break;
        if (c.blas.h && (es == 4 || es == 8) && (!match || strstr(match, "cublas"))) {
            /* row-major rows x cols = column-major cols x rows (lda = cols); C = A^T is
             * column-major rows x cols (ldc = rows) = row-major cols x rows. */
            const float f1 = 1.f, f0 = 0.f;
            const double d1 = 1.0, d0 = 0.0;
            CK(cudaMemset(c.dst, 0xA5, mb));
            const int m = (int)rows, nn = (int)cols;
            k_fill<<<132 * 16, 256>>>((uint32_t *)c.src, mb / 4, (uint32_t)es * 7919u, 1);
            CK(cudaGetLastError());
            if ((rc = time_median(c, [&] {
                     cublasStatus_t st =
                         es == 4 ? c.blas.sgeam(c.blas.h, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &f1,
                                               (const float *)c.src, nn, &f0,
                                               (const float *)c.dst, m, (float *)c.dst, m)
                                 : c.blas.dgeam(c.blas.h, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &d1,
                                               (const double *)c.src, nn, &d0,
                                               (const double *)c.dst, m, (double *)c.dst, m);
                     return st != CUBLAS_STATUS_SUCCESS;
                 }, &ms)))
                break;
            Row r{es == 4 ? "cublas-sgeam" : "cublas-dgeam", ms, 2.0 * mb / (ms * 1e6), 0, 0,
                  true};
            r.pct = 100.0 * r.gbps / s.copy;
            if ((rc = check(c, rows, cols, es, &r.bad))) break;
            s.rows.push_back(r);
        }
        /* the ceiling again, to show the run-to-run spread */
        if ((rc = time_median(c, [&] {
                 return cudaMemcpyAsync(c.dst, c.src, mb, cudaMemcpyDeviceToDevice) !=
                        cudaSuccess;
             }, &ms)))
            break;
        s.rows.push_back({"copy#2", ms, 2.0 * mb / (ms * 1e6), 0, 0, false});
        s.rows.back().pct = 100.0 * s.rows.back().gbps / s.copy;

        printf("\nesize %zu B: %zu x %zu (%.2f GiB), default = %s\n", es, rows, cols,
               mb / 1073741824.0, gp_cuda_layout_name(gp_cuda_default_layout(es)));
        printf("  %-20s %9s %9s %8s  %s\n", "variant", "ms", "GB/s", "%copy", "check");
        for (const Row &r : s.rows) {
            printf("  %-20s %9.3f %9.1f %7.1f%%  %s\n", r.name, r.ms, r.gbps, r.pct,
                   !r.checked ? "-" : r.bad ? "MISMATCH" : "ok");
            emit(c, es, rows, cols, r, s.copy);
            if (r.checked && r.bad) {
                fprintf(stderr, "gpipe bench kernels: %s, %zu B: %llu wrong elements\n", r.name,
                        es, r.bad);
                rc = 2;
            }
        }
        all.push_back(s);
    }
    if (!all.empty()) {
        const char *cols_[] = {"naive", "none", "pad", "swizzle", "default", "cublas"};
        printf("\nsummary (GB/s and %% of the copy measured in the same run)\n");
        printf("%-6s %8s", "esize", "copy");
        for (const char *h : cols_) printf(" %15s", h);
        printf("  best\n");
        for (const Summary &s : all) {
            printf("%-6zu %8.0f", s.es, s.copy);
            for (const char *h : cols_) {
                const Row *f = nullptr;
                for (const Row &r : s.rows)
                    if (!strcmp(r.name, h) || (!strcmp(h, "cublas") && !strncmp(r.name, h, 6)))
                        f = &r;
                if (f)
                    printf(" %7.0f (%4.1f%%)", f->gbps, f->pct);
                else
                    printf(" %15s", "-");
            }
            const Row *b = nullptr;
            for (const Row &r : s.rows)
                if (r.checked && strncmp(r.name, "cublas", 6) && (!b || r.gbps > b->gbps)) b = &r;
            if (b) printf("  %s %.1f%%", b->name, b->pct);
            printf("\n");
        }
    }
    blas_close(c.blas);
    cudaEventDestroy(c.e0);
    cudaEventDestroy(c.e1);
    cudaFree(c.bad);
    cudaFree(c.src);
    cudaFree(c.dst);
    if (c.json && c.json != stdout) fclose(c.json);
    return rc ? 2 : 0;
}
