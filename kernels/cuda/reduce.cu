/* kernels/cuda/reduce.cu — CUDA panel kernels of `gpipe reduce` with the same contracts and bits
 * as kernels/cpu/reduce.c: every exact sum ends up as integer limbs of the pipeline/xacc.h
 * superaccumulator (two-term TwoSum expansions per thread in front, spills and flushes by
 * integer atomics: order-independent), rounded once on the host by the same code as the CPU.
 *   all:  grid-stride loop with 16-byte loads, per-thread expansions merged across the warp with
 *         __shfl_down_sync, one shared-memory superaccumulator per block, then global atomics.
 *   cols: threads across columns (coalesced, 16-byte loads when rows are 16-byte aligned),
 *         blocks splitting rows; per-thread expansions flushed into the column's limbs.
 *   rows: one warp per row, lanes stride the row, expansions merged by shuffles into a per-warp
 *         shared superaccumulator, normalised and written out per row.
 * Extrema use the same unsigned keys as the CPU (warp shuffles, atomicMin/atomicMax). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "pipeline/reduce.h"
#include "pipeline/status.h"

typedef unsigned long long ull;

// kernels ------------------------------------------------------------------------------------------

/* Atomic versions of gp_xdep_m / gp_xdep_d (two's-complement wrap-around makes unsigned
 * atomicAdd a signed add). Works on shared or global limbs. */
__device__ __forceinline__ void adep_m(ull *limb, int pos, ull m, int neg)
{
    if (pos < 0) { m = -pos >= 64 ? 0 : m >> -pos; pos = 0; }
    if (!m) return;
    int i = pos >> 5, sh = pos & 31;
    long long d0 = (long long)((m << sh) & 0xffffffffull);
    long long d1 = (long long)((sh ? (m >> (32 - sh)) : (m >> 32)) & 0xffffffffull);
    long long d2 = (long long)(sh ? (m >> (64 - sh)) : 0);
    if (neg) { d0 = -d0; d1 = -d1; d2 = -d2; }
    if (d0) atomicAdd(limb + i, (ull)d0);
    if (d1) atomicAdd(limb + i + 1, (ull)d1);
    if (d2) atomicAdd(limb + i + 2, (ull)d2);
}
__device__ __forceinline__ void adep_d(ull *limb, int lo, double x)
{
    ull b = (ull)__double_as_longlong(x);
    int e = (int)((b >> 52) & 0x7ff);
    ull m = b & 0xfffffffffffffull;
    if (e) m |= 1ull << 52;
    if (!m) return;
    adep_m(limb, (e ? e - 1 : 0) - (lo + 1074), m, (int)(b >> 63));
}
/* TwoSum expansion add (same algorithm as gp_xexp_add), spills by atomics. */
__device__ __forceinline__ void exp_add(double *a, double x, ull *limb, int lo)
{
#pragma unroll
    for (int k = 0; k < GP_XK; k++) {
        double s = __dadd_rn(a[k], x);
        double bp = __dsub_rn(s, a[k]);
        double err = __dadd_rn(__dsub_rn(a[k], __dsub_rn(s, bp)), __dsub_rn(x, bp));
        if (isinf(s)) { adep_d(limb, lo, a[k]); adep_d(limb, lo, x); a[k] = 0; return; }
        a[k] = s;
        x = err;
        if (x == 0) return;
    }
    adep_d(limb, lo, x);
}
__device__ __forceinline__ void exp_flush(double *a, ull *limb, int lo)
{
#pragma unroll
    for (int k = 0; k < GP_XK; k++) { if (a[k] != 0) adep_d(limb, lo, a[k]); a[k] = 0; }
}

/* Per-thread state of an exact sum: floats -> expansion + NaN/Inf counts; integers -> a
 * 192-bit two's-complement partial sum (w0, w1, w2). */
