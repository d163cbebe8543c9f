// kernels/cuda/map.cu — the job files' element-wise chain on the GPU (pipeline/map.h), bit for bit
// the CPU's (kernels/cpu/map.c): values travel as f64, x*a + b is __dmul_rn then __dadd_rn (never
// an FMA), f32 results round with __double2float_rn, integer casts round half to even (rint) and
// flag NaN / out-of-range values instead of wrapping.
//
// Per-column coefficients: one table of f64 (every vector of every affine op) uploaded once when
// the context is created, into __constant__ memory when it fits (64000 B) and nobody else holds
// it, and always into global memory for the read-only path (const __restrict__ + __ldg).
// Constant memory serves one address per warp per cycle: a broadcast when the warp's threads read
// the same coefficient (GP_CMAP_COLS: the buffer is the transposed panel, a row per column of A),
// serialised up to 32 ways when they read 32 different ones (GP_CMAP_ROWS: consecutive threads
// walk consecutive columns). The read-only cache has no such penalty. GP_CMAP_AUTO therefore uses
// constant memory for the COLS layout only; bench/bench_map.c measures both (bench/NOTES.md).
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/map.h"
#include "pipeline/status.h"

#define NCONST (GP_CMAP_CONST_BYTES / 8)
__constant__ double c_tab[NCONST];

namespace {

struct dop {
    int kind, to;
    int av, bv;          // offsets into the table, -1: scalar
    double a, b;
};
struct dchain {
    int in, in_swap, nops, out;
    dop ops[GP_MAP_MAXOPS];
};

__device__ __forceinline__ unsigned long long load_bits(const unsigned char *p, int size, int swap)
{
    unsigned long long u = 0;
    if (!swap) {
        switch (size) {
        case 1: return *p;
        case 2: return *(const unsigned short *)p;
        case 4: return *(const unsigned int *)p;
        default: return *(const unsigned long long *)p;
        }
    }
    for (int i = 0; i < size; i++) u = (u << 8) | p[i];
    return u;
}

__device__ __forceinline__ double load(const unsigned char *__restrict__ in, int t, int swap, size_t i)
{
    switch (t) {
    case GP_RT_I8: return (double)(signed char)in[i];
    case GP_RT_U8: return (double)in[i];
    case GP_RT_I16: return (double)(short)load_bits(in + 2 * i, 2, swap);
    case GP_RT_U16: return (double)(unsigned short)load_bits(in + 2 * i, 2, swap);
    case GP_RT_I32: return (double)(int)load_bits(in + 4 * i, 4, swap);
    case GP_RT_U32: return (double)(unsigned int)load_bits(in + 4 * i, 4, swap);
    case GP_RT_I64: return (double)(long long)load_bits(in + 8 * i, 8, swap);
    case GP_RT_U64: return (double)(unsigned long long)load_bits(in + 8 * i, 8, swap);
    case GP_RT_F32: return (double)__uint_as_float((unsigned int)load_bits(in + 4 * i, 4, swap));
    default: return __longlong_as_double((long long)load_bits(in + 8 * i, 8, swap));
    }
}

__device__ __forceinline__ void store(unsigned char *__restrict__ out, int t, size_t i, double x)
{
    switch (t) {
    case GP_RT_I8: ((signed char *)out)[i] = (signed char)x; break;
    case GP_RT_U8: out[i] = (unsigned char)x; break;
    case GP_RT_I16: ((short *)out)[i] = (short)x; break;
    case GP_RT_U16: ((unsigned short *)out)[i] = (unsigned short)x; break;
    case GP_RT_I32: ((int *)out)[i] = (int)x; break;
    case GP_RT_U32: ((unsigned int *)out)[i] = (unsigned int)x; break;
    case GP_RT_I64: ((long long *)out)[i] = (long long)x; break;
    case GP_RT_U64: ((unsigned long long *)out)[i] = (unsigned long long)x; break;
    case GP_RT_F32: ((float *)out)[i] = __double2float_rn(x); break;
    default: ((double *)out)[i] = x; break;
    }
}

__device__ __forceinline__ void int_range(int t, double *lo, double *hi)
{
    switch (t) {
    case GP_RT_I8: *lo = -128.0; *hi = 128.0; break;
    case GP_RT_I16: *lo = -32768.0; *hi = 32768.0; break;
    case GP_RT_I32: *lo = -2147483648.0; *hi = 2147483648.0; break;
    case GP_RT_I64: *lo = -9223372036854775808.0; *hi = 9223372036854775808.0; break;
    case GP_RT_U8: *lo = 0; *hi = 256.0; break;
    case GP_RT_U16: *lo = 0; *hi = 65536.0; break;
    case GP_RT_U32: *lo = 0; *hi = 4294967296.0; break;
    default: *lo = 0; *hi = 18446744073709551616.0; break;
    }
}

template <bool CONSTMEM>
__device__ __forceinline__ double coef(const double *__restrict__ tab, int off, size_t j)
{
    if (CONSTMEM) return c_tab[off + j];
    return __ldg(tab + off + j);
}

// 2-D grid-stride: y walks the buffer's rows, x its columns (coalesced). The coefficient index
// is the column of A: col0 + c (ROWS layout) or col0 + r (COLS layout, warp-uniform).
template <bool CONSTMEM, bool COLS>
__global__ void map_kernel(const dchain dc, const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                           size_t rows, size_t cols, size_t col0, const double *__restrict__ tab,
                           unsigned long long *bad)
{
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += (size_t)gridDim.x * blockDim.x) {
            size_t i = r * cols + c, j = col0 + (COLS ? r : c);
            double x = load(in, dc.in, dc.in_swap, i);
            for (int k = 0; k < dc.nops; k++) {
                const dop &op = dc.ops[k];
                if (op.kind == GP_MAPOP_AFFINE) {
                    double a = op.av >= 0 ? coef<CONSTMEM>(tab, op.av, j) : op.a;
                    double b = op.bv >= 0 ? coef<CONSTMEM>(tab, op.bv, j) : op.b;
                    x = __dadd_rn(__dmul_rn(x, a), b);
                    if (op.to == GP_RT_F32) x = (double)__double2float_rn(x);
                } else if (op.to == GP_RT_F32) {
                    x = (double)__double2float_rn(x);
                } else if (op.to != GP_RT_F64) {
                    double lo, hi, v = rint(x);
                    int_range(op.to, &lo, &hi);
                    if (!(v >= lo && v < hi)) {
                        atomicMin(bad, (unsigned long long)i);
                        v = 0;
                    }
                    x = v;
                }
            }
            store(out, dc.out, i, x);
        }
    }
}