struct TState {
    double a[GP_XK];
    ull w0, w1, w2;
    long long sp[3];
};
__device__ __forceinline__ void ts_init(TState &s)
{
    for (int k = 0; k < GP_XK; k++) s.a[k] = 0;
    s.w0 = s.w1 = s.w2 = 0;
    s.sp[0] = s.sp[1] = s.sp[2] = 0;
}
__device__ __forceinline__ void add128(TState &s, ull lo, ull hi)   /* unsigned 128-bit add */
{
    ull o0 = s.w0;
    s.w0 += lo;
    ull c = s.w0 < o0;
    ull o1 = s.w1;
    s.w1 += hi + c;
    s.w2 += (s.w1 < o1 || (c && hi + c == 0)) ? 1 : 0;
}
__device__ __forceinline__ void adds64(TState &s, long long v)
{
    ull ext = v < 0 ? ~0ull : 0;
    ull o0 = s.w0;
    s.w0 += (ull)v;
    ull c = s.w0 < o0;
    ull o1 = s.w1;
    s.w1 += ext + c;
    ull c1 = (s.w1 < o1) || (c && ext + c == 0);
    s.w2 += ext + c1;
}

template <typename T> struct Elem;
template <> struct Elem<float> { static constexpr int F = 1, U = 0, W = 0; };
template <> struct Elem<double> { static constexpr int F = 1, U = 0, W = 0; };
template <> struct Elem<int8_t> { static constexpr int F = 0, U = 0, W = 0; };
template <> struct Elem<int16_t> { static constexpr int F = 0, U = 0, W = 0; };
template <> struct Elem<int32_t> { static constexpr int F = 0, U = 0, W = 0; };
template <> struct Elem<int64_t> { static constexpr int F = 0, U = 0, W = 1; };
template <> struct Elem<uint8_t> { static constexpr int F = 0, U = 1, W = 0; };
template <> struct Elem<uint16_t> { static constexpr int F = 0, U = 1, W = 0; };
template <> struct Elem<uint32_t> { static constexpr int F = 0, U = 1, W = 0; };
template <> struct Elem<uint64_t> { static constexpr int F = 0, U = 1, W = 1; };

/* One element into the thread state; spills into limb (shared or global). */
template <typename T>
__device__ __forceinline__ void ts_add(TState &s, T v, int sq, ull *limb, int lo)
{
    if (Elem<T>::F) {
        double d = (double)v;
        ull b = (ull)__double_as_longlong(d);
        if ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull) {
            if (b & 0xFFFFFFFFFFFFFull) s.sp[0]++;
            else if ((b >> 63) && !sq) s.sp[2]++;
            else s.sp[1]++;
            return;
        }
        if (sq) {
            d = __dmul_rn(d, d);
            if (isinf(d)) { s.sp[1]++; return; }
        }
        exp_add(s.a, d, limb, lo);
    } else {
        if (!sq) {
            if (Elem<T>::U) add128(s, (ull)v, 0);
            else adds64(s, (long long)v);
        } else {
            ull m = Elem<T>::U ? (ull)v : ((long long)v < 0 ? 0ull - (ull)(long long)v : (ull)(long long)v);
            add128(s, m * m, __umul64hi(m, m));
        }
    }
}

/* Thread state into limb (+ specials at limb[nl..nl+2]). */
__device__ __forceinline__ void ts_flush(TState &s, ull *limb, gp_xfmt f, int isf)
{
    if (isf) {
        exp_flush(s.a, limb, f.lo);
        for (int i = 0; i < 3; i++)
            if (s.sp[i]) atomicAdd(limb + f.nl + i, (ull)s.sp[i]);
    } else {
        ull w0 = s.w0, w1 = s.w1, w2 = s.w2;
        int neg = (long long)w2 < 0;
        if (neg) {  /* 192-bit negate */
            w0 = ~w0; w1 = ~w1; w2 = ~w2;
            w0 += 1;
            if (w0 == 0) { w1 += 1; if (w1 == 0) w2 += 1; }
        }
        adep_m(limb, 0, w0, neg);
        adep_m(limb, 64, w1, neg);
        adep_m(limb, 128, w2, neg);
    }
    ts_init(s);
}

/* Warp merge of thread states (floats: expansions added by TwoSum; integers: 192-bit adds);
 * lane 0 ends with the warp's state. Only the lanes of the halving tree (lane < off) add, so
 * every spill made on the way belongs to lane 0's total exactly once; the other lanes' states
 * are consumed by their readers and must not be flushed. */
__device__ __forceinline__ void ts_warp_merge(TState &s, ull *limb, int lo, int isf)
{
    for (int off = 16; off > 0; off >>= 1) {
        if (isf) {
            double o[GP_XK];
            for (int k = 0; k < GP_XK; k++) o[k] = __shfl_down_sync(0xffffffffu, s.a[k], off);
            for (int i = 0; i < 3; i++) s.sp[i] += __shfl_down_sync(0xffffffffu, s.sp[i], off);
            if ((threadIdx.x & 31) < off)
                for (int k = 0; k < GP_XK; k++)
                    if (o[k] != 0) exp_add(s.a, o[k], limb, lo);
        } else {
            ull o0 = __shfl_down_sync(0xffffffffu, s.w0, off);
            ull o1 = __shfl_down_sync(0xffffffffu, s.w1, off);
            ull o2 = __shfl_down_sync(0xffffffffu, s.w2, off);
            if ((threadIdx.x & 31) < off) {
                ull p0 = s.w0;
                s.w0 += o0;
                ull c = s.w0 < p0;
                ull p1 = s.w1;
                s.w1 += o1 + c;
                ull c1 = (s.w1 < p1) || (c && o1 + c == 0);
                s.w2 += o2 + c1;
            }
        }
    }
}

/* 16-byte vector of T */
template <typename T> struct V16 { T v[16 / sizeof(T)]; };

/* axis all: grid-stride over n elements (base 256-byte aligned from cudaMalloc). */
template <typename T>
__global__ void k_sum_all(const T *__restrict__ x, size_t n, int sq, gp_xfmt f, ull *gacc)
{
    extern __shared__ ull sh[];              /* nl limbs + 3 specials */
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F;
    for (int i = threadIdx.x; i < w; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    TState s;
    ts_init(s);
    const int VEC = 16 / sizeof(T);
    size_t nv = n / VEC, tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    const V16<T> *xv = reinterpret_cast<const V16<T> *>(x);
    for (size_t i = tid; i < nv; i += stride) {
        V16<T> v = xv[i];
#pragma unroll
        for (int j = 0; j < VEC; j++) ts_add<T>(s, v.v[j], sq, sh, f.lo);
    }
    for (size_t i = nv * VEC + tid; i < n; i += stride) ts_add<T>(s, x[i], sq, sh, f.lo);
    ts_warp_merge(s, sh, f.lo, isf);
    if ((threadIdx.x & 31) == 0) ts_flush(s, sh, f, isf);
    __syncthreads();
    for (int i = threadIdx.x; i < w; i += blockDim.x)
        if (sh[i]) atomicAdd(gacc + i, sh[i]);
}

/* axis cols: thread = VEC consecutive columns, blockIdx.y = a slice of rows. */
template <typename T, int VEC>
__global__ void k_sum_cols(const T *__restrict__ x, size_t rows, size_t cols, size_t rows_per_block, int sq,
                           gp_xfmt f, ull *gacc)
{
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F;
    size_t c0 = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * VEC;
    if (c0 >= cols) return;
    size_t r0 = blockIdx.y * rows_per_block, r1 = r0 + rows_per_block < rows ? r0 + rows_per_block : rows;
    TState s[VEC];
    for (int j = 0; j < VEC; j++) ts_init(s[j]);
    for (size_t r = r0; r < r1; r++) {
        const T *p = x + r * cols + c0;
        if (VEC > 1 && c0 + VEC <= cols) {
            V16<T> v = *reinterpret_cast<const V16<T> *>(p);
#pragma unroll
            for (int j = 0; j < VEC; j++) ts_add<T>(s[j], v.v[j], sq, gacc + (c0 + j) * w, f.lo);
        } else {
            for (int j = 0; j < VEC && c0 + j < cols; j++) ts_add<T>(s[j], p[j], sq, gacc + (c0 + j) * w, f.lo);
        }
    }
    for (int j = 0; j < VEC && c0 + j < cols; j++) ts_flush(s[j], gacc + (c0 + j) * w, f, isf);
}

/* axis rows: one warp per row; per-warp shared superaccumulator; writes normalised limbs. */
template <typename T>
__global__ void k_sum_rows(const T *__restrict__ x, size_t rows, size_t cols, int sq, gp_xfmt f, long long *out)
{
    extern __shared__ ull sh[];
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F, lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    ull *acc = sh + (size_t)wib * w;
    size_t nwarps = (size_t)gridDim.x * (blockDim.x >> 5);
    for (int i = lane; i < w; i += 32) acc[i] = 0;
    __syncwarp();
    for (size_t r = blockIdx.x * (size_t)(blockDim.x >> 5) + wib; r < rows; r += nwarps) {
        TState s;
        ts_init(s);
        const T *p = x + r * cols;
        for (size_t c = lane; c < cols; c += 32) ts_add<T>(s, p[c], sq, acc, f.lo);
        ts_warp_merge(s, acc, f.lo, isf);
        if (lane == 0) ts_flush(s, acc, f, isf);
        __syncwarp();
        if (lane == 0) {   /* carry-normalise (same as gp_xnorm) */
            long long *l = reinterpret_cast<long long *>(acc);
            for (int i = 0; i < f.nl - 1; i++) {
                long long c = l[i] >> 32;
                l[i] -= (long long)((ull)c << 32);
                l[i + 1] += c;
            }
        }
        __syncwarp();
        for (int i = lane; i < w; i += 32) {
            out[r * w + i] = (long long)acc[i];
            acc[i] = 0;
        }
        __syncwarp();
    }
}

/* carry-normalise n accumulators of w words (one thread each) */
__global__ void k_norm(long long *acc, size_t n, int nl, int w)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= n) return;
    long long *l = acc + t * w;
    for (int i = 0; i < nl - 1; i++) {
        long long c = l[i] >> 32;
        l[i] -= (long long)((ull)c << 32);
        l[i + 1] += c;
    }
}