gp_cuda_map *g_const_owner = NULL;   // the context whose coefficients are in c_tab

// local copies (gp_cuda is linked after gpipe_core: no calls back into it)
size_t tsize(int t)
{
    static const size_t s[GP_RT_N] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
    return t >= 0 && t < GP_RT_N ? s[t] : 0;
}

}  // namespace

struct gp_cuda_map {
    int device;
    gp_mapchain chain;    // host copy (vectors point to the caller's arrays: for error messages)
    dchain dc;
    double *d_tab;
    size_t tab_n;
    int use_const, has_const;
    cudaStream_t stream;
    unsigned long long *d_bad;
    void *d_in, *d_out;
    size_t cap_in, cap_out;
    char desc[160];
};

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (err) snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(e));
    return GP_EDEVICE;
}

extern "C" int gp_cuda_map_create(gp_cuda_map **out, const gp_mapchain *m, int device, gp_cmap_mode mode, char *err,
                                  size_t errlen)
{
    *out = NULL;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        if (err) snprintf(err, errlen, "no CUDA device is visible");
        return GP_ENODEV;
    }
    if (device < 0) cudaGetDevice(&device);
    if (device >= n) device %= n;
    cudaError_t ce = cudaSetDevice(device);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaSetDevice", err, errlen);
    gp_cuda_map *c = (gp_cuda_map *)calloc(1, sizeof *c);
    if (!c) return GP_ENOMEM;
    c->device = device;
    c->chain = *m;
    c->dc.in = m->in;
    c->dc.in_swap = m->in_swap && tsize(m->in) > 1;
    c->dc.nops = m->nops;
    c->dc.out = m->nops ? m->ops[m->nops - 1].to : m->in;
    size_t tab_n = 0;
    for (int k = 0; k < m->nops; k++)
        if (m->ops[k].kind == GP_MAPOP_AFFINE) tab_n += (m->ops[k].av ? m->cols : 0) + (m->ops[k].bv ? m->cols : 0);
    double *h = (double *)malloc((tab_n ? tab_n : 1) * sizeof(double));
    if (!h) { free(c); return GP_ENOMEM; }
    size_t off = 0;
    for (int k = 0; k < m->nops; k++) {
        const gp_mapop *op = &m->ops[k];
        dop *d = &c->dc.ops[k];
        d->kind = op->kind;
        d->to = op->to;
        d->a = op->a;
        d->b = op->b;
        d->av = d->bv = -1;
        if (op->kind != GP_MAPOP_AFFINE) continue;
        if (op->av) { memcpy(h + off, op->av, m->cols * sizeof(double)); d->av = (int)off; off += m->cols; }
        if (op->bv) { memcpy(h + off, op->bv, m->cols * sizeof(double)); d->bv = (int)off; off += m->cols; }
    }
    c->tab_n = tab_n;
    int rc = 0;
    if ((ce = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (ce = cudaMalloc((void **)&c->d_tab, (tab_n ? tab_n : 1) * sizeof(double))) != cudaSuccess ||
        (ce = cudaMalloc((void **)&c->d_bad, sizeof(unsigned long long))) != cudaSuccess ||
        (ce = cudaMemcpyAsync(c->d_tab, h, tab_n * sizeof(double), cudaMemcpyHostToDevice, c->stream)) != cudaSuccess ||
        (ce = cudaMemsetAsync(c->d_bad, 0xff, sizeof(unsigned long long), c->stream)) != cudaSuccess)
        rc = cuda_fail(ce, "uploading the map coefficients", err, errlen);
    int fits = tab_n <= NCONST;
    if (!rc && mode == GP_CMAP_CONST && (!fits || g_const_owner)) {
        if (err)
            snprintf(err, errlen, fits ? "constant memory is held by another map context"
                                       : "coefficient table (%zu B) does not fit in constant memory (%d B)",
                     tab_n * sizeof(double), GP_CMAP_CONST_BYTES);
        rc = GP_EINVAL;
    }
    if (!rc && mode != GP_CMAP_LDG && fits && !g_const_owner && tab_n) {
        ce = cudaMemcpyToSymbolAsync(c_tab, h, tab_n * sizeof(double), 0, cudaMemcpyHostToDevice, c->stream);
        if (ce != cudaSuccess) rc = cuda_fail(ce, "cudaMemcpyToSymbol", err, errlen);
        else { g_const_owner = c; c->has_const = 1; }
    }
    if (!rc && (ce = cudaStreamSynchronize(c->stream)) != cudaSuccess) rc = cuda_fail(ce, "map upload", err, errlen);
    free(h);
    if (rc) { gp_cuda_map_destroy(c); return rc; }
    c->use_const = c->has_const && (mode == GP_CMAP_CONST);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, device);
    snprintf(c->desc, sizeof c->desc, "cuda:%d %s, coefficients %zu B in %s", device, p.name, tab_n * sizeof(double),
             c->has_const ? "constant + global memory" : "global memory (read-only cache)");
    *out = c;
    return 0;
}