/* ---- extrema ---- */
template <typename T>
__device__ __forceinline__ int ext_key(T v, gp_rkind k, ull *key)
{
    if (Elem<T>::F) {
        double d = (double)v;
        if (d != d) return 0;
        *key = gp_key_d(k == GP_RK_ABSMAX ? fabs(d) : d);
    } else if (Elem<T>::U) {
        *key = (ull)v;
    } else {
        long long s = (long long)v;
        *key = k == GP_RK_ABSMAX ? (s < 0 ? 0ull - (ull)s : (ull)s) : gp_key_i(s);
    }
    return 1;
}
__device__ __forceinline__ ull kfold(ull a, ull b, int mn) { return mn ? (b < a ? b : a) : (b > a ? b : a); }

template <typename T>
__global__ void k_ext_all(const T *__restrict__ x, size_t n, gp_rkind k, ull *key, ull *nan)
{
    int mn = k == GP_RK_MIN;
    ull kk = mn ? ~0ull : 0ull, nn = 0, e;
    const int VEC = 16 / sizeof(T);
    size_t nv = n / VEC, tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    const V16<T> *xv = reinterpret_cast<const V16<T> *>(x);
    for (size_t i = tid; i < nv; i += stride) {
        V16<T> v = xv[i];
#pragma unroll
        for (int j = 0; j < VEC; j++) {
            if (ext_key<T>(v.v[j], k, &e)) kk = kfold(kk, e, mn); else nn++;
        }
    }
    for (size_t i = nv * VEC + tid; i < n; i += stride) {
        if (ext_key<T>(x[i], k, &e)) kk = kfold(kk, e, mn); else nn++;
    }
    for (int off = 16; off > 0; off >>= 1) {
        kk = kfold(kk, __shfl_down_sync(0xffffffffu, kk, off), mn);
        nn += __shfl_down_sync(0xffffffffu, nn, off);
    }
    if ((threadIdx.x & 31) == 0) {
        if (mn) atomicMin(key, kk); else atomicMax(key, kk);
        if (nn) atomicAdd(nan, nn);
    }
}

template <typename T>
__global__ void k_ext_cols(const T *__restrict__ x, size_t rows, size_t cols, size_t rows_per_block, gp_rkind k,
                           ull *key, ull *nan)
{
    int mn = k == GP_RK_MIN;
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (c >= cols) return;
    size_t r0 = blockIdx.y * rows_per_block, r1 = r0 + rows_per_block < rows ? r0 + rows_per_block : rows;
    ull kk = mn ? ~0ull : 0ull, nn = 0, e;
    for (size_t r = r0; r < r1; r++) {
        if (ext_key<T>(x[r * cols + c], k, &e)) kk = kfold(kk, e, mn); else nn++;
    }
    if (mn) atomicMin(key + c, kk); else atomicMax(key + c, kk);
    if (nn) atomicAdd(nan + c, nn);
}

template <typename T>
__global__ void k_ext_rows(const T *__restrict__ x, size_t rows, size_t cols, gp_rkind k, ull *key, ull *nan)
{
    int mn = k == GP_RK_MIN, lane = threadIdx.x & 31;
    size_t nwarps = (size_t)gridDim.x * (blockDim.x >> 5);
    for (size_t r = blockIdx.x * (size_t)(blockDim.x >> 5) + (threadIdx.x >> 5); r < rows; r += nwarps) {
        ull kk = mn ? ~0ull : 0ull, nn = 0, e;
        for (size_t c = lane; c < cols; c += 32) {
            if (ext_key<T>(x[r * cols + c], k, &e)) kk = kfold(kk, e, mn); else nn++;
        }
        for (int off = 16; off > 0; off >>= 1) {
            kk = kfold(kk, __shfl_down_sync(0xffffffffu, kk, off), mn);
            nn += __shfl_down_sync(0xffffffffu, nn, off);
        }
        if (lane == 0) {
            key[r] = kfold(key[r], kk, mn);
            nan[r] += nn;
        }
    }
}

// launchers ----------------------------------------------------------------------------------------

struct gp_cuda_reduce {
    int dev;
    int sms;
    cudaStream_t stream;
    void *d_in;
    size_t in_cap;
    long long *d_acc;
    size_t acc_cap;       /* bytes */
    long long *h_acc;     /* pinned staging for accumulators */
    size_t h_cap;
    char desc[160];
};

static int cuerr(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess) return 0;
    snprintf(err, errlen, "%s failed: %s", what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? GP_ENOMEM : GP_EDEVICE;
}
#define CK(call, what)                                          \
    do {                                                        \
        int rc_ = cuerr((call), what, err, errlen);             \
        if (rc_) return rc_;                                    \
    } while (0)

static int grow(void **p, size_t *cap, size_t need, int pinned, char *err, size_t errlen)
{
    if (need <= *cap) return 0;
    if (*p) { if (pinned) cudaFreeHost(*p); else cudaFree(*p); }
    *p = NULL;
    *cap = 0;
    if (pinned) CK(cudaMallocHost(p, need), "cudaMallocHost");
    else CK(cudaMalloc(p, need), "cudaMalloc");
    *cap = need;
    return 0;
}

extern "C" int gp_cuda_reduce_create(gp_cuda_reduce **out, int local_rank, char *err, size_t errlen)
{
    *out = NULL;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
        cudaGetLastError();
        snprintf(err, errlen, "no CUDA device visible");
        return GP_ENODEV;
    }
    gp_cuda_reduce *c = (gp_cuda_reduce *)calloc(1, sizeof *c);
    if (!c) return GP_ENOMEM;
    c->dev = local_rank % n;
    int rc = cuerr(cudaSetDevice(c->dev), "cudaSetDevice", err, errlen);
    if (!rc) rc = cuerr(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate", err, errlen);
    if (rc) { free(c); return rc; }
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, c->dev);
    c->sms = p.multiProcessorCount;
    snprintf(c->desc, sizeof c->desc, "cuda:%d %s (sm_%d%d)", c->dev, p.name, p.major, p.minor);
    *out = c;
    return 0;
}