extern "C" void gp_cuda_map_destroy(gp_cuda_map *c)
{
    if (!c) return;
    cudaSetDevice(c->device);
    if (c->stream) cudaStreamSynchronize(c->stream);
    cudaFree(c->d_tab);
    cudaFree(c->d_bad);
    cudaFree(c->d_in);
    cudaFree(c->d_out);
    if (c->stream) cudaStreamDestroy(c->stream);
    if (g_const_owner == c) g_const_owner = NULL;
    free(c);
}

extern "C" int gp_cuda_map_uses_const(const gp_cuda_map *c) { return c && c->has_const; }
extern "C" const char *gp_cuda_map_desc(const gp_cuda_map *c) { return c ? c->desc : "none"; }

extern "C" int gp_cuda_map_apply_dev(gp_cuda_map *c, const void *d_in, void *d_out, size_t rows, size_t cols,
                                     size_t col0, gp_cmap_layout layout, int use_const, void *stream, char *err,
                                     size_t errlen)
{
    if (!rows || !cols) return 0;
    cudaStream_t s = stream ? (cudaStream_t)stream : c->stream;
    // AUTO: constant memory where a warp reads one coefficient (COLS) and the table is there
    int cm = use_const < 0 ? (c->has_const && layout == GP_CMAP_COLS) : use_const;
    if (cm && !c->has_const) {
        if (err) snprintf(err, errlen, "this map context does not hold the constant table");
        return GP_EINVAL;
    }
    if (cm && g_const_owner != c) {
        if (err) snprintf(err, errlen, "internal: constant table owner changed");
        return GP_EINTERNAL;
    }
    dim3 block(256), grid;
    size_t gx = (cols + 255) / 256;
    grid.x = (unsigned)(gx < 1024 ? gx : 1024);
    grid.y = (unsigned)(rows < 65535 ? rows : 65535);
    const unsigned char *in = (const unsigned char *)d_in;
    unsigned char *out = (unsigned char *)d_out;
    if (cm && layout == GP_CMAP_COLS) map_kernel<true, true><<<grid, block, 0, s>>>(c->dc, in, out, rows, cols, col0, c->d_tab, c->d_bad);
    else if (cm) map_kernel<true, false><<<grid, block, 0, s>>>(c->dc, in, out, rows, cols, col0, c->d_tab, c->d_bad);
    else if (layout == GP_CMAP_COLS) map_kernel<false, true><<<grid, block, 0, s>>>(c->dc, in, out, rows, cols, col0, c->d_tab, c->d_bad);
    else map_kernel<false, false><<<grid, block, 0, s>>>(c->dc, in, out, rows, cols, col0, c->d_tab, c->d_bad);
    cudaError_t ce = cudaGetLastError();
    if (ce != cudaSuccess) return cuda_fail(ce, "map kernel launch", err, errlen);
    return 0;
}