extern "C" void gp_cuda_reduce_destroy(gp_cuda_reduce *c)
{
    if (!c) return;
    cudaSetDevice(c->dev);
    if (c->d_in) cudaFree(c->d_in);
    if (c->d_acc) cudaFree(c->d_acc);
    if (c->h_acc) cudaFreeHost(c->h_acc);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

extern "C" const char *gp_cuda_reduce_desc(gp_cuda_reduce *c) { return c ? c->desc : "cuda"; }

template <typename T>
static void launch_sum(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_raxis axis, gp_xfmt f,
                       long long *acc)
{
    const int w = f.nl + GP_XSPECIAL, bs = 256;
    ull *g = reinterpret_cast<ull *>(acc);
    if (axis == GP_AXIS_ALL) {
        size_t n = rows * cols;
        const size_t chunk = (size_t)1 << 28;   /* < 2^30 deposits per limb between normalisations */
        for (size_t s = 0; s < n; s += chunk) {
            size_t m = n - s < chunk ? n - s : chunk;
            size_t blocks = (m + bs * 16 - 1) / (bs * 16);
            size_t cap = (size_t)c->sms * 8;
            if (blocks > cap) blocks = cap;
            if (!blocks) blocks = 1;
            k_sum_all<T><<<(unsigned)blocks, bs, w * sizeof(ull), c->stream>>>(x + s, m, sq, f, g);
            k_norm<<<1, 32, 0, c->stream>>>(acc, 1, f.nl, w);
        }
    } else if (axis == GP_AXIS_COLS) {
        const int VEC = 16 / sizeof(T);
        int vec = (cols * sizeof(T)) % 16 == 0 && VEC > 1;
        size_t per = vec ? (size_t)bs * VEC : (size_t)bs;
        size_t bx = (cols + per - 1) / per;
        size_t want = (size_t)c->sms * 8, by = bx >= want ? 1 : (want + bx - 1) / bx;
        size_t rpb = (rows + by - 1) / by;
        if (rpb < 64) rpb = 64;            /* amortise the flush */
        by = (rows + rpb - 1) / rpb;
        if (by > 65535) { by = 65535; rpb = (rows + by - 1) / by; }
        dim3 grid((unsigned)bx, (unsigned)(by ? by : 1));
        if (vec) k_sum_cols<T, 16 / sizeof(T)><<<grid, bs, 0, c->stream>>>(x, rows, cols, rpb, sq, f, g);
        else k_sum_cols<T, 1><<<grid, bs, 0, c->stream>>>(x, rows, cols, rpb, sq, f, g);
        k_norm<<<(unsigned)((cols + 255) / 256), 256, 0, c->stream>>>(acc, cols, f.nl, w);
    } else {
        size_t warps = bs / 32, blocks = (rows + warps - 1) / warps, cap = (size_t)c->sms * 16;
        if (blocks > cap) blocks = cap;
        k_sum_rows<T><<<(unsigned)blocks, bs, warps * w * sizeof(ull), c->stream>>>(x, rows, cols, sq, f, acc);
    }
}

template <typename T>
static void launch_ext(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, gp_rkind k, gp_raxis axis, ull *key,
                       ull *nan)
{
    const int bs = 256;
    if (axis == GP_AXIS_ALL) {
        size_t n = rows * cols, blocks = (n + bs * 16 - 1) / (bs * 16), cap = (size_t)c->sms * 8;
        if (blocks > cap) blocks = cap;
        k_ext_all<T><<<(unsigned)(blocks ? blocks : 1), bs, 0, c->stream>>>(x, n, k, key, nan);
    } else if (axis == GP_AXIS_COLS) {
        size_t bx = (cols + bs - 1) / bs, want = (size_t)c->sms * 8, by = bx >= want ? 1 : (want + bx - 1) / bx;
        size_t rpb = (rows + by - 1) / by;
        if (rpb < 16) rpb = 16;
        by = (rows + rpb - 1) / rpb;
        if (by > 65535) { by = 65535; rpb = (rows + by - 1) / by; }
        k_ext_cols<T><<<dim3((unsigned)bx, (unsigned)(by ? by : 1)), bs, 0, c->stream>>>(x, rows, cols, rpb, k, key, nan);
    } else {
        size_t warps = bs / 32, blocks = (rows + warps - 1) / warps, cap = (size_t)c->sms * 16;
        if (blocks > cap) blocks = cap;
        k_ext_rows<T><<<(unsigned)blocks, bs, 0, c->stream>>>(x, rows, cols, k, key, nan);
    }
}

#define TYPE_SWITCH(t, CALL)                                                              \
    switch (t) {                                                                          \
    case GP_RT_I8: { typedef int8_t T; CALL; } break;                                     \
    case GP_RT_I16: { typedef int16_t T; CALL; } break;                                   \
    case GP_RT_I32: { typedef int32_t T; CALL; } break;                                   \
    case GP_RT_I64: { typedef int64_t T; CALL; } break;                                   \
    case GP_RT_U8: { typedef uint8_t T; CALL; } break;                                    \
    case GP_RT_U16: { typedef uint16_t T; CALL; } break;                                  \
    case GP_RT_U32: { typedef uint32_t T; CALL; } break;                                  \
    case GP_RT_U64: { typedef uint64_t T; CALL; } break;                                  \
    case GP_RT_F32: { typedef float T; CALL; } break;                                     \
    default: { typedef double T; CALL; } break;                                           \
    }

static int upload(gp_cuda_reduce *c, const void *buf, size_t bytes, char *err, size_t errlen)
{
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    if (grow(&c->d_in, &c->in_cap, bytes ? bytes : 16, 0, err, errlen)) return GP_ENOMEM;
    CK(cudaMemcpyAsync(c->d_in, buf, bytes, cudaMemcpyHostToDevice, c->stream), "cudaMemcpyAsync H2D");
    return 0;
}

extern "C" int gp_cuda_rsum(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                            gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen)
{
    if (rowval) {   /* rows of a float type: round each row's accumulator */
        size_t w = (size_t)f.nl + GP_XSPECIAL;
        int64_t *tmp = (int64_t *)calloc(rows ? rows * w : 1, 8);
        if (!tmp) return GP_ENOMEM;
        int rc = gp_cuda_rsum(c, buf, rows, cols, t, k, axis, f, tmp, NULL, err, errlen);
        for (size_t i = 0; !rc && i < rows; i++) rowval[i] = gp_xvalue(tmp + i * w, f);
        free(tmp);
        return rc;
    }
    size_t w = (size_t)f.nl + GP_XSPECIAL, es = gp_rtype_size(t);
    size_t ntarget = axis == GP_AXIS_ALL ? 1 : axis == GP_AXIS_ROWS ? rows : cols;
    size_t abytes = ntarget * w * sizeof(long long);
    int rc = upload(c, buf, rows * cols * es, err, errlen);
    if (rc) return rc;
    if (grow((void **)&c->d_acc, &c->acc_cap, abytes, 0, err, errlen)) return GP_ENOMEM;
    if (grow((void **)&c->h_acc, &c->h_cap, abytes, 1, err, errlen)) return GP_ENOMEM;
    CK(cudaMemsetAsync(c->d_acc, 0, abytes, c->stream), "cudaMemsetAsync");
    int sq = k == GP_RK_SQ;
    TYPE_SWITCH(t, launch_sum<T>(c, (const T *)c->d_in, rows, cols, sq, axis, f, c->d_acc));
    CK(cudaGetLastError(), "reduce kernel launch");
    CK(cudaMemcpyAsync(c->h_acc, c->d_acc, abytes, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    /* add into the caller's (normalised) accumulators, exactly, and renormalise */
    for (size_t i = 0; i < ntarget; i++) {
        int64_t *a = acc + i * w;
        const long long *d = c->h_acc + i * w;
        for (size_t j = 0; j < w; j++) a[j] += d[j];
        gp_xnorm(a, f.nl);
    }
    return 0;
}

extern "C" int gp_cuda_rext(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                            gp_raxis axis, uint64_t *key, int64_t *nan, char *err, size_t errlen)
{
    size_t es = gp_rtype_size(t), ntarget = axis == GP_AXIS_ALL ? 1 : axis == GP_AXIS_ROWS ? rows : cols;
    size_t bytes = 2 * ntarget * sizeof(ull);
    int rc = upload(c, buf, rows * cols * es, err, errlen);
    if (rc) return rc;
    if (grow((void **)&c->d_acc, &c->acc_cap, bytes, 0, err, errlen)) return GP_ENOMEM;
    if (grow((void **)&c->h_acc, &c->h_cap, bytes, 1, err, errlen)) return GP_ENOMEM;
    ull *h = reinterpret_cast<ull *>(c->h_acc), *dk = reinterpret_cast<ull *>(c->d_acc), *dn = dk + ntarget;
    for (size_t i = 0; i < ntarget; i++) { h[i] = key[i]; h[ntarget + i] = 0; }
    CK(cudaMemcpyAsync(dk, h, bytes, cudaMemcpyHostToDevice, c->stream), "cudaMemcpyAsync H2D");
    TYPE_SWITCH(t, launch_ext<T>(c, (const T *)c->d_in, rows, cols, k, axis, dk, dn));
    CK(cudaGetLastError(), "reduce kernel launch");
    CK(cudaMemcpyAsync(h, dk, bytes, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    for (size_t i = 0; i < ntarget; i++) { key[i] = h[i]; nan[i] += (int64_t)h[ntarget + i]; }
    return 0;
}

extern "C" int gp_cuda_rarg(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                            gp_rkind k, gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)row0; (void)t; (void)k; (void)axis; (void)key; (void)idx;
    snprintf(err, errlen, "argmin/argmax are not implemented on CUDA yet");
    return GP_ENODEV;
}