extern "C" int gp_cuda_map_check(gp_cuda_map *c, char *err, size_t errlen)
{
    cudaSetDevice(c->device);
    unsigned long long bad = ~0ull;
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce == cudaSuccess) ce = cudaMemcpy(&bad, c->d_bad, sizeof bad, cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) return cuda_fail(ce, "map kernel", err, errlen);
    if (bad != ~0ull) {
        cudaMemset(c->d_bad, 0xff, sizeof bad);
        if (err) snprintf(err, errlen, "a cast produced NaN or an out-of-range integer at element %llu of the buffer", bad);
        return GP_EINVAL;
    }
    return 0;
}

extern "C" int gp_cuda_map_apply_host(gp_cuda_map *c, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                                      char *err, size_t errlen)
{
    if (!rows || !cols) return 0;
    cudaError_t ce = cudaSetDevice(c->device);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaSetDevice", err, errlen);
    size_t nin = rows * cols * tsize(c->chain.in), nout = rows * cols * tsize(c->dc.out);
    if (nin > c->cap_in) {
        cudaFree(c->d_in);
        c->d_in = NULL;
        c->cap_in = 0;
        if ((ce = cudaMalloc(&c->d_in, nin)) != cudaSuccess) return cuda_fail(ce, "cudaMalloc (map input)", err, errlen);
        c->cap_in = nin;
    }
    if (nout > c->cap_out) {
        cudaFree(c->d_out);
        c->d_out = NULL;
        c->cap_out = 0;
        if ((ce = cudaMalloc(&c->d_out, nout)) != cudaSuccess) return cuda_fail(ce, "cudaMalloc (map output)", err, errlen);
        c->cap_out = nout;
    }
    if ((ce = cudaMemcpyAsync(c->d_in, in, nin, cudaMemcpyHostToDevice, c->stream)) != cudaSuccess)
        return cuda_fail(ce, "map: copy to the device", err, errlen);
    int rc = gp_cuda_map_apply_dev(c, c->d_in, c->d_out, rows, cols, col0, GP_CMAP_ROWS, -1, c->stream, err, errlen);
    if (rc) return rc;
    if ((ce = cudaMemcpyAsync(out, c->d_out, nout, cudaMemcpyDeviceToHost, c->stream)) != cudaSuccess)
        return cuda_fail(ce, "map: copy from the device", err, errlen);
    if ((ce = cudaStreamSynchronize(c->stream)) != cudaSuccess) return cuda_fail(ce, "map kernel", err, errlen);
    unsigned long long bad = ~0ull;
    if ((ce = cudaMemcpy(&bad, c->d_bad, sizeof bad, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cuda_fail(ce, "map: error flag", err, errlen);
    if (bad != ~0ull) {
        cudaMemset(c->d_bad, 0xff, sizeof bad);
        if (err)
            snprintf(err, errlen, "cast: NaN or a value out of the target type's range (panel row %llu, column %llu)",
                     bad / cols, col0 + bad % cols);
        return GP_EINVAL;
    }
    return 0;
}
