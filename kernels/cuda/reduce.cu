/* kernels/cuda/reduce.cu — CUDA panel kernels of `gpipe reduce` with the same contracts and bits
 * as kernels/cpu/reduce.c: every exact sum is the exact value rounded once (the pipeline/xacc.h
 * superaccumulator, or a two-term expansion proven exact, rounded by one IEEE addition), so the
 * result never depends on the backend, the kernel variant or the launch geometry.
 * Two sets of kernels, chosen by gp_cuda_reduce_tune / GP_CUDA_REDUCE (kernels=fast|legacy):
 *  - the first version ("legacy", below first): grid-stride sums with per-thread TwoSum
 *    expansions merged with __shfl_down_sync into shared/global superaccumulators, one warp per
 *    row, one thread per column slice; limbs for every target.
 *  - the second version ("fast", namespace fast, the default): see the comment there.
 * Entry points: gp_cuda_r{sum,ext,arg} for host panels (upload, kernels, download, merge), and
 * the same split into _dev (kernels on a device panel, no host copy) and _fetch for benchmarks. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#ifdef GP_CUDA_EMU
#include "kernels/cuda/emu.h"   /* CPU emulation for tests without a GPU (-DGPIPE_CUDA_EMU=ON) */
#else
#include <cuda_runtime.h>
/* kernel<<<grid, block, smem, stream>>> spelt as a macro (the kernel last: template commas) so that
 * kernels/cuda/emu.h can run the same source on CPU threads */
#define GP_LAUNCH(g, b, s, st, ...) __VA_ARGS__<<<g, b, s, st>>>
#define GP_EXTERN_SHARED(T, name) extern __shared__ T name[]
#define GP_SHARED_ARRAY(T, name, n) __shared__ T name[n]
#endif
#include "pipeline/reduce.h"
#include "pipeline/rhash.h"
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
    unsigned sp[3];   /* NaN, +Inf, -Inf seen: 32 bits, as a warp reads far fewer than 2^32 elements a launch
                       * (64-bit counts held 3 more registers through the whole sum's loop) */
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

/* One element into the thread state; spills into limb (shared or global). sq: 0 the value, 1 its
 * square rounded to f64, 2 (floats) that square's rounding error; NaN into sp[0], +Inf (and any
 * infinite or overflowing square) into sp[1], -Inf into sp[2]. */
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
            const double p = __dmul_rn(d, d);
            if (isinf(p)) { s.sp[1]++; return; }
            /* sq == 2 (stats of f64): the square's rounding error fma(d, d, -p), exact */
#ifdef __CUDA_ARCH__
            d = sq == 2 ? __fma_rn(d, d, -p) : p;
#else
            d = sq == 2 ? fma(d, d, -p) : p;
#endif
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
 * lane 0 ends with the warp's state (lowest = C > 1: lanes l < C each with the state of the lanes
 * l mod C, spills into their own limb). Only the lanes of the halving tree (lane < off) add, so
 * every spill made on the way belongs to lane 0's total exactly once; the other lanes' states
 * are consumed by their readers and must not be flushed. */
__device__ __forceinline__ void ts_warp_merge(TState &s, ull *limb, int lo, int isf, int lowest = 1)
{
    for (int off = 16; off >= lowest; off >>= 1) {
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
    GP_EXTERN_SHARED(ull, sh);              /* nl limbs + 3 specials */
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
    GP_EXTERN_SHARED(ull, sh);
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

// fast kernels --------------------------------------------------------------------------------------
/* The second version (default; "kernels=fast"). Differences from the first (kept above as
 * "kernels=legacy", the reference for the benchmark and a fallback):
 *  - really 16-byte loads (A16 is 16-byte aligned: the first version's V16 has the element's
 *    alignment, so its "vector" loads may be split), U of them issued before any is used, blocks
 *    reading contiguous tiles, grids from the occupancy of each kernel;
 *  - f32 sums: the U x 4 elements of a thread's step (axes all and rows; U >= 8 rows of a column
 *    for cols, without runs) are added in double first when that is exact (their exponents within 29 - log2(4U) of
 *    each other: sumNf), and consecutive steps are added in double as long as all their elements
 *    together pass the same test (a Run, tuning batch=2, the default); a run costs one TwoSum
 *    when it ends, so for data of one scale the TwoSums vanish from the loop. batch=1: one TwoSum
 *    per step; batch=0 (the previous default) four elements at a time (sum4f: within 27); a step
 *    that fails every test goes element by element;
 *  - rows and cols of float types produce compact results instead of a superaccumulator per
 *    target: each row's exact sum rounded once on the device (a0 + a1 of an expansion that never
 *    spilled is exact, and one IEEE addition of two doubles is correctly rounded: the same bits as
 *    gp_xvalue), each column's exact panel sum as a double-double (hi, lo): hi for every column,
 *    lo only where it is not 0, as a list (lo-list below). A target whose two-term expansion
 *    would spill, or that holds a NaN/Inf, goes to an exception list and is recomputed by the
 *    exact superaccumulator kernels, so results never change, only the speed;
 *  - rows: G lanes per row (G = 1..32 from the row length), one thread per row for 16-byte rows;
 *    cols: a block covers CV column vectors x RS row lanes, so narrow matrices (4 columns) still
 *    use all threads; blocks split rows when there are too few column blocks, then a combine;
 *  - extrema of f32 on 32-bit keys; argmin/argmax as (key, index) pairs with a total order. */
namespace fast {

constexpr unsigned FULL = 0xffffffffu;
__device__ __forceinline__ double qnan() { return __longlong_as_double(0x7FF8000000000000LL); }

template <typename T> struct __align__(16) A16 { T v[16 / sizeof(T)]; };
template <typename T> union U16 { uint4 u; A16<T> a; };
/* One 16-byte read-only load (LDG.E.128.CONSTANT). No L2 prefetch-size hint: with
 * `ld.global.nc.L2::256B` (kept 2026-12-05 on H100 figures: column sums of 2^27 x 4 +3 points, the
 * rest equal) an H200 lost 8 points on the whole sum (0.98 -> 0.90x CUB) and 3-6 on most row and
 * column sums; bench/NOTES.md, twenty-fourth session. */
__device__ __forceinline__ uint4 ldg16(const void *p)
{
    return __ldg(reinterpret_cast<const uint4 *>(p));
}
template <typename T> __device__ __forceinline__ A16<T> ld16(const A16<T> *p)
{
    U16<T> x;
    x.u = ldg16(p);
    return x.a;
}
template <typename T> __device__ __forceinline__ A16<T> zero16()
{
    U16<T> x;
    x.u = make_uint4(0u, 0u, 0u, 0u);
    return x.a;
}
/* One step of U 16-byte loads: vectors i0 + u * step of base, u < U. whole (Tune::ug: every one of
 * them is below n) loads them from q (= base + i0, kept by the caller as a stepped pointer) with
 * 32-bit offsets and no bounds test; otherwise each index is tested and the ones at or past n read
 * as zeros (which add nothing). */
template <typename T, int U>
__device__ __forceinline__ void ld16_step(const A16<T> *q, bool whole, const A16<T> *base, size_t i0, unsigned step,
                                          size_t n, A16<T> (&v)[U])
{
    if (whole) {
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = ld16(q + (unsigned)u * step);
    } else {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = i0 + (size_t)u * step;
            v[u] = i < n ? ld16(base + i) : zero16<T>();
        }
    }
}

/* The U vectors of a thread in the block tile at b (vector b + u blockDim.x + threadIdx.x), each
 * loaded where it is below n (ok[u]) and zero where not: the extrema's grid-stride sweeps. */
template <typename T, int U>
__device__ __forceinline__ void ld16_tile(const A16<T> *xv, size_t b, size_t n, A16<T> (&v)[U], bool (&ok)[U])
{
#pragma unroll
    for (int u = 0; u < U; u++) {
        const size_t i = b + (size_t)u * blockDim.x + threadIdx.x;
        ok[u] = i < n;
        v[u] = ok[u] ? ld16(xv + i) : zero16<T>();
    }
}

/* a0 + a1 += x exactly (TwoSum twice). Returns false when it cannot stay exact in two terms (the
 * second error is not zero) or overflows (then the errors are NaN, also "not zero"). */
__device__ __forceinline__ bool two_add(double &a0, double &a1, double x)
{
    double s = __dadd_rn(a0, x);
    double bp = __dsub_rn(s, a0);
    double e = __dadd_rn(__dsub_rn(a0, __dsub_rn(s, bp)), __dsub_rn(x, bp));
    a0 = s;
    if (e == 0) return true;             /* also catches -0 */
    double s2 = __dadd_rn(a1, e);
    double bp2 = __dsub_rn(s2, a1);
    double e2 = __dadd_rn(__dsub_rn(a1, __dsub_rn(s2, bp2)), __dsub_rn(e, bp2));
    a1 = s2;
    return e2 == 0;                      /* NaN (overflow) compares unequal */
}
/* Merge expansion (b0, b1) into (a0, a1). */
__device__ __forceinline__ bool two_merge(double &a0, double &a1, double b0, double b1)
{
    bool ok = true;
    if (b0 != 0) ok = two_add(a0, a1, b0);
    if (ok && b1 != 0) ok = two_add(a0, a1, b1);
    return ok;
}

/* s = x[0] + ... + x[N-1] in double (in independent chains); true when the sum is exact: all finite
 * (a NaN or Inf makes s NaN or Inf) and the exponent fields (subnormals count as 1, zeros ignored)
 * within 29 - ceil(log2 N) of each other. Every value is then a multiple of 2^(Emin-150) below
 * 2^(Emax-126), so any partial sum of N of them fits 24 + (Emax-Emin) + log2 N <= 53 bits: the one
 * TwoSum per N elements that follows replaces one per 4 (sum4f), and the exponent test costs two
 * integer operations per element (__viaddmin_u32 and __vimax3_u32 are single DPX instructions on
 * sm_90). */
/* The exactness test of a double sum of n >= 2 floats whose absolute bit patterns have the maximum
 * mx and the minimum non-zero value mn + 1 (mn = ~0: all zero). */
__device__ __forceinline__ bool span_ok(unsigned mx, unsigned mn, unsigned n)
{
    const int emax = (int)(mx >> 23), emin = max((int)((mn + 1u) >> 23), 1);
    return mx < 0x7f800000u && emax - emin + (32 - __clz((int)(n - 1u))) <= 29;
}
/* Folds two floats into the largest absolute bit pattern mx and the smallest non-zero one less 1, mn */
__device__ __forceinline__ void span2(unsigned &mx, unsigned &mn, float a, float b)
{
    const unsigned u0 = __float_as_uint(a) & 0x7fffffffu, u1 = __float_as_uint(b) & 0x7fffffffu;
    mx = __vimax3_u32(mx, u0, u1);
    mn = __viaddmin_u32(u0, ~0u, mn);   /* min(u - 1): a zero wraps to the top and is ignored */
    mn = __viaddmin_u32(u1, ~0u, mn);
}
template <int N>
__device__ __forceinline__ double sumNf_raw(const float (&x)[N], unsigned &mx, unsigned &mn)
{
    static_assert(N % 2 == 0 && N >= 4, "sumNf: N even");
    mx = 0u;
    mn = ~0u;
    /* When the test passes every partial sum of the elements is exact, so the order of the
     * additions cannot change the result: CH independent chains keep CH doubles live (a pairwise
     * tree kept up to N: k_sum_rows<f32, 4> 70 -> 64 registers) */
    constexpr int CH = N >= 8 ? 4 : 2;
    double t[CH];
    /* (An exponent test on the high 16 bits, two elements a register, VIMNMX3 on 16-bit pairs,
     * 1.5 integer instructions an element instead of 2.5: the whole sum 0.88-0.90x CUB against
     * 1.00 on an H100, bench/NOTES.md thirty-second session; removed.) */
#pragma unroll
    for (int i = 0; i < N; i += 2) span2(mx, mn, x[i], x[i + 1]);
#pragma unroll
    for (int i = 0; i < CH; i++) t[i] = (double)x[i];
#pragma unroll
    for (int i = CH; i < N; i++) t[i % CH] = __dadd_rn(t[i % CH], (double)x[i]);
#pragma unroll
    for (int w = 1; w < CH; w *= 2)
#pragma unroll
        for (int i = 0; i + w < CH; i += 2 * w) t[i] = __dadd_rn(t[i], t[i + w]);
    return t[0];
}
template <int N>
__device__ __forceinline__ bool sumNf(const float (&x)[N], double &s)
{
    unsigned mx, mn;
    s = sumNf_raw<N>(x, mx, mn);
    return span_ok(mx, mn, N);
}
/* Four floats (batch=0, and the fallback of a step that fails the test): exponents within 27. */
__device__ __forceinline__ bool sum4f(float x0, float x1, float x2, float x3, double &s)
{
    const float x[4] = {x0, x1, x2, x3};
    return sumNf<4>(x, s);
}
/* A run: consecutive steps' exact sums added in plain double while the test above holds for all
 * the run's elements together (batch=2); flushed into the expansion by one TwoSum when the next
 * step would break it and at the end. For data of one scale a run lasts thousands of elements. */
struct Run {
    double s;
    unsigned mx, mn, n;
};
__device__ __forceinline__ void run_init(Run &r) { r.s = 0; r.mx = 0u; r.mn = ~0u; r.n = 0u; }
/* Adds a step of N floats to the run. Returns 1 when it went in; 0 when the run must be flushed
 * first (*flush = the run's sum) and the step then starts the new run; -1 when, besides, the step
 * alone is not exact (the run is reset: the caller adds the step element by element). */
template <int N>
__device__ __forceinline__ int run_add(Run &r, const float (&x)[N], double *flush)
{
    unsigned mx, mn;
    const double t = sumNf_raw<N>(x, mx, mn);
    const unsigned mx2 = max(r.mx, mx), mn2 = min(r.mn, mn);
    if (span_ok(mx2, mn2, r.n + N)) { r.s = __dadd_rn(r.s, t); r.mx = mx2; r.mn = mn2; r.n += N; return 1; }
    *flush = r.n ? r.s : 0.0;
    if (span_ok(mx, mn, N)) { r.s = t; r.mx = mx; r.mn = mn; r.n = N; return 0; }
    run_init(r);
    return -1;
}
/* batch=3: exactness by directed rounding instead of the exponent test. The N floats are summed in
 * double twice, every addition rounded down in one sum (lo) and up in the other (hi): rounding down
 * (up) is monotone, so lo <= the exact sum <= hi, and lo == hi (finite) proves that lo IS the exact
 * sum, whatever the order and whether any partial sum was rounded. F2F and two DADDs an element
 * against F2F, one DADD and ~2.5 integer operations for the exponent test, and it passes whenever
 * the exponent test does (then no addition rounds) and more often (it sees the actual bits). A run
 * (Run.s exact) takes a step when s + t rounded down equals s + t rounded up. NaN never compares
 * equal, an infinite sum is refused, and sums of f32 values cannot overflow a double. */
template <int N>
__device__ __forceinline__ bool sumNf_rr(const float (&x)[N], double &t)
{
    static_assert(N % 2 == 0 && N >= 4, "sumNf_rr: N even");
    double lo0 = (double)x[0], lo1 = (double)x[1], hi0 = lo0, hi1 = lo1;
#pragma unroll
    for (int i = 2; i < N; i += 2) {
        const double d0 = (double)x[i], d1 = (double)x[i + 1];
        lo0 = __dadd_rd(lo0, d0);
        hi0 = __dadd_ru(hi0, d0);
        lo1 = __dadd_rd(lo1, d1);
        hi1 = __dadd_ru(hi1, d1);
    }
    t = __dadd_rd(lo0, lo1);
    return t == __dadd_ru(hi0, hi1) && isfinite(t);
}
/* A step of N floats into a run (batch=3), as run_add: 1 it went in; 0 the run was flushed first
 * (*flush) and the step starts the new run; -1 the step alone is not exact (the run is reset). */
template <int N>
__device__ __forceinline__ int run_add_rr(Run &r, const float (&x)[N], double *flush)
{
    double t;
    if (sumNf_rr<N>(x, t)) {
        const double s = __dadd_rd(r.s, t);
        if (s == __dadd_ru(r.s, t)) { r.s = s; r.n += N; return 1; }
        *flush = r.n ? r.s : 0.0;
        r.s = t;
        r.n = N;
        return 0;
    }
    *flush = r.n ? r.s : 0.0;
    run_init(r);
    return -1;
}

/* The U vectors of a thread's step as one array of floats for sumNf. */
template <typename T, int U>
__device__ __forceinline__ void flat(const A16<T> (&v)[U], float (&f)[U * 16 / sizeof(T)])
{
    constexpr int VEC = 16 / sizeof(T);
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
        for (int j = 0; j < VEC; j++) f[u * VEC + j] = (float)v[u].v[j];
}

/* The f32 fast paths for one step (U vectors) of a thread, batch = 1 or 2 (RR: batch=3, the loop's
 * own copy). *out is a value the caller adds to its expansion (0: none): batch=1 the step's exact
 * sum; batch=2 and 3 a run that ended.
 * Returns false when the step itself was not added (the caller adds it element by element). */
template <typename T, int U, bool RR = false>
__device__ __forceinline__ bool step_f32(Run &run, const A16<T> (&v)[U], int batch, double *out)
{
    float fl[U * 16 / sizeof(T)];
    flat<T, U>(v, fl);
    *out = 0;
    if constexpr (RR) return run_add_rr<U * 16 / sizeof(T)>(run, fl, out) >= 0;
    if (batch == 2) return run_add<U * 16 / sizeof(T)>(run, fl, out) >= 0;
    double t;
    if (!sumNf<U * 16 / sizeof(T)>(fl, t)) return false;   /* t is not exact: never hand it out */
    *out = t;
    return true;
}

/* One element into an expansion that may not spill: NaN/Inf and spills set bad (the target then
 * goes to the exact fallback). Float types only. */
template <typename T>
__device__ __forceinline__ void fadd1(double &a0, double &a1, bool &bad, T v, int sq)
{
    double d = (double)v;
    if (!isfinite(d)) { bad = true; return; }
    if (sq) {
        d = __dmul_rn(d, d);
        if (isinf(d)) { bad = true; return; }
    }
    if (!two_add(a0, a1, d)) bad = true;
}
template <typename T>
__device__ __forceinline__ void fadd_vec(double &a0, double &a1, bool &bad, const A16<T> &v, int sq)
{
    constexpr int VEC = 16 / sizeof(T);
    if constexpr (std::is_same<T, float>::value) {
        if (!sq) {
            double s;
            if (sum4f(v.v[0], v.v[1], v.v[2], v.v[3], s)) {
                if (!two_add(a0, a1, s)) bad = true;
                return;
            }
        }
    }
#pragma unroll
    for (int j = 0; j < VEC; j++) fadd1<T>(a0, a1, bad, v.v[j], sq);
}
/* One vector into a thread state that spills into shared limbs (axis all, every type). */
template <typename T>
__device__ __forceinline__ void vadd_all(TState &s, const A16<T> &v, int sq, ull *sh, int lo)
{
    constexpr int VEC = 16 / sizeof(T);
    if constexpr (std::is_same<T, float>::value) {
        if (!sq) {
            double t;
            if (sum4f(v.v[0], v.v[1], v.v[2], v.v[3], t)) { exp_add(s.a, t, sh, lo); return; }
        }
    }
#pragma unroll
    for (int j = 0; j < VEC; j++) ts_add<T>(s, v.v[j], sq, sh, lo);
}

/* ---- sums ---- */

/* C columns of 16 / (C sizeof(T)) rows per 16-byte vector (C a power of two dividing VEC): element
 * j of every vector is column j mod C. Each group of C lanes exchanges its U vectors by shuffles
 * so that lane l holds only elements of column l, as many as before: rotated within each run of
 * C elements by l, element k + mC goes to lane (l + k) mod C, which sends back its own of column
 * l in the same slot (the order of the elements of a column does not matter to an exact sum). */
template <typename T, int U, int C>
__device__ __forceinline__ void col_exchange(A16<T> (&v)[U])
{
    constexpr int VEC = 16 / sizeof(T);
    static_assert(C > 1 && (C & (C - 1)) == 0 && VEC % C == 0, "col_exchange: C");
    const int l = threadIdx.x & (C - 1);
#pragma unroll
    for (int u = 0; u < U; u++) {
#pragma unroll
        for (int bit = 1; bit < C; bit <<= 1) {   /* r[i] = v[(i + l) mod C within each run of C] */
            T r[VEC];
#pragma unroll
            for (int i = 0; i < VEC; i++) r[i] = v[u].v[(i / C) * C + (i % C + bit) % C];
#pragma unroll
            for (int i = 0; i < VEC; i++) v[u].v[i] = (l & bit) ? r[i] : v[u].v[i];
        }
#pragma unroll
        for (int i = 0; i < VEC; i++)
            if (i % C) v[u].v[i] = __shfl_sync(FULL, v[u].v[i], (l - i % C) & (C - 1), C);
    }
}

/* atomicAdd with acquire-release semantics at GPU scope */
__device__ __forceinline__ ull atomic_add_acq_rel(ull *p, ull v)
{
#ifdef GP_CUDA_EMU
    return atomicAdd(p, v);
#else
    ull r;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(p), "l"(v) : "memory");
    return r;
#endif
}

#define GP_DYN_CTRS 32u   /* dyn's counters: one counter took ~2 ns an atomic (dyn=64: 0.66x CUB) */
#define GP_DYN_PITCH 16u  /* ... 16 ull (128 bytes) apart */
#define GP_DYN_SLOTS (GP_DYN_CTRS * GP_DYN_PITCH)   /* ull slots of one set of counters */
/* Words of a half of d_zacc (zscratch): four columns' limbs of the widest format, each with a block
 * counter, and dyn's counters (k_sum_all's layout for C <= 4, !ROWS) */
#define GP_ZW (4 * (GP_XNL_MAX + GP_XSPECIAL + 1) + GP_DYN_SLOTS)
/* the last block of a sweep leaves its counters zero for the next launch */
__device__ __forceinline__ void dyn_reset(ull *ctr)
{
    for (unsigned i = 0; i < GP_DYN_CTRS; i++) ctr[GP_DYN_PITCH * i] = 0;
}

/* The vectors [b0, nv) of xv in tiles of blockDim.x * U vectors, one tile every `stride` vectors
 * (gridDim.x tiles: a grid-stride sweep), into the thread state s (spills into the shared
 * superaccumulator sh): U loads in flight per thread, f32 steps added in runs of exact double sums
 * (step_f32). DYN (k_sum_all's sweeps, tuning dyn): instead, each warp walks units of 32 U contiguous
 * vectors (wc = 1's order), its static share grid-stride over the first nst units and then units
 * nst + c, nst + c + nc, ... as it asks for them from its counter c of nc = min(32, warps) (at
 * ctr + 16 c; counter = warp number mod nc, so each counter's warps are spread over the SMs). A
 * warp asks for its next unit before it loads this one, so the answer comes with the loads: SMs
 * that get more bandwidth take more of the end, and the loads end together. One loop for both (two
 * loops kept both states and spilled). The sum is exact: which warp adds which vector never shows. */
template <typename T, int U, int C, bool RR = false, bool DYN = false>
__device__ __forceinline__ void sum_tiles(TState &s, const A16<T> *xv, size_t nv, size_t b0, size_t stride, int sq,
                                          int batch, int ug, int wc, ull *sh, int lo, size_t nst = 0,
                                          ull *ctr = nullptr, unsigned ck = 0)
{
    Run run;
    run_init(run);
    auto add_step = [&](A16<T>(&v)[U]) {
        if constexpr (C > 1) col_exchange<T, U, C>(v);
        if constexpr (std::is_same<T, float>::value && U >= 2) {
            if (!sq && batch) {
                double t;
                const bool done = step_f32<T, U, RR>(run, v, batch, &t);
                if (t != 0) exp_add(s.a, t, sh, lo);
                if (done) return;
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) vadd_all<T>(s, v[u], sq, sh, lo);
    };
    if constexpr (DYN) {   /* unit numbers in 32 bits: one launch has at most 2^29 f32 (sum_chunk) */
        const unsigned lane = threadIdx.x & 31, wpb = blockDim.x >> 5, du = 32u * U, nu = (unsigned)(nv / du),
                       W = gridDim.x * wpb, gw = blockIdx.x * wpb + (threadIdx.x >> 5),
                       nc = W < GP_DYN_CTRS ? W : GP_DYN_CTRS, cq = gw % nc,
                       ns = (unsigned)nst + cq;   /* this warp's counter's units: ns + nc k (every counter has warps) */
        /* the static share in chunks of K units (tuning ck, a power of two; 0: K = wpb, the grid-stride
         * order): block b takes chunks b, b + G, ..., its warps the units of a chunk in turn */
        const unsigned K = ck > wpb ? ck : wpb, skip = (gridDim.x - 1) * K;
        ctr += cq * GP_DYN_PITCH;
        unsigned q = blockIdx.x * K + (threadIdx.x >> 5);
        if (q >= nst) {
            unsigned k = 0;
            if (lane == 0) k = (unsigned)atomicAdd(ctr, 1ull);
            q = ns + nc * __shfl_sync(0xffffffffu, k, 0);
        }
        while (q < nu) {
            unsigned nq = q + wpb, k = 0;
            if ((nq & (K - 1)) < wpb) nq += skip;   /* past this chunk: the block's next one */
            const bool ask = nq >= nst;   /* the same in the whole warp */
            if (ask && lane == 0) k = (unsigned)atomicAdd(ctr, 1ull);
            const size_t b = (size_t)q * du;
            A16<T> v[U];
            ld16_step<T, U>(xv + b + lane, true, xv, b + lane, 32u, nv, v);   /* whole units only */
            add_step(v);
            q = ask ? ns + nc * __shfl_sync(0xffffffffu, k, 0) : nq;
        }
    } else {
        const size_t tile = (size_t)blockDim.x * U;
        /* a thread's vectors of a tile: wc = 0 threadIdx.x + u blockDim.x (a warp's U loads 512 B each,
         * blockDim.x 16 B apart); wc = 1 its warp's 32 U vectors, lane + 32 u (a warp reads 512 U
         * contiguous bytes, as k_sum_rows_w's warps do) */
        const unsigned ofs = wc ? (threadIdx.x >> 5) * 32u * U + (threadIdx.x & 31) : threadIdx.x;
        const unsigned step = wc ? 32u : blockDim.x;
        const A16<T> *p = xv + b0 + ofs;
        for (size_t b = b0; b < nv; b += stride, p += stride) {
            A16<T> v[U];
            ld16_step<T, U>(p, ug && b + tile <= nv, xv, b + ofs, step, nv, v);
            add_step(v);
        }
    }
    if (run.n && run.s != 0) exp_add(s.a, run.s, sh, lo);
}

/* gp_xvalue of limbs in shared memory, as a call: inlined, its 544-byte limb array made the row
 * kernel (k_sum_all<f32, 8, true>) spill in its load loop under the 64 registers it shares with
 * k_sum_all<f32, 8, false> */
__device__ __noinline__ double xvalue_call(const ull *limbs, gp_xfmt f)
{
    return gp_xvalue(reinterpret_cast<const int64_t *>(limbs), f);
}

/* GP_TSTAMP (a diagnostic build of the bench only, bench/tstamp-build.sh; never the product): block
 * b of the whole sum stamps %globaltimer into gp_ts[k][b] at its start (k = 0), the end of its
 * loads (1), the end of its flush, fence and block count (2); the last block its finish (3, slot 0)
 * and its number + 1 (3, slot 1); the end of its limb atomics (4; fr=0: and the fence). */
#ifdef GP_TSTAMP
__device__ ull gp_ts[5][1 << 14];
__device__ __forceinline__ ull gtime()
{
    ull t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define GP_TS(k, slot)                                                                \
    do {                                                                              \
        if (!ROWS && C == 1 && threadIdx.x == 0 && (slot) < (1 << 14)) gp_ts[k][slot] = gtime(); \
    } while (0)
#else
#define GP_TS(k, slot) ((void)0)
#endif

/* axis all: grid-stride over tiles of blockDim.x * U vectors (one contiguous tile per block per
 * step), U loads in flight per thread, spills into a shared superaccumulator; the blocks' limbs
 * go by atomics into gacc. ROWS (few long rows, tuning rx): the same for each row, blockIdx.y =
 * row r of n elements at x + r * n (16-byte aligned), its blocks grid-striding over it with limbs
 * and a block counter in gacc + r (w + 1), and the last of them rounds the row into rout[r].
 * C > 1 (column sums of C columns, 16 / (C sizeof(T)) rows per vector, tuning cx): the n elements
 * as one sweep, lane l of each group of C lanes adding column l (col_exchange) into shared limbs
 * sh + l w, column c's limbs in gacc + c (w + 1) (the block counter in gacc[w]), and the last
 * block normalises column c into out + c w. !ROWS with out NULL (tuning fin=2, and the chunks of
 * fin=0): no last block, the limbs stay in gacc for the host. zo (!ROWS, not NULL): block 0 zeroes
 * those GP_ZW words at the start (the other half of d_zacc, zscratch). MB > 0: 256-thread blocks,
 * MB of them per SM (ptxas otherwise keeps these kernels at 64 registers). */
template <typename T, int U, bool ROWS, int C = 1, int MB = 0, bool DYN = false>
__global__ void __launch_bounds__(MB ? 256 : 512, MB)
    k_sum_all(const T *__restrict__ x, size_t n, int sq, int batch, int ug, int wc, int dyn, int fr, gp_xfmt f, ull *gacc,
              long long *out, double *rout, ull *zo)
{
    static_assert(!ROWS || C == 1, "k_sum_all: rows or columns");
    GP_EXTERN_SHARED(ull, sh);
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F;
    if constexpr (ROWS) x += blockIdx.y * n;
    if constexpr (!ROWS)   /* the other half of d_zacc, whole (the last launch's C and w may differ), zero for the
                            * next launch (zscratch) */
        if (zo && blockIdx.x == 0)
            for (unsigned i = threadIdx.x; i < GP_ZW; i += blockDim.x) zo[i] = 0;
    for (int i = threadIdx.x; i < C * w; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    GP_TS(0, blockIdx.x);
    ull *const mine = C > 1 ? sh + (threadIdx.x & (C - 1)) * w : sh;   /* this lane's column */
    TState s;
    ts_init(s);
    constexpr int VEC = 16 / sizeof(T);
    const size_t nv = n / VEC, tile = (size_t)blockDim.x * U;
    /* batch=3: the loop with the directed-rounding runs, a second copy of it (a run-time test inside
     * one loop made ptxas keep both tests' state: batch=2 lost 9 points on an H100) */
    const A16<T> *xv = reinterpret_cast<const A16<T> *>(x);
    /* DYN (batch 0-2): the last (dyn & 255) / 64 of the warps' whole units go to warps on demand, from
     * 32 counters after the limbs (of every row, each row's own); dyn >> 8: tuning ck (dyn_arg) */
    const size_t nwu = nv / (32u * U), nst = DYN ? nwu - nwu * (size_t)(dyn & 255) / 64 : 0,
                 nvw = DYN ? nwu * 32u * U : nv;
    ull *const ctr = DYN ? gacc + (ROWS ? gridDim.y : C) * (size_t)(w + 1) + (ROWS ? blockIdx.y : 0) * GP_DYN_SLOTS
                         : nullptr;
    if (!DYN && std::is_same<T, float>::value && batch == 3)
        sum_tiles<T, U, C, std::is_same<T, float>::value>(s, xv, nv, blockIdx.x * tile, (size_t)gridDim.x * tile, sq,
                                                          batch, ug, wc, mine, f.lo);
    else
        sum_tiles<T, U, C, false, DYN>(s, xv, nv, blockIdx.x * tile, (size_t)gridDim.x * tile, sq, batch, ug, wc, mine,
                                       f.lo, nst, ctr, (unsigned)dyn >> 8);
    /* the tail (DYN: the units are whole, the vectors after the last one are tail too) */
    if constexpr (C > 1) {   /* element i is column i mod C, and C divides nvw VEC */
        if (blockIdx.x == 0 && threadIdx.x < C)
            for (size_t i = nvw * VEC + threadIdx.x; i < n; i += C) ts_add<T>(s, x[i], sq, mine, f.lo);
    } else {
        for (size_t i = nvw * VEC + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
             i += (size_t)gridDim.x * blockDim.x)
            ts_add<T>(s, x[i], sq, sh, f.lo);
    }
    GP_TS(1, blockIdx.x);
    ts_warp_merge(s, mine, f.lo, isf, C);
    if ((threadIdx.x & 31) < C) ts_flush(s, mine, f, isf);
    __syncthreads();
    if constexpr (ROWS) gacc += blockIdx.y * (size_t)(w + 1);
    for (int i = threadIdx.x; i < C * w; i += blockDim.x)
        if (sh[i]) atomicAdd(gacc + i + (C > 1 ? i / w : 0), sh[i]);
    if (!ROWS && !out) return;
    /* the last block to finish (of the row) normalises the limbs into out (rounds them into
     * rout[r]) and leaves gacc (and its block counter gacc[w]) zero for the next call: no memset
     * and no k_norm launch before and after */
    GP_SHARED_ARRAY(int, last, 1);
    if (!fr) __threadfence();
    __syncthreads();
    GP_TS(4, blockIdx.x);
    /* fr=1: the count itself releases the block's limbs (ordered before it by the barrier) and
     * acquires the others', one trip to L2 instead of a fence, the count and a fence */
    if (threadIdx.x == 0) last[0] = (fr ? atomic_add_acq_rel(gacc + w, 1ull) : atomicAdd(gacc + w, 1ull)) == (ull)gridDim.x - 1;
    __syncthreads();
    GP_TS(2, blockIdx.x);
    if (!last[0]) return;
    if (!fr) __threadfence();
    for (int i = threadIdx.x; i < C * w; i += blockDim.x) sh[i] = atomicExch(gacc + i + (C > 1 ? i / w : 0), 0ull);
    __syncthreads();
    if constexpr (ROWS) {
        if (threadIdx.x == 0) {
            rout[blockIdx.y] = xvalue_call(sh, f);
            gacc[w] = 0;
            if constexpr (DYN) dyn_reset(ctr);
        }
        return;
    }
    if (threadIdx.x < C) {
        long long *l = reinterpret_cast<long long *>(sh) + threadIdx.x * w;
        for (int i = 0; i < f.nl - 1; i++) {   /* k_norm */
            long long cy = l[i] >> 32;
            l[i] -= (long long)((ull)cy << 32);
            l[i + 1] += cy;
        }
        if (threadIdx.x == 0) {
            gacc[w] = 0;
            if constexpr (DYN) dyn_reset(ctr);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < C * w; i += blockDim.x) out[i] = (long long)sh[i];
    GP_TS(3, 0);
#ifdef GP_TSTAMP
    if (!ROWS && C == 1 && threadIdx.x == 0) gp_ts[3][1] = blockIdx.x + 1;
#endif
}

__device__ __forceinline__ void push_exc(ull *cnt, unsigned *exc, size_t target)
{
    exc[atomicAdd(cnt, 1ull)] = (unsigned)target;
}

/* The lo-list of column results: hi[c] is written for every column c of n, its lo only where it
 * is not 0 (the sum of a few floats of one scale fits one double: 4 x 2^27 f32 wrote 1 GiB of
 * zeros). Slots k < cnt[1] of lo[k] hold the values; ((unsigned *)(lo + n))[k] = the column, except
 * in runs: run r < cnt[2] is ((unsigned *)(lo + n) + n)[4r .. 4r+2] = (first slot, first column,
 * count), the lo of that many consecutive columns (cnt[3]: slots in runs, so that the host knows
 * before reading the runs whether any column numbers are to be read) (zeros included; k_sum_cols writes a block's
 * lo that way when most are nonzero: 8 B a column instead of 12 B a nonzero lo). Any order (the
 * host adds each value into its column's limbs, exactly, so the order never shows). Runs: at
 * most one per block of k_sum_cols, whose blocks hold >= 32 columns or all of them: n / 32 + 1.
 * Every entry is written by put_lo (slot k: value, column) or put_run (a run's triple). */
__device__ __forceinline__ void put_lo(double *lo, size_t n, size_t k, size_t c, double v)
{
    lo[k] = v;
    reinterpret_cast<unsigned *>(lo + n)[k] = (unsigned)c;
}

/* a run of the lo-list: slots slot .. slot+m-1 hold the lo of columns c .. c+m-1 */
__device__ __forceinline__ void put_run(double *lo, size_t n, ull *cnt, ull slot, size_t c, size_t m)
{
    unsigned *r = reinterpret_cast<unsigned *>(lo + n) + n + 4 * atomicAdd(cnt + 2, 1ull);
    atomicAdd(cnt + 3, (ull)m);
    r[0] = (unsigned)slot;
    r[1] = (unsigned)c;
    r[2] = (unsigned)m;
    r[3] = 0;
}

/* nonzero lo of a warp's columns into the lo-list. Warp-uniform (every lane of the warp calls it):
 * one atomic per warp that has any. */
__device__ __forceinline__ void push_lo_warp(bool has, size_t c, double v, double *lo, size_t n, ull *cnt)
{
    const unsigned b = __ballot_sync(FULL, has);
    if (!b) return;
    const int lane = (int)(threadIdx.x & 31), lead = __ffs((int)b) - 1;
    ull base = 0;
    if (lane == lead) base = atomicAdd(cnt + 1, (ull)__popc(b));
    base = __shfl_sync(FULL, base, lead);
    if (has) {
        put_lo(lo, n, (size_t)base + (size_t)__popc(b & ((1u << lane) - 1u)), c, v);
    }
}

/* (a0, a1, bad) of groups of L lanes merged by a shuffle tree into their first lane (L <= 32, every lane of the warp takes part) */
__device__ __forceinline__ void combine_tree(int L, int gl, double &a0, double &a1, bool &bad)
{
    for (int off = L >> 1; off > 0; off >>= 1) {
        double b0 = __shfl_down_sync(FULL, a0, off, L), b1 = __shfl_down_sync(FULL, a1, off, L);
        int bb = __shfl_down_sync(FULL, (int)bad, off, L);
        if (gl < off) {
            if (bb) bad = true;
            else if (!bad && !two_merge(a0, a1, b0, b1)) bad = true;
        }
    }
}

/* A row as an unaligned head, 16-byte vectors and a tail; segment s of nseg takes the vectors
 * [vb, ve) (the head goes with segment 0, the tail with the last). */
struct RowSeg {
    size_t h, nv, vb, ve;
    bool head, tail;
};
template <typename T>
__device__ __forceinline__ RowSeg row_seg(const T *p, size_t cols, size_t s, size_t nseg)
{
    constexpr int VEC = 16 / sizeof(T);
    RowSeg g;
    size_t mis = (size_t)(reinterpret_cast<uintptr_t>(p) & 15) / sizeof(T);
    g.h = mis ? (size_t)VEC - mis : 0;
    if (g.h > cols) g.h = cols;
    g.nv = (cols - g.h) / VEC;
    size_t per = nseg == 1 ? g.nv : (g.nv + nseg - 1) / nseg;   /* no 64-bit division per short row */
    g.vb = s * per < g.nv ? s * per : g.nv;
    g.ve = g.vb + per < g.nv ? g.vb + per : g.nv;
    g.head = s == 0;
    g.tail = s + 1 == nseg;
    return g;
}

/* axis rows, float types: groups of G = 2^lg lanes per work item (a warp does 32/G items at a
 * time, every lane of the warp takes part in the shuffles); item = (row, segment), nseg segments
 * per row so that few long rows still fill the GPU. nseg = 1: out[r] = the exact row sum rounded,
 * or the row goes to the exception list (out[r] then written by k_rows_exact); nseg > 1: the
 * expansion of each segment into phi/plo[item] (NaN in phi: cannot be exact) for
 * k_combine. */
template <typename T, int U>
__global__ void __launch_bounds__(512) k_sum_rows(const T *__restrict__ x, size_t rows, size_t cols, int sq, int batch, int lg,
                                                  size_t nseg, int fm, int ug, int ri, double *out, double *phi,
                                                  double *plo, ull *cnt, unsigned *exc)
{
    if (batch == 3) batch = 2;   /* the directed-rounding runs are the whole-sum loop's (sum_tiles) */
    constexpr int VEC = 16 / sizeof(T);
    const int G = 1 << lg, lane = threadIdx.x & 31, gl = lane & (G - 1), gpw = 32 >> lg;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    const size_t nwarps = ((size_t)gridDim.x * blockDim.x) >> 5, items = rows * nseg;
    for (size_t i0 = warp * gpw; i0 < items; i0 += nwarps * gpw) {
        const size_t it = i0 + (lane >> lg), r = nseg == 1 ? it : it / nseg;
        double a0 = 0, a1 = 0;
        bool bad = false;
        Run run;
        run_init(run);
        if (it < items) {
            const T *p = x + r * cols;
            const size_t s = it - r * nseg, chunk = (size_t)G * U;
            const RowSeg g = row_seg(p, cols, s, nseg);
            const A16<T> *pv = reinterpret_cast<const A16<T> *>(p + g.h);
            /* ri: segment s is the row's chunks of G U vectors s, s + nseg, ... (the items of
             * neighbouring warps read neighbouring chunks, as the whole sum's blocks do); else
             * the contiguous vectors [vb, ve) */
            const size_t bb = ri ? s * chunk : g.vb, be = ri ? g.nv : g.ve, bst = ri ? nseg * chunk : chunk;
            if (g.head)
                for (size_t i = gl; i < g.h; i += G) fadd1<T>(a0, a1, bad, p[i], sq);
            for (size_t b = bb; b < be; b += bst) {
                A16<T> v[U];
                ld16_step<T, U>(pv + b + gl, ug && b + chunk <= be, pv, b + gl, G, be, v);
                if constexpr (std::is_same<T, float>::value && U >= 2) {
                    if (!sq && batch) {
                        double t;
                        const bool done = step_f32<T, U>(run, v, batch, &t);
                        if (t != 0 && !two_add(a0, a1, t)) bad = true;
                        if (done) continue;
                    }
                }
#pragma unroll
                for (int u = 0; u < U; u++) fadd_vec<T>(a0, a1, bad, v[u], sq);
            }
            if (g.tail)
                for (size_t i = g.h + g.nv * VEC + gl; i < cols; i += G) fadd1<T>(a0, a1, bad, p[i], sq);
        }
        if constexpr (std::is_same<T, float>::value && U >= 2) {
            /* fm: when every lane of the group has all its elements in its run (nothing flushed into
             * a0, a1) and the runs pass the span test together, every partial sum of the item is
             * exact in double: plain adds merge them, with the same bits as the expansion merge
             * below (-0 as +0, as there), for less: a full warp per 2 KiB row 0.44 -> 0.55x CUB, the
             * default 4 lanes 0.887 -> 0.893 (bench/NOTES.md, 2026-12-02) */
            if (fm && !sq && batch == 2) {
                unsigned mx = run.mx, mn = run.mn, n = run.n;
                double t = run.n ? run.s : 0.0;
                int clean = !bad && a0 == 0 && a1 == 0;
                for (int off = G >> 1; off > 0; off >>= 1) {
                    mx = max(mx, __shfl_down_sync(FULL, mx, off, G));
                    mn = min(mn, __shfl_down_sync(FULL, mn, off, G));
                    n += __shfl_down_sync(FULL, n, off, G);
                    t = __dadd_rn(t, __shfl_down_sync(FULL, t, off, G));
                    clean &= __shfl_down_sync(FULL, clean, off, G);
                }
                int ok = it >= items || (clean && n && span_ok(mx, mn, n));   /* valid in lane gl = 0 */
                ok = __shfl_sync(FULL, ok, 0, G);
                if (__all_sync(FULL, ok)) {
                    if (gl == 0 && it < items) {
                        t = __dadd_rn(t, 0.0);
                        if (nseg > 1) { phi[it] = t; plo[it] = 0; }
                        else out[r] = t;
                    }
                    continue;
                }
            }
        }
        if (run.n && run.s != 0 && !two_add(a0, a1, run.s)) bad = true;
        combine_tree(G, gl, a0, a1, bad);
        if (gl == 0 && it < items) {
            if (nseg > 1) { phi[it] = bad ? qnan() : a0; plo[it] = a1; }
            else if (bad) { out[r] = 0; push_exc(cnt, exc, r); }
            else out[r] = __dadd_rn(a0, a1);
        }
    }
}

/* The nseg partial expansions of each of n targets into the target's result, for rows and
 * columns alike: partial s of target t is (phi, plo)[t ts + s ss] (NaN in phi: cannot be exact).
 * L = 2^ll lanes per target (32 / L targets per warp); lane l takes partials l, l + L, ... four
 * loads at a time before their merges, then a shuffle tree over the L lanes. Any order: every
 * merge is exact or marks the target for the exact fallback, so the bits never depend on it.
 * hi == NULL (rows): out[t] = the rounded sum; else (columns) hi[t] = a0 and a1 to the lo-list
 * (push_lo_warp; lo != NULL then). A thread per column walking 264 y-partials one dependent load
 * after another was ~0.1 ms of the 2^20 x 512 column sums. */
__device__ __forceinline__ void combine_put(size_t t, bool bad, double a0, double a1, double *out, double *hi,
                                            ull *cnt, unsigned *exc)
{
    if (bad) {
        if (hi) hi[t] = 0;
        else out[t] = 0;
        push_exc(cnt, exc, t);
    } else if (hi) {
        hi[t] = a0;
    } else {
        out[t] = __dadd_rn(a0, a1);
    }
}
/* lanes l, l + L, ... of one target's partials into (a0, a1, bad), four loads in flight */
__device__ __forceinline__ void combine_lane(const double *ph, const double *pl, size_t nseg, size_t ss, size_t s,
                                             size_t L, double &a0, double &a1, bool &bad)
{
    for (; s + 3 * L < nseg; s += 4 * L) {
        double b0[4], b1[4];
#pragma unroll
        for (int q = 0; q < 4; q++) { b0[q] = ph[(s + q * L) * ss]; b1[q] = pl[(s + q * L) * ss]; }
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (isnan(b0[q]) || (!bad && !two_merge(a0, a1, b0[q], b1[q]))) bad = true;
    }
    for (; s < nseg; s += L) {
        const double b0 = ph[s * ss], b1 = pl[s * ss];
        if (isnan(b0) || (!bad && !two_merge(a0, a1, b0, b1))) bad = true;
    }
}
__global__ void k_combine(const double *__restrict__ phi, const double *__restrict__ plo, size_t n, size_t nseg,
                          size_t ts, size_t ss, int ll, double *out, double *hi, double *lo, ull *cnt, unsigned *exc)
{
    if (ll > 5) {   /* a block per target (few targets of many partials: 4 rows of 2640 segments) */
        GP_SHARED_ARRAY(double, w0, 32);
        GP_SHARED_ARRAY(double, w1, 32);
        GP_SHARED_ARRAY(int, wb, 32);
        const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
        for (size_t t = blockIdx.x; t < n; t += gridDim.x) {   /* block-uniform */
            double a0 = 0, a1 = 0;
            bool bad = false;
            combine_lane(phi + t * ts, plo + t * ts, nseg, ss, threadIdx.x, blockDim.x, a0, a1, bad);
            combine_tree(32, lane, a0, a1, bad);
            if (lane == 0) { w0[wid] = a0; w1[wid] = a1; wb[wid] = bad; }
            __syncthreads();
            if (wid == 0) {
                a0 = lane < nw ? w0[lane] : 0;
                a1 = lane < nw ? w1[lane] : 0;
                bad = lane < nw && wb[lane];
                combine_tree(32, lane, a0, a1, bad);
                if (lane == 0) {
                    combine_put(t, bad, a0, a1, out, hi, cnt, exc);
                    if (hi && !bad && a1 != 0)   /* one lane: a plain atomic (few targets here) */
                        put_lo(lo, n, (size_t)atomicAdd(cnt + 1, 1ull), t, a1);
                }
            }
            __syncthreads();
        }
        return;
    }
    const int L = 1 << ll, lane = threadIdx.x & 31, gl = lane & (L - 1);
    const size_t gpw = (size_t)(32 >> ll);
    const size_t w0 = ((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5) * gpw;   /* first target of the warp */
    const size_t step = (((size_t)gridDim.x * blockDim.x) >> 5) * gpw;
    for (size_t tw = w0; tw < n; tw += step) {   /* warp-uniform */
        const size_t t = tw + (size_t)(lane >> ll);
        double a0 = 0, a1 = 0;
        bool bad = false;
        if (t < n) combine_lane(phi + t * ts, plo + t * ts, nseg, ss, (size_t)gl, (size_t)L, a0, a1, bad);
        combine_tree(L, gl, a0, a1, bad);
        const bool mine = gl == 0 && t < n;
        if (mine) combine_put(t, bad, a0, a1, out, hi, cnt, exc);
        if (hi) push_lo_warp(mine && !bad && a1 != 0, t, a1, lo, n, cnt);
    }
}

/* axis rows, rows of exactly one aligned 16-byte vector (4 f32, 2 f64): one thread per row, U rows
 * per thread in flight, consecutive threads on consecutive rows. */
template <typename T, int U>
__global__ void __launch_bounds__(512) k_sum_rows1(const A16<T> *__restrict__ xv, size_t rows, int sq, int ug,
                                                   double *out, ull *cnt, unsigned *exc)
{
    const size_t tile = (size_t)blockDim.x * U;
    for (size_t b = blockIdx.x * tile; b < rows; b += (size_t)gridDim.x * tile) {
        A16<T> v[U];
        const bool whole = ug && b + tile <= rows;   /* no bounds tests, 32-bit offsets (see Tune::ug) */
        const A16<T> *q = xv + b + threadIdx.x;
        double *o = out + b + threadIdx.x;
        ld16_step<T, U>(q, whole, xv, b + threadIdx.x, blockDim.x, rows, v);
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t r = b + (size_t)u * blockDim.x + threadIdx.x;
            if (whole || r < rows) {
                double *d = whole ? o + (unsigned)u * blockDim.x : out + r;
                double a0 = 0, a1 = 0;
                bool bad = false;
                fadd_vec<T>(a0, a1, bad, v[u], sq);
                if (bad) { *d = 0; push_exc(cnt, exc, r); }
                else *d = __dadd_rn(a0, a1);
            }
        }
    }
}

/* A lane's cnt vectors p[0], p[st], ... (cnt % 4 == 0) by expansions, four loads at a time; mx, mn
 * fold the span of their elements as sumNf_raw does. */
__device__ __forceinline__ void row_exp(const A16<float> *p, unsigned cnt, unsigned st, double &a0, double &a1, bool &bad,
                                        unsigned &mx, unsigned &mn)
{
    for (unsigned j = 0; j < cnt; j += 4, p += 4 * st) {
        A16<float> v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] = ld16(p + st * u);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            span2(mx, mn, v[u].v[0], v[u].v[1]);
            span2(mx, mn, v[u].v[2], v[u].v[3]);
            fadd_vec<float>(a0, a1, bad, v[u], 0);
        }
    }
}
/* the expansions of L lanes merged, the row's result from lane gl = 0 */
__device__ __forceinline__ void row_exp_put(int L, int gl, bool mine, double a0, double a1, bool bad, size_t r, double *out,
                                            ull *cnt, unsigned *exc)
{
    combine_tree(L, gl, a0, a1, bad);
    if (gl == 0 && mine) {
        if (bad) { out[r] = 0; push_exc(cnt, exc, r); }
        else out[r] = __dadd_rn(a0, a1);
    }
}

constexpr int ROWS_ST_S = 32, ROWS_ST_W = 16;   /* ST: steps staged; rows a step of a block (8 warps x 2 rows) */
constexpr long long ROWS_ST_NONE = 0x7FF8DEADBEEF0001LL;   /* ST: a slot no fast-path row sum went into (a NaN) */

/* ST: the staged row sums of n steps from k0 (k0 % ROWS_ST_S == 0) into out, every slot emptied;
 * step k's slots are the rows of batches k nwarps + blockIdx.x 8 + (0..7), 128 contiguous bytes */
__device__ __forceinline__ void rows_st_flush(double *stg, size_t k0, int n, size_t nwarps, int RW, double *out)
{
    __syncthreads();
    for (int i = threadIdx.x; i < n * ROWS_ST_W; i += blockDim.x) {
        const double v = stg[i];
        if (__double_as_longlong(v) != ROWS_ST_NONE) {
            out[((k0 + (unsigned)i / ROWS_ST_W) * nwarps + blockIdx.x * (size_t)(ROWS_ST_W / RW)) * RW + i % ROWS_ST_W] = v;
            stg[i] = __longlong_as_double(ROWS_ST_NONE);
        }
    }
    __syncthreads();
}

/* axis rows, f32 rows of K units of 32 vectors (512 B), starting 16-byte aligned (tuning rw): a warp
 * sums batches of RW consecutive rows, and every load instruction of the warp reads 512 contiguous
 * bytes of one row (k_sum_rows with G lanes per row reads 32 / G rows x 16 G bytes). U loads in
 * flight per lane: KT = 0, a step is U units of one row (K % U == 0); KT = K (2 KiB rows, K = 4), a
 * step is U / KT whole rows. Each lane adds the floats of a row in plain double (sumNf) into
 * acc[row] and folds that row's exponent span (mxr, mnr); a row whose span over all its elements
 * passes the test for its count has every partial sum exact, so the lanes' doubles of the RW rows
 * merge in any order: a reduce-scatter by xor shuffles (RW / 2 + ... + 1 doubles) leaves row k in
 * the 32 / RW lanes k 32 / RW .., and the remaining levels sum them. A row that fails the test
 * (wide data, NaN/Inf; uniform data: a value below 2^-20 of the row's largest, 1 in 2048 rows of
 * 512 floats) is read again (from L2) into the expansion path (fadd_vec, combine_tree) or the
 * exception list, and the warp's next batch goes that way at once, 32 / RW lanes a row (data of
 * wide exponents: every row fails, and the plain sums would be wasted work). Warps grid-stride over
 * batches (a contiguous share of batches per warp measured 0.80 against 0.95x CUB: neighbouring
 * warps must read neighbouring memory). PF: the warp's next batch's loads before this batch's
 * merge (tuning rwp). ST (tuning rws, with PF): the fast-path row sums go into shared memory and
 * out every ROWS_ST_S steps of the grid (rows_st_flush), not one store per batch among the loads;
 * the steps are then block-uniform for the barriers. */
template <int U, int KT, int RW, bool PF = false, bool ST = false>
__global__ void __launch_bounds__(PF ? 256 : 512, PF ? 2 : 1) k_sum_rows_w(const A16<float> *__restrict__ xv, size_t rows,
                                                                       unsigned K, double *out, ull *cnt, unsigned *exc)
{
    static_assert(KT ? U % KT == 0 && U / KT <= RW : true, "k_sum_rows_w: whole rows per step");
    static_assert(!PF || (KT > 0 && U == RW * KT), "k_sum_rows_w: prefetch needs a batch in one step");
    static_assert(!ST || (PF && RW == 2), "k_sum_rows_w: staged output in the prefetching form (256 threads, 2 rows)");
    GP_SHARED_ARRAY(double, stg, ST ? ROWS_ST_S * ROWS_ST_W : 1);   /* ST: fast-path row sums of ROWS_ST_S steps */
    A16<float> pv[PF ? U : 1];   /* PF: batch pb's loads, issued during the previous batch */
    size_t pb = ~(size_t)0;
    const int lane = threadIdx.x & 31;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    const size_t nwarps = ((size_t)gridDim.x * blockDim.x) >> 5, nvr = (size_t)K * 32, batches = (rows + RW - 1) / RW;
    const size_t steps = ST ? (batches + nwarps - 1) / nwarps : 0;   /* ST: the same for every warp (barriers) */
    const unsigned n = K * 128;   /* floats per row */
    if (ST) {
        for (int i = threadIdx.x; i < ROWS_ST_S * ROWS_ST_W; i += blockDim.x) stg[i] = __longlong_as_double(ROWS_ST_NONE);
        __syncthreads();
    }
    bool slow = false;   /* warp-uniform: a row of the warp's last batch failed the test */
    for (size_t ks = 0, b = warp; ST ? ks < steps : b < batches; ks++, b += nwarps) {   /* warp-uniform; ST: block-uniform */
        if (ST && ks && ks % ROWS_ST_S == 0) rows_st_flush(stg, ks - ROWS_ST_S, ROWS_ST_S, nwarps, RW, out);
        if (ST && b >= batches) continue;
        const size_t r0 = b * RW;
        const int nr = rows - r0 < (size_t)RW ? (int)(rows - r0) : RW;
        const A16<float> *q = xv + r0 * nvr + lane;
        if (slow) {   /* this batch by expansions at once, GL lanes a row; its rows' spans decide the next one */
            constexpr int GL = 32 / RW;
            const int g = lane / GL, gl = lane % GL;
            double a0 = 0, a1 = 0;
            bool bd = false;
            unsigned mx = 0u, mn = ~0u;
            if (g < nr) row_exp(xv + (r0 + g) * nvr + gl, K * RW, GL, a0, a1, bd, mx, mn);
#pragma unroll
            for (int h = GL / 2; h >= 1; h >>= 1) {
                mx = max(mx, __shfl_xor_sync(FULL, mx, h));
                mn = min(mn, __shfl_xor_sync(FULL, mn, h));
            }
            slow = !__all_sync(FULL, g >= nr || span_ok(mx, mn, n));
            row_exp_put(GL, gl, g < nr, a0, a1, bd, r0 + g, out, cnt, exc);
            continue;
        }
        double acc[RW];
        unsigned mxr[RW], mnr[RW];
#pragma unroll
        for (int k = 0; k < RW; k++) { acc[k] = 0; mxr[k] = 0u; mnr[k] = ~0u; }
        if constexpr (KT > 0) {
#pragma unroll
            for (int st = 0; st < RW * KT / U; st++) {
                A16<float> v[U];
                if (PF && pb == b) {   /* loaded during the last batch */
#pragma unroll
                    for (int u = 0; u < U; u++) v[u] = pv[PF ? u : 0];
                } else if (nr == RW) {   /* every batch but the last: unconditional loads, issued together */
#pragma unroll
                    for (int u = 0; u < U; u++) v[u] = ld16(q + 32 * (st * U + u));
                } else {   /* (a predicated load each: ptxas spread them among the adds, 0.93 against 0.95) */
#pragma unroll
                    for (int u = 0; u < U; u++)
                        v[u] = (st * U + u) / KT < nr ? ld16(q + 32 * (st * U + u)) : zero16<float>();
                }
                if constexpr (PF) {   /* the warp's next batch, if whole, before this one's adds and merge */
                    const size_t bn = b + nwarps;
                    if (bn < batches && (bn + 1) * RW <= rows) {
                        const A16<float> *qn = xv + bn * RW * nvr + lane;
#pragma unroll
                        for (int u = 0; u < U; u++) pv[u] = ld16(qn + 32 * u);
                        pb = bn;
                    }
                }
#pragma unroll
                for (int g = 0; g < U / KT; g++) {
                    float fl[4 * KT];
#pragma unroll
                    for (int u = 0; u < KT; u++)
#pragma unroll
                        for (int j = 0; j < 4; j++) fl[4 * u + j] = v[g * KT + u].v[j];
                    const int k = st * (U / KT) + g;
                    unsigned smx, smn;
                    acc[k] = sumNf_raw<4 * KT>(fl, smx, smn);
                    mxr[k] = smx;
                    mnr[k] = smn;
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < RW; k++) {
                if (k >= nr) break;
                const A16<float> *p = q + (unsigned)k * (unsigned)nvr;
                for (unsigned j = 0; j < K; j += U, p += 32 * U) {
                    A16<float> v[U];
#pragma unroll
                    for (int u = 0; u < U; u++) v[u] = ld16(p + 32 * u);
                    float fl[4 * U];
                    flat<float, U>(v, fl);
                    unsigned smx, smn;
                    acc[k] = __dadd_rn(acc[k], sumNf_raw<4 * U>(fl, smx, smn));
                    mxr[k] = max(mxr[k], smx);
                    mnr[k] = min(mnr[k], smn);
                }
            }
        }
        unsigned bad = 0;   /* bit k: row k fails the test (warp-uniform) */
#pragma unroll
        for (int k = 0; k < RW; k++)
            if (k < nr && !span_ok(__reduce_max_sync(FULL, mxr[k]), __reduce_min_sync(FULL, mnr[k]), n)) bad |= 1u << k;
        constexpr int GL = 32 / RW;   /* lanes per row after the scatter */
#pragma unroll
        for (int h = 16, m = RW / 2; m >= 1; h >>= 1, m >>= 1) {   /* keep rows [m, 2m) or [0, m) */
            const bool up = lane & h;
#pragma unroll
            for (int i = 0; i < m; i++) {
                const double send = up ? acc[i] : acc[i + m], keep = up ? acc[i + m] : acc[i];
                acc[i] = __dadd_rn(keep, __shfl_xor_sync(FULL, send, h));
            }
        }
#pragma unroll
        for (int h = GL / 2; h >= 1; h >>= 1) acc[0] = __dadd_rn(acc[0], __shfl_xor_sync(FULL, acc[0], h));
        const int kl = lane / GL;   /* lane bit 4 kept the upper half of the rows, bit 3 the upper half of those, ... */
        if (lane % GL == 0 && kl < nr && !(bad >> kl & 1)) {
            if (ST) stg[(ks % ROWS_ST_S) * ROWS_ST_W + (threadIdx.x >> 5) * RW + kl] = __dadd_rn(acc[0], 0.0);
            else out[r0 + kl] = __dadd_rn(acc[0], 0.0);   /* -0 as +0 */
        }
        slow = bad != 0;
        for (; bad; bad &= bad - 1) {   /* the rows that failed, again by expansions */
            const int k = __ffs(bad) - 1;
            double a0 = 0, a1 = 0;
            bool bd = false;
            unsigned mx = 0u, mn = ~0u;
            row_exp(q + (unsigned)k * (unsigned)nvr, K, 32, a0, a1, bd, mx, mn);
            row_exp_put(32, lane, true, a0, a1, bd, r0 + k, out, cnt, exc);
        }
    }
    if (ST && steps) {
        const size_t k0 = (steps - 1) / ROWS_ST_S * ROWS_ST_S;
        rows_st_flush(stg, k0, (int)(steps - k0), nwarps, RW, out);
    }
}

/* Exact fallback for listed rows: one warp per row, the first version's method (spills into a
 * per-warp shared superaccumulator), rounded on the device with gp_xvalue. */
template <typename T>
__global__ void k_rows_exact(const T *__restrict__ x, size_t cols, int sq, gp_xfmt f, const ull *cnt,
                             const unsigned *exc, double *out)
{
    GP_EXTERN_SHARED(ull, sh);
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F, lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    ull *acc = sh + (size_t)wib * w;
    const size_t n = *cnt, nwarps = (size_t)gridDim.x * (blockDim.x >> 5);
    for (size_t j = blockIdx.x * (size_t)(blockDim.x >> 5) + wib; j < n; j += nwarps) {
        const size_t r = exc[j];
        for (int i = lane; i < w; i += 32) acc[i] = 0;
        __syncwarp();
        TState s;
        ts_init(s);
        const T *p = x + r * cols;
        for (size_t c = lane; c < cols; c += 32) ts_add<T>(s, p[c], sq, acc, f.lo);
        ts_warp_merge(s, acc, f.lo, isf);
        if (lane == 0) ts_flush(s, acc, f, isf);
        __syncwarp();
        if (lane == 0) {
            int64_t l[GP_XNL_MAX + GP_XSPECIAL];
            for (int i = 0; i < w; i++) l[i] = (int64_t)acc[i];
            out[r] = gp_xvalue(l, f);
        }
        __syncwarp();
    }
}

/* Loads of the column kernels: VEC consecutive columns of U rows (16-byte vectors or VEC = 1).
 * ug: when all U rows are in range, one pointer stepped by rstep rows (a 64-bit add per load)
 * instead of a bounds test and a 64-bit row x cols product per load. */
template <typename T, int VEC, int U>
__device__ __forceinline__ void load_cols(const T *__restrict__ x, size_t cols, size_t c0, size_t r, size_t rstep,
                                          size_t r1, T (&val)[U][VEC], bool (&ok)[U], int ug)
{
    if (ug && r + (size_t)(U - 1) * rstep < r1) {
        const T *q = x + r * cols + c0;
        const size_t st = rstep * cols;
#pragma unroll
        for (int u = 0; u < U; u++, q += st) {
            ok[u] = true;
            if constexpr (VEC > 1) {
                U16<T> w;
                w.u = ldg16(q);
#pragma unroll
                for (int j = 0; j < VEC; j++) val[u][j] = w.a.v[j];
            } else {
                val[u][0] = __ldg(q);
            }
        }
        return;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        size_t rr = r + (size_t)u * rstep;
        ok[u] = rr < r1;
        if constexpr (VEC > 1) {
            U16<T> q;
            q.u = ok[u] ? ldg16(x + rr * cols + c0) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
            for (int j = 0; j < VEC; j++) val[u][j] = q.a.v[j];
        } else {
            val[u][0] = ok[u] ? __ldg(x + rr * cols + c0) : (T)0;
        }
    }
}

/* axis cols, float types. Block = CV column vectors (VEC columns each) x RS = blockDim.x / CV row
 * lanes; blockIdx.y takes rows [y rpb, (y+1) rpb). Per thread VEC expansions; the RS lanes of a
 * column merge in shared memory. One y-block: hi per column and the lo-list (push_lo_warp's
 * comment; exceptions listed, hi = 0); several: partials [y][col] in hi and lo, NaN in hi marking
 * a column to list. */
template <typename T, int VEC, int U>
__global__ void __launch_bounds__(512) k_sum_cols(const T *__restrict__ x, size_t rows, size_t cols, size_t rpb,
                                                  int CV, int sq, int batch, int ug, double *hi, double *lo,
                                                  ull *cnt, unsigned *exc)
{
    GP_EXTERN_SHARED(double, shd);
    const int t = threadIdx.x, RS = blockDim.x / CV, cx = t % CV, ry = t / CV;
    const size_t c0 = ((size_t)blockIdx.x * CV + cx) * VEC;
    const size_t r0 = (size_t)blockIdx.y * rpb, r1 = r0 + rpb < rows ? r0 + rpb : rows;
    double a0[VEC], a1[VEC];
    bool bad[VEC];
#pragma unroll
    for (int j = 0; j < VEC; j++) { a0[j] = 0; a1[j] = 0; bad[j] = false; }
    if (ry < RS && c0 < cols) {
        for (size_t r = r0 + ry; r < r1; r += (size_t)RS * U) {
            T val[U][VEC];
            bool ok[U];
            load_cols<T, VEC, U>(x, cols, c0, r, RS, r1, val, ok, ug);
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                if constexpr (std::is_same<T, float>::value && U % 4 == 0) {
                    if (!sq) {
                        /* the U rows of this column as one exact double sum (no runs here: a
                         * run per column cost registers and occupancy, and the column kernel is
                         * bound by loads in flight, not by its additions: batch=2 measured the
                         * same as batch=0 on every shape at U = 4) */
                        if (batch && U >= 8) {
                            float fl[U];
                            double t;
#pragma unroll
                            for (int u = 0; u < U; u++) fl[u] = val[u][j];
                            if (sumNf<U>(fl, t)) {
                                if (!two_add(a0[j], a1[j], t)) bad[j] = true;
                                continue;
                            }
                        }
#pragma unroll
                        for (int g = 0; g < U; g += 4) {
                            double s;
                            if (sum4f(val[g][j], val[g + 1][j], val[g + 2][j], val[g + 3][j], s)) {
                                if (!two_add(a0[j], a1[j], s)) bad[j] = true;
                            } else {
                                for (int u = g; u < g + 4; u++) fadd1<T>(a0[j], a1[j], bad[j], val[u][j], sq);
                            }
                        }
                        continue;
                    }
                }
#pragma unroll
                for (int u = 0; u < U; u++) fadd1<T>(a0[j], a1[j], bad[j], val[u][j], sq);
            }
        }
    }
    /* Results go through shared memory: the RS row lanes of a column merged there, then written
     * by consecutive threads to consecutive columns (whole 32-byte sectors). A thread writing its
     * own VEC columns left each store instruction a quarter of every sector it touched, and the
     * 4 x 2^27 column sums moved twice their bytes through DRAM (ncu: 86% busy at 1.7 TB/s). */
    double *s0 = shd, *s1 = shd + (size_t)blockDim.x * VEC;
#pragma unroll
    for (int j = 0; j < VEC; j++) {
        s0[t * VEC + j] = bad[j] ? qnan() : a0[j];
        s1[t * VEC + j] = a1[j];
    }
    __syncthreads();
    for (int m = RS; m > 1;) {   /* uniform over the block */
        int h = (m + 1) >> 1;
        if (ry < m - h) {
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                int i = t * VEC + j, o = (t + h * CV) * VEC + j;
                double b0 = s0[i], b1 = s1[i], d0 = s0[o], d1 = s1[o];
                if (isnan(b0) || isnan(d0) || !two_merge(b0, b1, d0, d1)) b0 = qnan();
                s0[i] = b0;
                s1[i] = b1;
            }
        }
        __syncthreads();
        m = h;
    }
    /* lane ry = 0 of column vector cx holds columns base + cx VEC + j at index cx VEC + j */
    const size_t base = (size_t)blockIdx.x * CV * VEC;
    if (gridDim.y == 1) {   /* final: hi, and the block's nonzero lo (lo-list) in column order */
        const int lane = t & 31, wid = t >> 5, nw = (int)blockDim.x >> 5;
        GP_SHARED_ARRAY(unsigned, wq, VEC * 16 + 2);   /* per (round, warp): count, then first slot */
        unsigned bal[VEC];   /* CV <= blockDim.x: VEC rounds cover the block's columns */
        bool any = false;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const int i = t + k * (int)blockDim.x;
            const size_t c = base + (size_t)i;
            bool has = false;
            if (i < CV * VEC && c < cols) {
                const double b0 = s0[i];
                if (isnan(b0)) { hi[c] = 0; push_exc(cnt, exc, c); }
                else { hi[c] = b0; has = s1[i] != 0; }
            }
            bal[k] = __ballot_sync(FULL, has);
            any |= has;
            if (lane == 0) wq[k * nw + wid] = (unsigned)__popc(bal[k]);
        }
        if (!__syncthreads_or(any)) return;   /* no nonzero lo (data of one scale): no slots to take */
        const size_t nb = cols - base < (size_t)CV * VEC ? cols - base : (size_t)CV * VEC;   /* the block's columns */
        if (t == 0) {   /* slots in column order: round, then warp, then lane */
            unsigned m = 0;
            for (int j = 0; j < VEC * nw; j++) { const unsigned q = wq[j]; wq[j] = m; m += q; }
            /* most lo nonzero (wide exponents): the block's lo as one run of nb values, no column
             * numbers (12 B a nonzero lo in the list, 8 B a column in a run) */
            const bool run = m && 3 * (size_t)m >= 2 * nb;
            ull slot = 0;
            if (run) {
                slot = atomicAdd(cnt + 1, (ull)nb);
                put_run(lo, cols, cnt, slot, base, nb);
            } else if (m) {
                slot = atomicAdd(cnt + 1, (ull)m);
            }
            wq[VEC * 16] = run;
            wq[VEC * 16 + 1] = (unsigned)slot;
        }
        __syncthreads();
        const bool run = wq[VEC * 16];
        const size_t slot = wq[VEC * 16 + 1];
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const int i = t + k * (int)blockDim.x;
            if (run) {
                if ((size_t)i < nb) lo[slot + (size_t)i] = isnan(s0[i]) ? 0 : s1[i];
            } else if (bal[k] >> lane & 1u) {
                const size_t j = slot + wq[k * nw + wid] + (unsigned)__popc(bal[k] & ((1u << lane) - 1u));
                put_lo(lo, cols, j, base + (size_t)i, s1[i]);
            }
        }
        return;
    }
    for (int i = t; i < CV * VEC; i += blockDim.x) {
        const size_t c = base + (size_t)i;
        if (c >= cols) break;
        const size_t o = (size_t)blockIdx.y * cols + c;
        hi[o] = s0[i];   /* NaN marks a column for the exact fallback */
        lo[o] = s1[i];
    }
}

/* Exact fallback for listed columns (at most cap; more: nothing, the host reruns the panel with
 * the first version's kernel): one warp per column, normalised limbs into xacc[j * w]. */
template <typename T>
__global__ void k_cols_exact(const T *__restrict__ x, size_t rows, size_t cols, int sq, gp_xfmt f, const ull *cnt,
                             const unsigned *exc, size_t cap, long long *xacc)
{
    GP_EXTERN_SHARED(ull, sh);
    const int w = f.nl + GP_XSPECIAL, isf = Elem<T>::F, lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    ull *acc = sh + (size_t)wib * w;
    const size_t n = *cnt, nwarps = (size_t)gridDim.x * (blockDim.x >> 5);
    if (n > cap) return;
    for (size_t j = blockIdx.x * (size_t)(blockDim.x >> 5) + wib; j < n; j += nwarps) {
        const size_t c = exc[j];
        for (int i = lane; i < w; i += 32) acc[i] = 0;
        __syncwarp();
        TState s;
        ts_init(s);
        for (size_t r = lane; r < rows; r += 32) ts_add<T>(s, x[r * cols + c], sq, acc, f.lo);
        ts_warp_merge(s, acc, f.lo, isf);
        if (lane == 0) ts_flush(s, acc, f, isf);
        __syncwarp();
        if (lane == 0) {
            long long *l = reinterpret_cast<long long *>(acc);
            for (int i = 0; i < f.nl - 1; i++) {
                long long cy = l[i] >> 32;
                l[i] -= (long long)((ull)cy << 32);
                l[i + 1] += cy;
            }
        }
        __syncwarp();
        for (int i = lane; i < w; i += 32) xacc[j * w + i] = (long long)acc[i];
        __syncwarp();
    }
}

/* ---- extrema and argmin/argmax ---- */
/* Keys: f32 on 32 bits (same order as gp_key_d of the value), everything else on 64. NaN gets
 * the winning key (min/argmin 0, max/absmax/argmax all ones): no number has it. */
template <typename T> struct KT { typedef ull K; };
template <> struct KT<float> { typedef unsigned K; };

template <typename T>
__device__ __forceinline__ typename KT<T>::K kkey(T v, int mn, int ab)
{
    if constexpr (std::is_same<T, float>::value) {
        unsigned b = __float_as_uint(v);
        if ((b & 0x7fffffffu) > 0x7f800000u) return mn ? 0u : ~0u;
        if (ab) b &= 0x7fffffffu;
        return b ^ ((unsigned)((int)b >> 31) | 0x80000000u);
    } else if constexpr (std::is_same<T, double>::value) {
        if (v != v) return mn ? 0ull : ~0ull;
        return gp_key_d(ab ? fabs(v) : v);
    } else if constexpr (Elem<T>::U) {
        return (ull)v;
    } else {
        long long s = (long long)v;
        return ab ? (s < 0 ? 0ull - (ull)s : (ull)s) : gp_key_i(s);
    }
}
/* The 64-bit key (gp_key_d order) of a key; 0 and all ones (identities, NaN) map to themselves. */
template <typename T> __device__ __forceinline__ ull key64(typename KT<T>::K k)
{
    if constexpr (std::is_same<T, float>::value) {
        if (k == 0u) return 0ull;
        if (k == ~0u) return ~0ull;
        unsigned b = (k & 0x80000000u) ? (k ^ 0x80000000u) : ~k;
        return gp_key_d((double)__uint_as_float(b));
    } else {
        return k;
    }
}
template <typename K> __device__ __forceinline__ K kident(int mn) { return mn ? (K)~(K)0 : (K)0; }
template <typename K> __device__ __forceinline__ K kfold2(K a, K b, int mn) { return mn ? (b < a ? b : a) : (b > a ? b : a); }
template <typename K> __device__ __forceinline__ bool kbetter(K a, K b, int mn) { return mn ? a < b : a > b; }
/* (k1, i1) beats (k2, i2): better key, or the same key and a smaller index */
template <typename K, typename I>
__device__ __forceinline__ bool pbetter(K k1, I i1, K k2, I i2, int mn)
{
    return kbetter(k1, k2, mn) || (k1 == k2 && i1 < i2);
}
/* Along one thread the indices only grow, so a key replaces the best when it is better, or equal
 * to the identity the thread started from (an integer can have the identity's key). */
template <typename K, typename I>
__device__ __forceinline__ bool takes(K k, K bk, I bi, I none, int mn)
{
    return kbetter(k, bk, mn) || (k == bk && bi == none);
}
template <typename K> __device__ __forceinline__ K shfl_down_k(K v, int off, int width)
{
    return __shfl_down_sync(FULL, v, off, width);
}

/* axis all: keys folded per thread, warp, then one atomic per warp into *out (pre-set to the
 * identity). mn: min; ab: absmax. */
template <typename T, int U>
__global__ void __launch_bounds__(512) k_ext_all(const T *__restrict__ x, size_t n, int mn, int ab, ull *out)
{
    typedef typename KT<T>::K K;
    constexpr int VEC = 16 / sizeof(T);
    K best = kident<K>(mn);
    const size_t nv = n / VEC, tile = (size_t)blockDim.x * U;
    const A16<T> *xv = reinterpret_cast<const A16<T> *>(x);
    for (size_t b = blockIdx.x * tile; b < nv; b += (size_t)gridDim.x * tile) {
        A16<T> v[U];
        bool ok[U];
        ld16_tile<T, U>(xv, b, nv, v, ok);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (ok[u]) {
#pragma unroll
                for (int j = 0; j < VEC; j++) best = kfold2(best, kkey<T>(v[u].v[j], mn, ab), mn);
            }
    }
    for (size_t i = nv * VEC + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        best = kfold2(best, kkey<T>(x[i], mn, ab), mn);
    ull b64 = key64<T>(best);
    for (int off = 16; off > 0; off >>= 1) b64 = kfold2(b64, __shfl_down_sync(FULL, b64, off), mn);
    if ((threadIdx.x & 31) == 0) {
        if (mn) atomicMin(out, b64); else atomicMax(out, b64);
    }
}

/* ---- stats: the figures that are not sums ----
 * One pass over n elements: the fingerprint (sum mod 2^64 of XXH3 of each element's value bytes,
 * seeded by seed0 + its index: pipeline/rhash.h, the CPU's bits), min and max keys over the
 * non-NaN values and the NaN / +Inf / -Inf counts, into out[0..5] (preset to 0, ~0, 0, 0, 0, 0).
 * Grid-stride with U 16-byte loads in flight; per warp by shuffles, then one atomic per figure. */
template <typename T> __device__ __forceinline__ ull vbits(T v)
{
    if constexpr (std::is_same<T, float>::value) return (ull)__float_as_uint(v);
    else if constexpr (std::is_same<T, double>::value) return (ull)__double_as_longlong(v);
    else return (ull)(typename std::make_unsigned<T>::type)v;
}
struct StatAcc {
    ull h, kmin, kmax, nan, pinf, ninf;
};
template <typename T> __device__ __forceinline__ void stat1(StatAcc &a, T v, ull seed)
{
    const ull b = vbits<T>(v);
    if constexpr (sizeof(T) == 1) a.h += gp_hx1(b, seed);
    else if constexpr (sizeof(T) == 2) a.h += gp_hx2(b, seed);
    else if constexpr (sizeof(T) == 4) a.h += gp_hx4(b, seed);
    else a.h += gp_hx8(b, seed);
    ull k;
    if constexpr (Elem<T>::F) {
        const double d = (double)v;
        if (d != d) { a.nan++; return; }
        if (isinf(d)) { if (d > 0) a.pinf++; else a.ninf++; }
        k = gp_key_d(d);
    } else {
        k = Elem<T>::U ? b : gp_key_i((long long)v);
    }
    a.kmin = k < a.kmin ? k : a.kmin;
    a.kmax = k > a.kmax ? k : a.kmax;
}
template <typename T, int U>
__global__ void __launch_bounds__(512) k_stats(const T *__restrict__ x, size_t n, ull seed0, ull *out)
{
    constexpr int VEC = 16 / sizeof(T);
    StatAcc a = {0, ~0ull, 0, 0, 0, 0};
    const size_t nv = n / VEC, tile = (size_t)blockDim.x * U;
    const A16<T> *xv = reinterpret_cast<const A16<T> *>(x);
    for (size_t b = blockIdx.x * tile; b < nv; b += (size_t)gridDim.x * tile) {
        A16<T> v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * blockDim.x + threadIdx.x;
            v[u] = i < nv ? ld16(xv + i) : zero16<T>();
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * blockDim.x + threadIdx.x;
            if (i < nv) {
#pragma unroll
                for (int j = 0; j < VEC; j++) stat1<T>(a, v[u].v[j], seed0 + i * VEC + j);
            }
        }
    }
    for (size_t i = nv * VEC + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        stat1<T>(a, x[i], seed0 + i);
    for (int off = 16; off > 0; off >>= 1) {
        a.h += __shfl_down_sync(FULL, a.h, off);
        const ull lo = __shfl_down_sync(FULL, a.kmin, off), hi = __shfl_down_sync(FULL, a.kmax, off);
        a.kmin = lo < a.kmin ? lo : a.kmin;
        a.kmax = hi > a.kmax ? hi : a.kmax;
        a.nan += __shfl_down_sync(FULL, a.nan, off);
        a.pinf += __shfl_down_sync(FULL, a.pinf, off);
        a.ninf += __shfl_down_sync(FULL, a.ninf, off);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, a.h);
        if (a.kmin != ~0ull) atomicMin(out + 1, a.kmin);
        if (a.kmax != 0) atomicMax(out + 2, a.kmax);
        if (a.nan) atomicAdd(out + 3, a.nan);
        if (a.pinf) atomicAdd(out + 4, a.pinf);
        if (a.ninf) atomicAdd(out + 5, a.ninf);
    }
}

/* ---- verify's fingerprints: sums mod 2^64 of XXH3(element, seed0 + r * rstep + c * cstep) per row
 * (k_hash_rows) or per column (k_hash_cols) of a panel of 1-, 2-, 4- or 8-byte elements, added
 * into out by 64-bit atomics (addition mod 2^64: any order, the same bits). */
template <typename U> __device__ __forceinline__ ull hx_elem(U v, ull seed)
{
    if constexpr (sizeof(U) == 1) return gp_hx1((ull)v, seed);
    else if constexpr (sizeof(U) == 2) return gp_hx2((ull)v, seed);
    else if constexpr (sizeof(U) == 4) return gp_hx4((ull)v, seed);
    else return gp_hx8((ull)v, seed);
}
/* rows of >= 32 elements: a warp per (row, segment of up to 1024 elements), lanes across the
 * segment (coalesced), a shuffle sum, one atomic; narrower rows: a thread per row */
template <typename U>
__global__ void k_hash_rows(const U *__restrict__ x, size_t rows, size_t cols, ull seed0, ull rstep, ull cstep, ull *out)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nth = (size_t)gridDim.x * blockDim.x;
    if (cols < 32) {
        for (size_t r = tid; r < rows; r += nth) {
            const U *p = x + r * cols;
            const ull sr = seed0 + r * rstep;
            ull h = 0;
            for (size_t c = 0; c < cols; c++) h += hx_elem<U>(__ldg(p + c), sr + c * cstep);
            atomicAdd(out + r, h);
        }
        return;
    }
    const int lane = threadIdx.x & 31;
    const size_t segs = (cols + 1023) / 1024, items = rows * segs;
    for (size_t it = tid >> 5; it < items; it += nth >> 5) {
        const size_t r = it / segs, c0 = (it % segs) * 1024, c1 = c0 + 1024 < cols ? c0 + 1024 : cols;
        const U *p = x + r * cols;
        const ull sr = seed0 + r * rstep;
        ull h = 0;
        for (size_t c = c0 + lane; c < c1; c += 32) h += hx_elem<U>(__ldg(p + c), sr + c * cstep);
        for (int off = 16; off > 0; off >>= 1) h += __shfl_down_sync(FULL, h, off);
        if (lane == 0) atomicAdd(out + r, h);
    }
}
/* a thread per (column, chunk of 64 rows): neighbouring threads take neighbouring columns */
template <typename U>
__global__ void k_hash_cols(const U *__restrict__ x, size_t rows, size_t cols, ull seed0, ull rstep, ull cstep, ull *out)
{
    const size_t nchunk = (rows + 63) / 64, items = nchunk * cols;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < items; t += (size_t)gridDim.x * blockDim.x) {
        const size_t c = t % cols, r0 = (t / cols) * 64, r1 = r0 + 64 < rows ? r0 + 64 : rows;
        ull h = 0;
        for (size_t r = r0; r < r1; r++) h += hx_elem<U>(__ldg(x + r * cols + c), seed0 + r * rstep + c * cstep);
        atomicAdd(out + c, h);
    }
}

/* axis all, argmin/argmax: per thread the first best (indices only grow along a thread), then
 * warps and the block by the (key, index) order; one pair per block into pk/pi. */
template <typename T, int U>
__global__ void __launch_bounds__(512) k_arg_all(const T *__restrict__ x, size_t n, int mn, ull *pk, ull *pi)
{
    typedef typename KT<T>::K K;
    constexpr int VEC = 16 / sizeof(T);
    GP_SHARED_ARRAY(ull, sk, 32);
    GP_SHARED_ARRAY(ull, si, 32);
    K bk = kident<K>(mn);
    ull bi = ~0ull;
    const size_t nv = n / VEC, tile = (size_t)blockDim.x * U;
    const A16<T> *xv = reinterpret_cast<const A16<T> *>(x);
    for (size_t b = blockIdx.x * tile; b < nv; b += (size_t)gridDim.x * tile) {
        A16<T> v[U];
        bool ok[U];
        ld16_tile<T, U>(xv, b, nv, v, ok);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (ok[u]) {
                size_t i = b + (size_t)u * blockDim.x + threadIdx.x;
                K kv[VEC];
                K m = kident<K>(mn);
#pragma unroll
                for (int j = 0; j < VEC; j++) { kv[j] = kkey<T>(v[u].v[j], mn, 0); m = kfold2(m, kv[j], mn); }
                if (takes(m, bk, bi, ~0ull, mn)) {   /* rare after the first few vectors: find the first */
                    bk = m;
#pragma unroll
                    for (int j = VEC - 1; j >= 0; j--)
                        if (kv[j] == m) bi = i * VEC + j;
                }
            }
    }
    for (size_t i = nv * VEC + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        K kk = kkey<T>(x[i], mn, 0);
        if (takes(kk, bk, bi, ~0ull, mn)) { bk = kk; bi = i; }
    }
    ull k64 = key64<T>(bk);
    for (int off = 16; off > 0; off >>= 1) {
        ull ok2 = __shfl_down_sync(FULL, k64, off), oi = __shfl_down_sync(FULL, bi, off);
        if (pbetter(ok2, oi, k64, bi, mn)) { k64 = ok2; bi = oi; }
    }
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5, nw = blockDim.x >> 5;
    if (lane == 0) { sk[wib] = k64; si[wib] = bi; }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 1; i < nw; i++)
            if (pbetter(sk[i], si[i], k64, bi, mn)) { k64 = sk[i]; bi = si[i]; }
        pk[blockIdx.x] = k64;
        pi[blockIdx.x] = bi;
    }
}

/* n (key, index) pairs into one, by the total order (deterministic). One block. */
__global__ void k_arg_combine(const ull *pk, const ull *pi, size_t n, int mn, ull *ok, ull *oi)
{
    GP_SHARED_ARRAY(ull, sk, 1024);
    GP_SHARED_ARRAY(ull, si, 1024);
    ull bk = kident<ull>(mn), bi = ~0ull;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        if (pbetter(pk[i], pi[i], bk, bi, mn)) { bk = pk[i]; bi = pi[i]; }
    sk[threadIdx.x] = bk;
    si[threadIdx.x] = bi;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned i = 1; i < blockDim.x; i++)
            if (pbetter(sk[i], si[i], bk, bi, mn)) { bk = sk[i]; bi = si[i]; }
        *ok = bk;
        *oi = bi;
    }
}

/* One key into a thread's best: with ARG the first index of the best key (the indices a thread
 * sees only grow), without it the key alone (max/min/absmax: no 64-bit index per element; the
 * row extrema ran at 0.68-0.72x CUB with it, bench/NOTES.md tenth session). */
template <bool ARG, typename K>
__device__ __forceinline__ void fold(K kk, ull i, K &bk, ull &bi, int mn)
{
    if constexpr (ARG) {
        if (takes(kk, bk, bi, ~0ull, mn)) { bk = kk; bi = i; }
    } else {
        (void)i;
        (void)bi;
        bk = kfold2(bk, kk, mn);
    }
}
/* axis rows, extrema (ARG false: okey[r] = the row's key) and argmin/argmax (ARG: oidx[r] = the
 * column of the first best): items of (row, segment) for G = 2^lg lanes, the geometry of
 * k_sum_rows (row_geo); along a lane the columns only grow (head, vectors, tail). nseg > 1:
 * (key, column) per item into pk/pi for k_ext_rows_combine. A step of U loads wholly inside the
 * segment is folded without per-load tests. */
template <typename T, int U, bool ARG>
__global__ void __launch_bounds__(512) k_ext_rows(const T *__restrict__ x, size_t rows, size_t cols, int mn, int ab,
                                                  int lg, size_t nseg, ull *okey, ull *oidx, ull *pk, ull *pi)
{
    typedef typename KT<T>::K K;
    constexpr int VEC = 16 / sizeof(T);
    const int G = 1 << lg, lane = threadIdx.x & 31, gl = lane & (G - 1), gpw = 32 >> lg;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    const size_t nwarps = ((size_t)gridDim.x * blockDim.x) >> 5, items = rows * nseg, GU = (size_t)G * U;
    for (size_t i0 = warp * gpw; i0 < items; i0 += nwarps * gpw) {
        const size_t it = i0 + (lane >> lg), r = nseg == 1 ? it : it / nseg;
        K bk = kident<K>(mn);
        ull bi = ~0ull;
        if (it < items) {
            const T *p = x + r * cols;
            const RowSeg g = row_seg(p, cols, it - r * nseg, nseg);
            const A16<T> *pv = reinterpret_cast<const A16<T> *>(p + g.h);
            if (g.head)
                for (size_t i = gl; i < g.h; i += G) {
                    fold<ARG>(kkey<T>(p[i], mn, ab), (ull)i, bk, bi, mn);
                }
            for (size_t b = g.vb; b < g.ve; b += GU) {
                A16<T> v[U];
                const bool whole = b + GU <= g.ve;
                ld16_step<T, U>(pv + b + gl, whole, pv, b + gl, G, g.ve, v);
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (whole || b + (size_t)u * G + gl < g.ve) {
                        const size_t e0 = g.h + (b + (size_t)u * G + gl) * VEC;
#pragma unroll
                        for (int j = 0; j < VEC; j++) {
                            fold<ARG>(kkey<T>(v[u].v[j], mn, ab), e0 + j, bk, bi, mn);
                        }
                    }
            }
            if (g.tail)
                for (size_t i = g.h + g.nv * VEC + gl; i < cols; i += G) {
                    fold<ARG>(kkey<T>(p[i], mn, ab), (ull)i, bk, bi, mn);
                }
        }
        for (int off = G >> 1; off > 0; off >>= 1) {
            K k2 = shfl_down_k<K>(bk, off, G);
            if constexpr (ARG) {
                ull i2 = __shfl_down_sync(FULL, bi, off, G);
                if (gl < off && pbetter(k2, i2, bk, bi, mn)) { bk = k2; bi = i2; }
            } else if (gl < off) {
                bk = kfold2(bk, k2, mn);
            }
        }
        if (gl == 0 && it < items) {
            if (nseg > 1) { pk[it] = key64<T>(bk); pi[it] = bi; }
            else if (ARG) oidx[r] = bi;
            else okey[r] = key64<T>(bk);
        }
    }
}

/* axis rows, extrema and argmin/argmax of rows of exactly one aligned 16-byte vector (4 f32, 2
 * f64, 16 u8 ...): one thread per row, U rows per thread in flight, as k_sum_rows1 (k_ext_rows
 * gave each such row a lane with one load in flight: 0.21x CUB on 2^27 x 4). */
template <typename T, int U, bool ARG>
__global__ void __launch_bounds__(512) k_ext_rows1(const A16<T> *__restrict__ xv, size_t rows, int mn, int ab,
                                                   ull *okey, ull *oidx)
{
    typedef typename KT<T>::K K;
    constexpr int VEC = 16 / sizeof(T);
    const size_t tile = (size_t)blockDim.x * U;
    for (size_t b = blockIdx.x * tile; b < rows; b += (size_t)gridDim.x * tile) {
        A16<T> v[U];
        const bool whole = b + tile <= rows;
        ld16_step<T, U>(xv + b + threadIdx.x, whole, xv, b + threadIdx.x, blockDim.x, rows, v);
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t r = b + (size_t)u * blockDim.x + threadIdx.x;
            if (whole || r < rows) {
                K bk = kident<K>(mn);
                ull bi = ~0ull;
#pragma unroll
                for (int j = 0; j < VEC; j++) fold<ARG>(kkey<T>(v[u].v[j], mn, ab), (ull)j, bk, bi, mn);
                if (ARG) oidx[r] = bi;
                else okey[r] = key64<T>(bk);
            }
        }
    }
}

/* (key, index) pairs l, l + L, ... of one row's nseg into (bk, bi), four loads in flight */
__device__ __forceinline__ void ext_lane(const ull *pk, const ull *pi, size_t nseg, size_t s, size_t L, int mn,
                                         ull &bk, ull &bi)
{
    for (; s + 3 * L < nseg; s += 4 * L) {
        ull k[4], i[4];
#pragma unroll
        for (int q = 0; q < 4; q++) { k[q] = pk[s + q * L]; i[q] = pi[s + q * L]; }
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (pbetter(k[q], i[q], bk, bi, mn)) { bk = k[q]; bi = i[q]; }
    }
    for (; s < nseg; s += L)
        if (pbetter(pk[s], pi[s], bk, bi, mn)) { bk = pk[s]; bi = pi[s]; }
}
/* (bk, bi) of groups of L lanes into their first lane by the (key, index) order */
__device__ __forceinline__ void ext_tree(int L, int gl, int mn, ull &bk, ull &bi)
{
    for (int off = L >> 1; off > 0; off >>= 1) {
        const ull k2 = __shfl_down_sync(FULL, bk, off, L), i2 = __shfl_down_sync(FULL, bi, off, L);
        if (gl < off && pbetter(k2, i2, bk, bi, mn)) { bk = k2; bi = i2; }
    }
}
/* The nseg (key, column) pairs of each row into its result, by the (key, index) order (any merge
 * order gives the same pair). L = 2^ll lanes per row as k_combine (combine_ll), ll > 5 a block
 * per row: a thread per row walking the 8448 partials of each of the 4 rows of 4 x 2^27 one
 * after the other kept the GPU idle. */
__global__ void k_ext_rows_combine(const ull *__restrict__ pk, const ull *__restrict__ pi, size_t rows, size_t nseg,
                                   int ll, int mn, int arg, ull *okey, ull *oidx)
{
    const int lane = threadIdx.x & 31;
    if (ll > 5) {
        GP_SHARED_ARRAY(ull, wk, 32);
        GP_SHARED_ARRAY(ull, wi, 32);
        const int wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
        for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {   /* block-uniform */
            ull bk = kident<ull>(mn), bi = ~0ull;
            ext_lane(pk + r * nseg, pi + r * nseg, nseg, threadIdx.x, blockDim.x, mn, bk, bi);
            ext_tree(32, lane, mn, bk, bi);
            if (lane == 0) { wk[wid] = bk; wi[wid] = bi; }
            __syncthreads();
            if (wid == 0) {
                bk = lane < nw ? wk[lane] : kident<ull>(mn);
                bi = lane < nw ? wi[lane] : ~0ull;
                ext_tree(32, lane, mn, bk, bi);
                if (lane == 0) {
                    if (arg) oidx[r] = bi;
                    else okey[r] = bk;
                }
            }
            __syncthreads();
        }
        return;
    }
    const int L = 1 << ll, gl = lane & (L - 1);
    const size_t gpw = (size_t)(32 >> ll);
    const size_t w0 = ((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5) * gpw;
    const size_t step = (((size_t)gridDim.x * blockDim.x) >> 5) * gpw;
    for (size_t rw = w0; rw < rows; rw += step) {   /* warp-uniform */
        const size_t r = rw + (size_t)(lane >> ll);
        ull bk = kident<ull>(mn), bi = ~0ull;
        if (r < rows) ext_lane(pk + r * nseg, pi + r * nseg, nseg, (size_t)gl, (size_t)L, mn, bk, bi);
        ext_tree(L, gl, mn, bk, bi);
        if (gl == 0 && r < rows) {
            if (arg) oidx[r] = bi;
            else okey[r] = bk;
        }
    }
}

/* axis cols, extrema and argmin/argmax: the mapping of k_sum_cols (CV column vectors x RS row
 * lanes, blockIdx.y slices of rows); per thread VEC (key, row) pairs, merged over the RS lanes in
 * shared memory. One y-block: okey/oidx[c] final; several: extrema by atomicMin/Max into okey
 * (pre-set to the identity), argmin/argmax as partials [y][col] for k_arg_cols_combine. */
template <typename T, int VEC, int U>
__global__ void __launch_bounds__(512) k_ext_cols(const T *__restrict__ x, size_t rows, size_t cols, size_t rpb,
                                                  int CV, int mn, int ab, int arg, ull *okey, ull *oidx)
{
    typedef typename KT<T>::K K;
    GP_EXTERN_SHARED(ull, shk);
    const int t = threadIdx.x, RS = blockDim.x / CV, cx = t % CV, ry = t / CV;
    const size_t c0 = ((size_t)blockIdx.x * CV + cx) * VEC;
    const size_t r0 = (size_t)blockIdx.y * rpb, r1 = r0 + rpb < rows ? r0 + rpb : rows;
    K bk[VEC];
    unsigned bi[VEC];    /* rows of a panel < 2^32 */
#pragma unroll
    for (int j = 0; j < VEC; j++) { bk[j] = kident<K>(mn); bi[j] = ~0u; }
    if (ry < RS && c0 < cols) {
        for (size_t r = r0 + ry; r < r1; r += (size_t)RS * U) {
            T val[U][VEC];
            bool ok[U];
            load_cols<T, VEC, U>(x, cols, c0, r, RS, r1, val, ok, 1);
#pragma unroll
            for (int u = 0; u < U; u++)
                if (ok[u]) {
#pragma unroll
                    for (int j = 0; j < VEC; j++) {
                        K kk = kkey<T>(val[u][j], mn, ab);
                        if (takes(kk, bk[j], bi[j], ~0u, mn)) { bk[j] = kk; bi[j] = (unsigned)(r + (size_t)u * RS); }
                    }
                }
        }
    }
    ull k64[VEC], i64[VEC];
#pragma unroll
    for (int j = 0; j < VEC; j++) { k64[j] = key64<T>(bk[j]); i64[j] = bi[j] == ~0u ? ~0ull : bi[j]; }
    if (RS > 1) {
        ull *sk = shk, *si = shk + (size_t)blockDim.x * VEC;
#pragma unroll
        for (int j = 0; j < VEC; j++) { sk[t * VEC + j] = k64[j]; si[t * VEC + j] = i64[j]; }
        __syncthreads();
        for (int m = RS; m > 1;) {
            int h = (m + 1) >> 1;
            if (ry < m - h) {
#pragma unroll
                for (int j = 0; j < VEC; j++) {
                    int i = t * VEC + j, o = (t + h * CV) * VEC + j;
                    if (pbetter(sk[o], si[o], sk[i], si[i], mn)) { sk[i] = sk[o]; si[i] = si[o]; }
                }
            }
            __syncthreads();
            m = h;
        }
#pragma unroll
        for (int j = 0; j < VEC; j++) { k64[j] = sk[t * VEC + j]; i64[j] = si[t * VEC + j]; }
    }
    if (ry == 0) {
#pragma unroll
        for (int j = 0; j < VEC; j++) {
            size_t c = c0 + j;
            if (c >= cols) break;
            if (gridDim.y == 1) {
                okey[c] = k64[j];
                if (arg) oidx[c] = i64[j];
            } else if (!arg) {
                if (mn) atomicMin(okey + c, k64[j]); else atomicMax(okey + c, k64[j]);
            } else {
                okey[(size_t)blockIdx.y * cols + c] = k64[j];
                oidx[(size_t)blockIdx.y * cols + c] = i64[j];
            }
        }
    }
}

__global__ void k_arg_cols_combine(const ull *__restrict__ pk, const ull *__restrict__ pi, int by, size_t cols, int mn,
                                   ull *okey, ull *oidx)
{
    for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < cols; c += (size_t)gridDim.x * blockDim.x) {
        ull bk = kident<ull>(mn), bi = ~0ull;
        for (int y = 0; y < by; y++) {
            ull k = pk[(size_t)y * cols + c], i = pi[(size_t)y * cols + c];
            if (pbetter(k, i, bk, bi, mn)) { bk = k; bi = i; }
        }
        okey[c] = bk;
        oidx[c] = bi;
    }
}

/* keeps the GPU busy while the host queues what a benchmark times (bench/bench_reduce_gpu.cu) */
__global__ void k_spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}

} // namespace fast

// launchers ----------------------------------------------------------------------------------------

namespace {
struct Tune {
    int fast;      /* 1: the kernels above (namespace fast); 0: the first version's */
    int bs;        /* threads per block */
    int bps;       /* blocks per SM of the grid-stride kernels (at most what fits) */
    int unroll;    /* 16-byte loads in flight per thread (f32 sums; other types 4) */
    int batch;     /* f32 sums: 1 one exact double sum per step of U loads (sumNf), 2 steps in runs, 0 sum4f; 3 runs
                    * proven exact by sums rounded down and up (sumNf_rr) instead of the exponent test */
    int rsteps;    /* row sums: fewest steps of U vectors per lane when choosing lanes per row */
    int autoshape; /* f32 sums: bs and unroll per axis (AutoShape) unless bs, bps or unroll is set */
    int bal;       /* row sums: 1 every lane group gets the same number of (row, segment) items */
    int fin;       /* axis all (and columns as whole sums, cx): 2 (default) no last block: the blocks' limbs stay
                    * in a half of d_zacc, that the next launch leaves alone while it zeroes the other, and the
                    * fetch normalises them on the host (H100 whole sum 0.9971 -> 0.9998x CUB, 2^27 x 4 columns
                    * 0.995 -> 0.999; bench/NOTES.md, thirty-eighth session); 1 the last block (a block count)
                    * normalises the limbs; 0 (axis all) a memset, the kernel and a k_norm launch */
    int fm;        /* row sums: 1 a group whose lanes' runs pass the span test together merges by plain adds
                    * (2^20 x 512: 0.887 -> 0.893-0.894x CUB, the others equal; bench/NOTES.md, sixth session) */
    int ug;        /* f32/f64 sums: 1 a step whose U loads are all in range loads them without a bounds test, from
                    * one pointer (axis all, rows: 32-bit offsets; cols: a stepped pointer); 0: a 64-bit test
                    * and address per load (extrema ignore it: always the first way) */
    int rx;        /* row sums: 1 few long rows run as whole sums (k_sum_all<T, U, true>, fsum_rows_x), each row
                    * at least two resident blocks; 2 also one block per row when all rows fit one wave; 0 never */
    int cx;        /* column sums: 1 one, two or four f32 columns (one f64 column) run as one whole sum with a lane
                    * per column (k_sum_all<T, U, false, C>, fsum_cols_x); 0 never */
    int lb;        /* f32 k_sum_all at U = 8: 0 __launch_bounds__(512) (ptxas keeps it at 64 registers), 3 256-thread
                    * blocks, 3 per SM (78-80 registers); 4 256-thread blocks, 4 per SM (64 registers); -1 (default) 3
                    * for two or four columns as whole sums (C > 1), 4 for the other sweeps with dyn (the whole sum,
                    * rows as whole sums, one column as a whole sum), else 0 */
    int rw;        /* f32 row sums of short rows of whole 512-byte units: 1 (default) a warp per batch of rwr rows
                    * with contiguous loads (k_sum_rows_w) for rows of 4 or 8 units; 2 the same for 4..60 units
                    * (a multiple of 4); 0 the row kernel */
    int rwr;       /* rows per batch of k_sum_rows_w: 2 (default) or 4 */
    int rwp;       /* k_sum_rows_w on rows of 4 units, 2 a batch, 8 loads: 2 (default) the next batch's loads issued
                    * before this batch's adds and merge, 256-thread blocks, 2 per SM (3 spilled: 0.79x CUB); 0 not */
    int rws;       /* with rwp=2: 1 (default) the fast-path row sums staged in shared memory and stored every 32 steps
                    * of the grid (128-byte runs, bursts of 1 MiB on 132 SMs) instead of as they come; 0 not */
    int ri;        /* row sums by the row kernel with several segments a row: 1 segment s of nseg the row's chunks
                    * of G U vectors s, s + nseg, ... (neighbouring warps read neighbouring memory); 0 contiguous
                    * segments; -1 (default) 1 where the memory bus is wider than 5120 bits, else 0: 512 x 2^20
                    * f32 rows on an H200 (6144 bits) 0.939-0.948x CUB -> 0.967-0.971, on an H100 (5120 bits)
                    * 0.973-0.982 -> 0.965-0.973 (bench/NOTES.md, sessions 32-34) */
    int wc;        /* k_sum_all (axis all, rows and columns as whole sums): 1 a warp's U loads of a step read 512 U
                    * contiguous bytes; 0 (default) a block tile's U rows of blockDim.x vectors, a warp 512 B of each */
    int dyn;       /* f32 whole sums (axis all of one launch, rows and columns as whole sums), batch 0-2: 8 (default)
                    * the last dyn / 64 of the warps' units (32 U vectors) on demand from 32 counters, 1..64
                    * likewise, 0 a grid-stride sweep alone (H100 axis all: 0.9919 -> 0.9960x CUB; bench/NOTES.md,
                    * thirty-sixth session) */
    int ck;        /* f32 whole sums with dyn: the static share in chunks of ck units (4 KiB of a warp each), block b
                    * taking chunks b, b + grid, ...; 0 (default) chunks of a block's warps, the grid-stride order
                    * (H100: ck=16, 32 equal to it, 64..1024 0.1-1.8 points under; bench/NOTES.md, forty-first session) */
    int fr;        /* k_sum_all's block count: 1 (default) one acquire-release atomic; 0 fence, count, fence (H100:
                    * 0.9960 -> 0.9968x CUB with dyn=8, 0.9919 -> 0.9927 without; bench/NOTES.md, thirty-sixth session) */
};
/* What the last *_dev call enqueued, for *_fetch. */
struct Plan {
    int what;      /* 0 nothing, 1 sum, 2 extremum, 3 argmin/argmax */
    int legacy;    /* limbs per target (sums) / keys + NaN counts (extrema) of the first version */
    int limbs;     /* sums: limbs per target, normalised in d_acc or raw (below) (axis all; columns by fsum_cols_x) */
    size_t rows, cols, xcap;
    gp_rtype t;
    gp_rkind k;
    gp_raxis axis;
    gp_xfmt f;
    const ull *raw;   /* with limbs, fin=2: the targets' limbs as the blocks' atomics left them, w + 1 words a
                       * target (the last is the unused block counter), in a half of d_zacc; NULL: in d_acc */
};
} // namespace

struct gp_cuda_reduce {
    int dev;
    int sms;
    int wide_bus;         /* memory bus wider than 5120 bits (tuning ri=-1) */
    cudaStream_t stream;
    void *d_in;
    size_t in_cap;
    long long *d_acc;     /* limbs: axis all, and the first version's per-target accumulators */
    size_t acc_cap;       /* bytes */
    void *d_out;          /* fast kernels' results: row values, (hi, lo) per column, keys, indices */
    size_t out_cap;
    void *d_part;         /* partials of y-blocks / blocks */
    size_t part_cap;
    unsigned *d_exc;      /* exception list (targets for the exact fallback) */
    size_t exc_cap;
    long long *d_xacc;    /* normalised limbs of listed columns */
    size_t xacc_cap;
    ull *d_cnt;           /* listed targets; cols: lo-list slots, runs, slots in runs (put_lo, put_run) */
    ull *d_zacc;          /* two halves of GP_ZW words (zscratch), each: the limbs + a block counter of axis all's
                           * one chunk or of each column as a whole sum, then dyn's counters; zero between calls
                           * but for the half that the last launch left its limbs in (fin=2) */
    int zpar;             /* the half of d_zacc that the next launch adds into */
    const ull *raw;       /* the half that the last launch left its limbs in (fin=2), for Plan.raw */
    ull *d_rx;            /* rows as whole sums: limbs + a block counter per row, zero between calls */
    size_t rx_cap;        /* bytes */
    ull *d_stats;         /* k_stats' six figures; verify's fingerprints per row or column */
    size_t stats_cap;
    long long *h_acc;     /* pinned staging for results */
    size_t h_cap;
    Tune tune;
    Plan plan;
    size_t fallbacks;
    char desc[160];
    char tdesc[192];
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
#define GROW(ptr, cap, need, pinned)                                                       \
    do {                                                                                   \
        int rc_ = grow((void **)&(ptr), &(cap), (need) ? (need) : 16, pinned, err, errlen); \
        if (rc_) return rc_;                                                               \
    } while (0)

static void tune_desc(gp_cuda_reduce *c)
{
    snprintf(c->tdesc, sizeof c->tdesc,
             "kernels=%s,bs=%d,bps=%d,unroll=%d,batch=%d,rsteps=%d,auto=%d,bal=%d,fin=%d,fm=%d,ug=%d,rx=%d,cx=%d,lb=%d,rw=%d,rwr=%d,"
             "rwp=%d,rws=%d,ri=%d,wc=%d,dyn=%d,ck=%d,fr=%d",
             c->tune.fast ? "fast" : "legacy", c->tune.bs, c->tune.bps, c->tune.unroll, c->tune.batch, c->tune.rsteps,
             c->tune.autoshape, c->tune.bal, c->tune.fin, c->tune.fm, c->tune.ug, c->tune.rx, c->tune.cx, c->tune.lb,
             c->tune.rw, c->tune.rwr, c->tune.rwp, c->tune.rws, c->tune.ri, c->tune.wc, c->tune.dyn, c->tune.ck, c->tune.fr);
}

extern "C" int gp_cuda_reduce_tune(gp_cuda_reduce *c, const char *spec, char *err, size_t errlen)
{
    Tune t = c->tune;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) { snprintf(err, errlen, "GP_CUDA_REDUCE: '%s': expected key=value", tok); return GP_EINVAL; }
        *eq = 0;
        const char *v = eq + 1;
        int n = atoi(v);
        if (!strcmp(tok, "kernels") && (!strcmp(v, "fast") || !strcmp(v, "legacy"))) t.fast = !strcmp(v, "fast");
        else if (!strcmp(tok, "bs") && (n == 64 || n == 128 || n == 256 || n == 512)) { t.bs = n; t.autoshape = 0; }
        else if (!strcmp(tok, "bps") && n >= 1 && n <= 64) { t.bps = n; t.autoshape = 0; }
        else if (!strcmp(tok, "unroll") && (n == 2 || n == 4 || n == 8 || n == 16)) { t.unroll = n; t.autoshape = 0; }
        else if (!strcmp(tok, "auto") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.autoshape = n;
        else if (!strcmp(tok, "batch") && v[0] >= '0' && v[0] <= '3' && !v[1]) t.batch = n;
        else if (!strcmp(tok, "rsteps") && n >= 1 && n <= 64) t.rsteps = n;
        else if (!strcmp(tok, "bal") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.bal = n;
        else if (!strcmp(tok, "fin") && (!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "2"))) t.fin = n;
        else if (!strcmp(tok, "fm") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.fm = n;
        else if (!strcmp(tok, "ug") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.ug = n;
        else if (!strcmp(tok, "rx") && (!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "2"))) t.rx = n;
        else if (!strcmp(tok, "cx") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.cx = n;
        else if (!strcmp(tok, "lb") && (!strcmp(v, "-1") || !strcmp(v, "0") || !strcmp(v, "3") || !strcmp(v, "4"))) t.lb = n;
        else if (!strcmp(tok, "rw") && (!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "2"))) t.rw = n;
        else if (!strcmp(tok, "rwr") && (n == 2 || n == 4)) t.rwr = n;
        else if (!strcmp(tok, "rwp") && (!strcmp(v, "0") || !strcmp(v, "2"))) t.rwp = n;
        else if (!strcmp(tok, "rws") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.rws = n;
        else if (!strcmp(tok, "ri") && (!strcmp(v, "-1") || !strcmp(v, "0") || !strcmp(v, "1"))) t.ri = n;
        else if (!strcmp(tok, "wc") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.wc = n;
        else if (!strcmp(tok, "fr") && (!strcmp(v, "0") || !strcmp(v, "1"))) t.fr = n;
        else if (!strcmp(tok, "dyn") && v[0] >= '0' && v[0] <= '9' && n >= 0 && n <= 64) t.dyn = n;
        else if (!strcmp(tok, "ck") && (n == 0 || (n >= 8 && n <= 1024 && !(n & (n - 1))))) t.ck = n;
        else {
            snprintf(err, errlen, "GP_CUDA_REDUCE: %s=%s: expected kernels=fast|legacy, bs=64|128|256|512, bps=1..64, "
                     "unroll=2|4|8|16 (16: f32 rows and cols), batch=0|1|2|3, rsteps=1..64, auto=0|1, bal=0|1, fin=0|1|2, "
                     "fm=0|1, ug=0|1, rx=0|1|2, cx=0|1, lb=-1|0|3|4, rw=0|1|2, rwr=2|4, rwp=0|2, rws=0|1, ri=-1|0|1, wc=0|1, dyn=0..64, ck=0|8..1024 (a power of two), fr=0|1", tok,
                     v);
            return GP_EINVAL;
        }
    }
    c->tune = t;
    tune_desc(c);
    return 0;
}
extern "C" const char *gp_cuda_reduce_tuning(gp_cuda_reduce *c) { return c ? c->tdesc : ""; }
extern "C" size_t gp_cuda_reduce_fallbacks(gp_cuda_reduce *c) { return c ? c->fallbacks : 0; }
extern "C" void *gp_cuda_reduce_stream(gp_cuda_reduce *c) { return c ? (void *)c->stream : NULL; }

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
    c->tune = Tune{1, 256, 8, 4, 2, 4, 1, 1, 2, 1, 1, 1, 1, -1, 1, 2, 2, 1, -1, 0, 8, 0, 1};
    tune_desc(c);
    int rc = cuerr(cudaSetDevice(c->dev), "cudaSetDevice", err, errlen);
    if (!rc) rc = cuerr(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate", err, errlen);
    if (!rc) rc = cuerr(cudaMalloc((void **)&c->d_cnt, 32), "cudaMalloc", err, errlen);
    const size_t zbytes = 2 * GP_ZW * sizeof(ull);
    if (!rc) rc = cuerr(cudaMalloc((void **)&c->d_zacc, zbytes), "cudaMalloc", err, errlen);
    if (!rc) rc = cuerr(cudaMemsetAsync(c->d_zacc, 0, zbytes, c->stream), "cudaMemsetAsync", err, errlen);
    const char *env = getenv("GP_CUDA_REDUCE");
    if (!rc && env && *env) rc = gp_cuda_reduce_tune(c, env, err, errlen);
    if (rc) { gp_cuda_reduce_destroy(c); return rc; }
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, c->dev);
    c->sms = p.multiProcessorCount;
    c->wide_bus = p.memoryBusWidth > 5120;
    snprintf(c->desc, sizeof c->desc, "cuda:%d %s (sm_%d%d)", c->dev, p.name, p.major, p.minor);
    *out = c;
    return 0;
}

extern "C" void gp_cuda_reduce_destroy(gp_cuda_reduce *c)
{
    if (!c) return;
    cudaSetDevice(c->dev);
    void *dev[] = {c->d_in, c->d_acc, c->d_out, c->d_part, c->d_exc, c->d_xacc, c->d_cnt, c->d_zacc, c->d_stats, c->d_rx};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        if (dev[i]) cudaFree(dev[i]);
    if (c->h_acc) cudaFreeHost(c->h_acc);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

extern "C" const char *gp_cuda_reduce_desc(gp_cuda_reduce *c) { return c ? c->desc : "cuda"; }

/* ---- the first version's launchers (kernels=legacy) ---- */
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
            GP_LAUNCH((unsigned)blocks, bs, w * sizeof(ull), c->stream, k_sum_all<T>)(x + s, m, sq, f, g);
            GP_LAUNCH(1, 32, 0, c->stream, k_norm)(acc, 1, f.nl, w);
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
        if (vec) GP_LAUNCH(grid, bs, 0, c->stream, k_sum_cols<T, 16 / sizeof(T)>)(x, rows, cols, rpb, sq, f, g);
        else GP_LAUNCH(grid, bs, 0, c->stream, k_sum_cols<T, 1>)(x, rows, cols, rpb, sq, f, g);
        GP_LAUNCH((unsigned)((cols + 255) / 256), 256, 0, c->stream, k_norm)(acc, cols, f.nl, w);
    } else {
        size_t warps = bs / 32, blocks = (rows + warps - 1) / warps, cap = (size_t)c->sms * 16;
        if (blocks > cap) blocks = cap;
        GP_LAUNCH((unsigned)blocks, bs, warps * w * sizeof(ull), c->stream, k_sum_rows<T>)(x, rows, cols, sq, f, acc);
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
        GP_LAUNCH((unsigned)(blocks ? blocks : 1), bs, 0, c->stream, k_ext_all<T>)(x, n, k, key, nan);
    } else if (axis == GP_AXIS_COLS) {
        size_t bx = (cols + bs - 1) / bs, want = (size_t)c->sms * 8, by = bx >= want ? 1 : (want + bx - 1) / bx;
        size_t rpb = (rows + by - 1) / by;
        if (rpb < 16) rpb = 16;
        by = (rows + rpb - 1) / rpb;
        if (by > 65535) { by = 65535; rpb = (rows + by - 1) / by; }
        GP_LAUNCH(dim3((unsigned)bx, (unsigned)(by ? by : 1)), bs, 0, c->stream, k_ext_cols<T>)(x, rows, cols, rpb, k, key, nan);
    } else {
        size_t warps = bs / 32, blocks = (rows + warps - 1) / warps, cap = (size_t)c->sms * 16;
        if (blocks > cap) blocks = cap;
        GP_LAUNCH((unsigned)blocks, bs, 0, c->stream, k_ext_rows<T>)(x, rows, cols, k, key, nan);
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


#define FLOAT_SWITCH(t, CALL)                                                             \
    if ((t) == GP_RT_F32) { typedef float T; CALL; } else { typedef double T; CALL; }

/* ---- the fast launchers ---- */
/* Blocks for a grid-stride kernel: SMs x min(bps, blocks that fit on one SM), at most `work`. */
template <typename KF>
static unsigned grid_for(gp_cuda_reduce *c, KF kernel, int bs, size_t smem, size_t work)
{
    int occ = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, bs, smem) != cudaSuccess || occ < 1) {
        cudaGetLastError();
        occ = 1;
    }
    size_t b = (size_t)c->sms * (size_t)(occ < c->tune.bps ? occ : c->tune.bps);
    if (b > work) b = work;
    if (b < 1) b = 1;
    return (unsigned)(b < 0x7fffffff ? b : 0x7fffffff);
}
/* G = 2^lg lanes per row: the largest power of two <= min(32, rlanes) that leaves every lane at
 * least `steps` steps of U vectors (rows of 512 f32 at G = 16 spent more on the lg levels of
 * shuffle merges than on the data: sums and extrema use tuning rsteps, default 4). */
static int rows_lg(size_t cols, size_t es, int U, int steps)
{
    size_t nv = cols * es / 16;
    int lg = 0;
    while (lg < 5 && ((size_t)2 << lg) * (size_t)U * (size_t)steps <= nv) lg++;
    return lg;
}
/* Segments per row: enough (row, segment) items for every group of a full grid (SMs x bps
 * blocks), each segment at least 4 steps of G x U vectors. */
static size_t rows_nseg(gp_cuda_reduce *c, size_t rows, size_t cols, size_t es, int U, int lg)
{
    size_t nv = cols * es / 16, G = (size_t)1 << lg;
    size_t want = (size_t)c->sms * (size_t)c->tune.bps * ((size_t)c->tune.bs / G);
    if (rows >= want || G < 32) return 1;
    size_t nseg = (want + rows - 1) / rows, minv = G * (size_t)U * 4;
    if (nseg > nv / minv) nseg = nv / minv;
    return nseg > 1 ? nseg : 1;
}

/* Segments per row (bal=1): at least 4 items for every one of `groups` lane groups when the rows
 * are long enough, each segment at least 4 steps of G x U vectors; 1 when rows >= groups. */
static size_t rows_nseg_bal(size_t rows, size_t cols, size_t es, int U, int lg, size_t groups)
{
    size_t nv = cols * es / 16, G = (size_t)1 << lg;
    if (rows >= groups || G < 32) return 1;
    size_t nseg = 4 * groups / rows, minv = G * (size_t)U * 4;   /* items <= 4 groups: k = 4, all groups */
    if (nseg > nv / minv) nseg = nv / minv;
    return nseg > 1 ? nseg : 1;
}
/* Geometry of the row kernels (k_sum_rows, k_ext_rows): 2^lg lanes per row (rows_lg, tuning
 * rsteps), nseg segments per row, grid blocks of tune.bs threads. bal=1: fewer rows than lane
 * groups: rows cut into segments so that every group of a full grid gets the same number k of
 * (row, segment) items, and the grid cut to ceil(items / k) groups; more rows: the full grid
 * (cutting it to balance 16384 rows lost more loads in flight than the tail cost: 0.917 vs 0.931x
 * CUB). bal=0: rows_nseg. */
struct RowGeo {
    int lg;
    size_t nseg;
    unsigned grid;
};
template <typename KF>
static RowGeo row_geo(gp_cuda_reduce *c, KF kernel, size_t rows, size_t cols, size_t es, int U)
{
    RowGeo r;
    const int bs = c->tune.bs;
    r.lg = rows_lg(cols, es, U, c->tune.rsteps);
    const size_t per = (size_t)bs >> r.lg;
    if (c->tune.bal) {
        const size_t groups = (size_t)grid_for(c, kernel, bs, 0, (size_t)-1) * per;
        r.nseg = rows_nseg_bal(rows, cols, es, U, r.lg, groups);
        const size_t items = rows * r.nseg, k = (items + groups - 1) / groups;
        const size_t used = r.nseg > 1 ? (items + k - 1) / k : groups;
        r.grid = (unsigned)(((used < items ? used : items) + per - 1) / per);
    } else {
        r.nseg = rows_nseg(c, rows, cols, es, U, r.lg);
        r.grid = grid_for(c, kernel, bs, 0, (rows * r.nseg + per - 1) / per);
    }
    return r;
}
/* Rows of exactly one aligned 16-byte vector: one thread per row (k_sum_rows1, k_ext_rows1) */
static bool rows16(const void *x, size_t cols, size_t es)
{
    return cols * es == 16 && ((uintptr_t)x & 15) == 0;
}
/* Lanes per target of the combines (k_combine, k_ext_rows_combine: blocks of 256): 2^ll so that
 * each lane merges at least 4 partials (up to a warp); ll = 8, a block per target, for few targets
 * of many partials. *nb: the blocks to launch. */
static int combine_ll(gp_cuda_reduce *c, size_t n, size_t nseg, unsigned *nb)
{
    int ll = 0;
    while (ll < 5 && ((size_t)8 << ll) <= nseg) ll++;
    if (nseg >= 1024 && n < (size_t)c->sms * 8) ll = 8;
    const size_t per = ll > 5 ? 1 : (size_t)256 >> ll, b = (n + per - 1) / per, cap = (size_t)c->sms * 8;
    *nb = (unsigned)(b < cap ? b : cap);
    return ll;
}
static void launch_combine(gp_cuda_reduce *c, const double *phi, const double *plo, size_t n, size_t nseg, size_t ts,
                           size_t ss, double *out, double *hi, double *lo)
{
    unsigned nb;
    const int ll = combine_ll(c, n, nseg, &nb);
    GP_LAUNCH(nb, 256, 0, c->stream, fast::k_combine)(phi, plo, n, nseg, ts, ss, ll, out, hi, lo, c->d_cnt, c->d_exc);
}

/* Geometry of the column kernels: CV column vectors x RS row lanes per block, bx x by blocks,
 * rpb rows per y-block (rows split only when the column blocks alone leave the GPU half idle). */
struct ColGeo {
    int CV;
    size_t bx, by, rpb, smem;
};
template <typename KF>
static ColGeo col_geo(gp_cuda_reduce *c, KF kernel, size_t rows, size_t cols, int vec, int U, size_t smem_per_slot,
                      bool stage)
{
    ColGeo g;
    const int bs = c->tune.bs;
    size_t vpr = (cols + vec - 1) / vec;
    g.CV = vpr < (size_t)bs ? (int)vpr : bs;
    int RS = bs / g.CV;
    g.smem = (RS > 1 || stage) ? (size_t)bs * vec * smem_per_slot : 0;   /* stage: k_sum_cols' results */
    g.bx = (vpr + g.CV - 1) / g.CV;
    int occ = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, bs, g.smem) != cudaSuccess || occ < 1) {
        cudaGetLastError();
        occ = 1;
    }
    size_t want = (size_t)c->sms * (size_t)(occ < c->tune.bps ? occ : c->tune.bps);
    /* as many y-blocks as fill one wave, never a partial second wave (288 blocks where 264 fit
     * took 0.41x CUB on 16384 x 32768 instead of ~0.7x) */
    g.by = g.bx * 2 >= want ? 1 : want / g.bx;
    if (g.by < 1) g.by = 1;
    size_t minrows = (size_t)RS * U * 4;   /* at least 4 steps per thread */
    g.rpb = (rows + g.by - 1) / g.by;
    if (g.rpb < minrows) g.rpb = minrows;
    g.by = (rows + g.rpb - 1) / g.rpb;
    if (g.by < 1) g.by = 1;
    if (g.by > 65535) { g.by = 65535; g.rpb = (rows + g.by - 1) / g.by; }
    return g;
}
static int col_vec(size_t cols, size_t es, int maxvec)
{
    int v = (int)(16 / es);
    return ((cols * es) % 16 == 0 && v <= maxvec) ? v : 1;
}

/* Elements of one axis-all launch: < 2^30 deposits per limb between normalisations; f32 deposits
 * at most once per element (no overflow possible), other types twice. */
static size_t sum_chunk(bool f32) { return f32 ? (size_t)1 << 29 : (size_t)1 << 28; }

/* k_sum_all<T, U, ROWS, C> under the launch bounds of tuning lb (f32 at U = 8 only; the others
 * always 512), and its block size. Columns as whole sums (C > 1) take 256 x 3 by default: at 64
 * registers their load loop spills the run state (2^27 x 4 f32 0.86x CUB on an H200, 0.97 at 3
 * blocks of 256 with 79 registers); the whole sum and the rows lose 0.3-0.6 points there
 * (bench/NOTES.md, twenty-sixth session). The whole sum and rows as whole sums with dyn (DYN) take
 * 256 x 4: their loop fits 64 registers since the thread state's special counts are 32-bit (before,
 * it spilled the run state there and took 256 x 3); H100, axis all 0.996 -> 0.997-0.998x CUB, 4 x
 * 2^27 rows 0.989 -> 0.993 (bench/NOTES.md, thirty-seventh session). */
/* tuning dyn on (f32 only, and not with batch=3's directed-rounding loop) */
static bool use_dyn(const gp_cuda_reduce *c) { return c->tune.dyn && c->tune.batch != 3; }
/* k_sum_all's dyn argument: tuning dyn, and ck above its low 8 bits */
static int dyn_arg(const gp_cuda_reduce *c) { return c->tune.dyn | c->tune.ck << 8; }

template <typename T, int U, bool ROWS, int C, bool DYN = false>
static auto sum_all_kernel(const gp_cuda_reduce *c, int *bs)
{
    *bs = c->tune.bs;
    if constexpr (std::is_same<T, float>::value && U == 8) {
        if (c->tune.lb == 3 || (c->tune.lb < 0 && C > 1)) {
            *bs = 256;
            return fast::k_sum_all<T, U, ROWS, C, 3, DYN>;
        }
        if (c->tune.lb == 4 || (c->tune.lb < 0 && DYN)) {
            *bs = 256;
            return fast::k_sum_all<T, U, ROWS, C, 4, DYN>;
        }
    }
    return fast::k_sum_all<T, U, ROWS, C, 0, DYN>;
}

/* The zero half of d_zacc that the next axis-all or columns-as-whole-sums launch adds into, and in
 * *other the half that launch must zero (k_sum_all's zo): the one the launch before left its limbs
 * in, read by a fetch queued before this launch if at all */
static ull *zscratch(gp_cuda_reduce *c, ull **other)
{
    ull *h = c->d_zacc + (size_t)c->zpar * GP_ZW;
    *other = c->d_zacc + (size_t)(1 - c->zpar) * GP_ZW;
    c->zpar ^= 1;
    return h;
}

template <typename T, int U>
static void fsum_all(gp_cuda_reduce *c, const T *x, size_t n, int sq, gp_xfmt f, long long *acc, ull *zacc)
{
    const int w = f.nl + GP_XSPECIAL;
    int bs;
    auto kern = sum_all_kernel<T, U, false, 1>(c, &bs);
    if constexpr (std::is_same<T, float>::value)   /* tuning dyn: one chunk only (its counters are in zacc) */
        if (zacc && use_dyn(c)) kern = sum_all_kernel<T, U, false, 1, true>(c, &bs);
    const size_t chunk = sum_chunk(std::is_same<T, float>::value);
    const size_t smem = (size_t)w * sizeof(ull);
    for (size_t s = 0; s < n; s += chunk) {
        size_t m = n - s < chunk ? n - s : chunk;
        size_t work = (m / (16 / sizeof(T)) + (size_t)bs * U - 1) / ((size_t)bs * U);
        unsigned g = grid_for(c, kern, bs, smem, work);
        if (zacc) {   /* one chunk: limbs in a zero half of zacc, normalised into acc by the last block (fin=1) or
                       * left there for the fetch (fin=2) */
            ull *zo, *zh = zscratch(c, &zo);
            GP_LAUNCH(g, bs, smem, c->stream, kern)(x, n, sq, c->tune.batch, c->tune.ug, c->tune.wc, dyn_arg(c), c->tune.fr, f, zh,
                                                     c->tune.fin == 2 ? (long long *)NULL : acc, (double *)NULL, zo);
            c->raw = c->tune.fin == 2 ? zh : NULL;
            break;
        }
        GP_LAUNCH(g, bs, smem, c->stream, kern)(x + s, m, sq, c->tune.batch, c->tune.ug, c->tune.wc, 0, c->tune.fr, f, reinterpret_cast<ull *>(acc),
                                                 (long long *)NULL, (double *)NULL, (ull *)NULL);
        GP_LAUNCH(1, 32, 0, c->stream, k_norm)(acc, 1, f.nl, w);
    }
}

/* d_rx of at least `bytes`, zero: zeroed when it grows; every k_sum_all launch on it leaves it zero */
static int rx_scratch(gp_cuda_reduce *c, size_t bytes, char *err, size_t errlen)
{
    if (bytes > c->rx_cap) {
        GROW(c->d_rx, c->rx_cap, bytes, 0);
        CK(cudaMemsetAsync(c->d_rx, 0, c->rx_cap, c->stream), "cudaMemsetAsync");
    }
    return 0;
}

/* Row sums of few long rows as whole sums (k_sum_all<T, U, true>, tuning rx): rows that start
 * 16-byte aligned, at least 4 tiles (blockDim.x x U vectors) long and short enough for one
 * launch's deposits (sum_chunk), and at least two resident blocks of a grid for each; each row
 * gets an equal share of them (one wave: every row done at once). 4 x 2^27 f32: 0.974 -> 0.985x
 * CUB on an H100; with one block per row (512 x 2^20) it measured 0.973 against 0.978 for the
 * row kernel, so that stays there (bench/NOTES.md, twenty-fifth session). *done = false: not
 * such a shape, nothing launched. */
template <typename T, int U>
static int fsum_rows_x(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, double *out,
                       bool *done, char *err, size_t errlen)
{
    *done = false;
    const int w = f.nl + GP_XSPECIAL;
    int bs;
    constexpr bool f32 = std::is_same<T, float>::value;
    const bool dyn = f32 && use_dyn(c);
    auto kern = sum_all_kernel<T, U, true, 1>(c, &bs);
    if constexpr (f32)
        if (dyn) kern = sum_all_kernel<T, U, true, 1, true>(c, &bs);
    const size_t vpr = cols * sizeof(T) / 16, tile = (size_t)bs * U, smem = (size_t)w * sizeof(ull);
    if (!c->tune.rx || !rows || ((uintptr_t)x & 15) || (cols * sizeof(T)) % 16 || vpr < 4 * tile ||
        cols > sum_chunk(std::is_same<T, float>::value))
        return 0;
    const size_t slots = grid_for(c, kern, bs, smem, (size_t)-1);
    size_t bpr = slots / rows, most = (vpr + tile - 1) / tile;   /* blocks per row: at most a tile each */
    if (bpr < (c->tune.rx == 2 ? 1u : 2u) || rows > 65535) return 0;   /* rx=2: also a block per row in one wave */
    if (bpr > most) bpr = most;
    int rc = rx_scratch(c, rows * ((size_t)(w + 1) + (dyn ? GP_DYN_SLOTS : 0)) * sizeof(ull), err, errlen);
    if (rc) return rc;
    GP_LAUNCH(dim3((unsigned)bpr, (unsigned)rows), bs, smem, c->stream, kern)(
        x, cols, sq, c->tune.batch, c->tune.ug, c->tune.wc, dyn_arg(c), c->tune.fr, f, c->d_rx, (long long *)NULL, out,
        (ull *)NULL);
    *done = true;
    return 0;
}

/* Column sums of one, two or four f32 columns (one f64 column) as one whole sum, a lane per
 * column (k_sum_all<T, U, false, C>, tuning cx). The column kernel's row lanes hold an expansion
 * per column and merge each step into it by TwoSum; here each thread adds one column, so the whole
 * sum's runs of exact double sums apply: 2^27 x 4 f32 0.92 -> 0.97x CUB on an H200, 0.93 -> 0.996
 * on an H100 (bench/NOTES.md, twenty-sixth session). Two f64 columns would work the same way
 * (col_exchange takes any C dividing a vector) but were not measured, so they keep the column
 * kernel. The matrix must start 16-byte aligned and be one launch's deposits (sum_chunk).
 * Normalised limbs of each column into d_acc (fin=2: raw limbs in a half of d_zacc, c->raw); *done =
 * false: not such a shape, nothing launched. */
template <typename T, int U>
static int fsum_cols_x(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, bool *done,
                       char *err, size_t errlen)
{
    *done = false;
    const size_t n = rows * cols, w = (size_t)f.nl + GP_XSPECIAL;
    constexpr bool f32 = std::is_same<T, float>::value;
    if (!c->tune.cx || !n || ((uintptr_t)x & 15) || (f32 ? 4 % cols : cols != 1) || n > sum_chunk(f32)) return 0;
    const bool dyn = f32 && use_dyn(c);
    GROW(c->d_acc, c->acc_cap, cols * w * sizeof(long long), 0);
    int bs;
    auto kern = sum_all_kernel<T, U, false, 1>(c, &bs);
    if constexpr (f32) {
        if (cols == 1 && dyn) kern = sum_all_kernel<T, U, false, 1, true>(c, &bs);
        if (cols == 2) kern = dyn ? sum_all_kernel<T, U, false, 2, true>(c, &bs) : sum_all_kernel<T, U, false, 2>(c, &bs);
        if (cols == 4) kern = dyn ? sum_all_kernel<T, U, false, 4, true>(c, &bs) : sum_all_kernel<T, U, false, 4>(c, &bs);
    }
    const size_t smem = cols * w * sizeof(ull), work = (n / (16 / sizeof(T)) + (size_t)bs * U - 1) / ((size_t)bs * U);
    const unsigned g = grid_for(c, kern, bs, smem, work ? work : 1);
    ull *zo, *zh = zscratch(c, &zo);   /* a zero half of zacc (fsum_all's) */
    GP_LAUNCH(g, bs, smem, c->stream, kern)(x, n, sq, c->tune.batch, c->tune.ug, c->tune.wc, dyn_arg(c), c->tune.fr, f, zh,
                                             c->tune.fin == 2 ? (long long *)NULL : c->d_acc, (double *)NULL, zo);
    c->raw = c->tune.fin == 2 ? zh : NULL;
    *done = true;
    return 0;
}

/* Short f32 row sums of whole 512-byte units (k_sum_rows_w, tuning rw, rwr): rows of 4 or 8 units
 * (rw=2: 4..60, a multiple of 4), starting 16-byte aligned, plain sums (no squares) in runs
 * (batch=2). 8 loads in flight (autoshape; else unroll), 2 rows a batch (rwr): 2^20 x 512
 * 0.944-0.947 -> 0.955-0.958x CUB on one H100 board, 0.958-0.962 -> 0.963-0.964 on another, wide
 * data 0.436 -> 0.477 (bench/NOTES.md, twenty-seventh session); 2^19 x 1024 0.971 -> 0.974. Longer
 * rows lose to the row kernel (a step of U units of one row, a rolled loop per row): 2^18 x 2048
 * 0.979 -> 0.969, 2^17 x 4096 0.984 -> 0.936 (H100, twenty-eighth session), so only rw=2 takes them.
 * Rows of 4 units with 8 loads, 2 a batch, take the prefetching form (rwp=2: the next batch's loads
 * before this batch's merge, 256-thread blocks): 2^20 x 512 0.949-0.952 -> 0.953-0.956, wide data
 * 0.406 either way (H100, twenty-ninth session; predicted above 0.98: the plain probe gained only
 * 0.962 -> 0.965 the same way). In that form the row sums go out from shared memory every 32 steps
 * (rws=1): a store per batch among the loads cost the plain probe 4.4 points (1.016 without stores,
 * 0.967 with, 1.001 staged), k_sum_rows_w 0.962-0.965 -> 0.980, wide data 0.418 -> 0.413 (H100,
 * thirtieth session). Returns false: not such a shape, nothing launched. */
static bool fsum_rows_w(gp_cuda_reduce *c, const float *x, size_t rows, size_t cols, int sq, gp_xfmt f, double *out)
{
    const size_t K = cols / 128;
    if (!c->tune.rw || sq || c->tune.batch != 2 || !rows || ((uintptr_t)x & 15) || cols % 128 || K < 4 || K % 4 ||
        K > (c->tune.rw == 2 ? 60u : 8u))
        return false;
    const int bs = c->tune.bs, w = f.nl + GP_XSPECIAL, RW = c->tune.rwr, U = c->tune.autoshape ? 8 : c->tune.unroll;
    void (*kern)(const fast::A16<float> *, size_t, unsigned, double *, ull *, unsigned *);
    int rk = RW, kbs = bs;   /* the kernel's rows a batch, block size */
    if (K == 4 && U == 8 && RW == 2 && c->tune.rwp) {
        kern = c->tune.rws ? fast::k_sum_rows_w<8, 4, 2, true, true> : fast::k_sum_rows_w<8, 4, 2, true>;
        kbs = 256;
    } else if (K == 4 && U >= 16 && RW >= 4) { kern = fast::k_sum_rows_w<16, 4, 4>; rk = 4; }
    else if (K == 4 && U >= 8) { kern = RW == 2 ? fast::k_sum_rows_w<8, 4, 2> : fast::k_sum_rows_w<8, 4, 4>; rk = RW == 2 ? 2 : 4; }
    else if (U >= 8 && K % 8 == 0) kern = RW == 2 ? fast::k_sum_rows_w<8, 0, 2> : fast::k_sum_rows_w<8, 0, 4>;
    else kern = RW == 2 ? fast::k_sum_rows_w<4, 0, 2> : fast::k_sum_rows_w<4, 0, 4>;
    const size_t per = (size_t)kbs / 32, batches = (rows + rk - 1) / rk;
    const unsigned g = grid_for(c, kern, kbs, 0, (batches + per - 1) / per);
    GP_LAUNCH(g, kbs, 0, c->stream, kern)(reinterpret_cast<const fast::A16<float> *>(x), rows, (unsigned)K, out, c->d_cnt,
                                          c->d_exc);
    GP_LAUNCH((unsigned)c->sms, 256, 8 * w * sizeof(ull), c->stream, fast::k_rows_exact<float>)(x, cols, sq, f, c->d_cnt,
                                                                                          c->d_exc, out);
    return true;
}

/* tuning ri, auto (-1) resolved by the memory bus */
static int ri_on(const gp_cuda_reduce *c) { return c->tune.ri < 0 ? c->wide_bus : c->tune.ri; }

template <typename T, int U>
static int fsum_rows(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, double *out,
                     char *err, size_t errlen)
{
    const int bs = c->tune.bs, w = f.nl + GP_XSPECIAL;
    if (rows16(x, cols, sizeof(T))) {
        size_t work = (rows + (size_t)bs * U - 1) / ((size_t)bs * U);
        unsigned g = grid_for(c, fast::k_sum_rows1<T, U>, bs, 0, work);
        GP_LAUNCH(g, bs, 0, c->stream, fast::k_sum_rows1<T, U>)(reinterpret_cast<const fast::A16<T> *>(x), rows, sq, c->tune.ug, out,
                                                          c->d_cnt, c->d_exc);
    } else {
        const RowGeo rg = row_geo(c, fast::k_sum_rows<T, U>, rows, cols, sizeof(T), U);
        const size_t nseg = rg.nseg;
        if (nseg > 1) GROW(c->d_part, c->part_cap, rows * nseg * 2 * sizeof(double), 0);
        double *phi = (double *)c->d_part, *plo = phi + rows * nseg;
        GP_LAUNCH(rg.grid, bs, 0, c->stream, fast::k_sum_rows<T, U>)(x, rows, cols, sq, c->tune.batch, rg.lg, nseg, c->tune.fm,
                                                                     c->tune.ug, ri_on(c), out, phi, plo, c->d_cnt,
                                                                     c->d_exc);
        if (nseg > 1) launch_combine(c, phi, plo, rows, nseg, nseg, 1, out, NULL, NULL);
    }
    GP_LAUNCH((unsigned)c->sms, 256, 8 * w * sizeof(ull), c->stream, fast::k_rows_exact<T>)(x, cols, sq, f, c->d_cnt,
                                                                                      c->d_exc, out);
    return 0;
}

template <typename T, int VEC, int U>
static int fsum_cols(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, char *err,
                     size_t errlen)
{
    const int bs = c->tune.bs, w = f.nl + GP_XSPECIAL;
    ColGeo g = col_geo(c, fast::k_sum_cols<T, VEC, U>, rows, cols, VEC, U, 2 * sizeof(double), true);
    double *hi = (double *)c->d_out, *lo = hi + cols;
    if (g.by > 1) {
        GROW(c->d_part, c->part_cap, g.by * cols * 2 * sizeof(double), 0);
        double *phi = (double *)c->d_part, *plo = phi + g.by * cols;
        GP_LAUNCH(dim3((unsigned)g.bx, (unsigned)g.by), bs, g.smem, c->stream, fast::k_sum_cols<T, VEC, U>)(
            x, rows, cols, g.rpb, g.CV, sq, c->tune.batch, c->tune.ug, phi, plo, c->d_cnt, c->d_exc);
        launch_combine(c, phi, plo, cols, g.by, 1, cols, NULL, hi, lo);
    } else {
        GP_LAUNCH(dim3((unsigned)g.bx, 1), bs, g.smem, c->stream, fast::k_sum_cols<T, VEC, U>)(
            x, rows, cols, g.rpb, g.CV, sq, c->tune.batch, c->tune.ug, hi, lo, c->d_cnt, c->d_exc);
    }
    GP_LAUNCH((unsigned)c->sms, 256, 8 * w * sizeof(ull), c->stream, fast::k_cols_exact<T>)(
        x, rows, cols, sq, f, c->d_cnt, c->d_exc, c->plan.xcap, c->d_xacc);
    return 0;
}

template <typename T, int U>
static void fext_all(gp_cuda_reduce *c, const T *x, size_t n, int mn, int ab, ull *out)
{
    const int bs = c->tune.bs;
    size_t work = (n / (16 / sizeof(T)) + (size_t)bs * U - 1) / ((size_t)bs * U);
    unsigned g = grid_for(c, fast::k_ext_all<T, U>, bs, 0, work ? work : 1);
    GP_LAUNCH(g, bs, 0, c->stream, fast::k_ext_all<T, U>)(x, n, mn, ab, out);
}

template <typename T, int U>
static int fext_rows(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int mn, int ab, int arg, ull *okey,
                     ull *oidx, char *err, size_t errlen)
{
    const int bs = c->tune.bs;
    if (rows16(x, cols, sizeof(T))) {
        auto k1 = arg ? fast::k_ext_rows1<T, U, true> : fast::k_ext_rows1<T, U, false>;
        const unsigned g = grid_for(c, k1, bs, 0, (rows + (size_t)bs * U - 1) / ((size_t)bs * U));
        GP_LAUNCH(g, bs, 0, c->stream, k1)(reinterpret_cast<const fast::A16<T> *>(x), rows, mn, ab, okey, oidx);
        return 0;
    }
    auto kern = arg ? fast::k_ext_rows<T, U, true> : fast::k_ext_rows<T, U, false>;
    const RowGeo rg = row_geo(c, kern, rows, cols, sizeof(T), U);
    const size_t nseg = rg.nseg;
    ull *pk = NULL, *pi = NULL;
    if (nseg > 1) {
        GROW(c->d_part, c->part_cap, rows * nseg * 2 * sizeof(ull), 0);
        pk = (ull *)c->d_part;
        pi = pk + rows * nseg;
    }
    GP_LAUNCH(rg.grid, bs, 0, c->stream, kern)(x, rows, cols, mn, ab, rg.lg, nseg, okey, oidx, pk, pi);
    if (nseg > 1) {
        unsigned nb;
        const int ll = combine_ll(c, rows, nseg, &nb);
        GP_LAUNCH(nb, 256, 0, c->stream, fast::k_ext_rows_combine)(pk, pi, rows, nseg, ll, mn, arg, okey, oidx);
    }
    return 0;
}

/* extrema (arg 0: keys in d_out) and argmin/argmax (arg 1: keys then indices in d_out) per column */
template <typename T, int VEC, int U>
static int fext_cols(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int mn, int ab, int arg, char *err,
                     size_t errlen)
{
    const int bs = c->tune.bs;
    ColGeo g = col_geo(c, fast::k_ext_cols<T, VEC, U>, rows, cols, VEC, U, 2 * sizeof(ull), false);
    ull *okey = (ull *)c->d_out, *oidx = okey + cols;
    dim3 grid((unsigned)g.bx, (unsigned)g.by);
    if (g.by > 1 && arg) {
        GROW(c->d_part, c->part_cap, g.by * cols * 2 * sizeof(ull), 0);
        ull *pk = (ull *)c->d_part, *pi = pk + g.by * cols;
        GP_LAUNCH(grid, bs, g.smem, c->stream, fast::k_ext_cols<T, VEC, U>)(x, rows, cols, g.rpb, g.CV, mn, ab, 1, pk, pi);
        size_t nb = (cols + 255) / 256, cap = (size_t)c->sms * 8;
        GP_LAUNCH((unsigned)(nb < cap ? nb : cap), 256, 0, c->stream, fast::k_arg_cols_combine)(pk, pi, (int)g.by, cols, mn,
                                                                                          okey, oidx);
    } else {
        if (g.by > 1) CK(cudaMemsetAsync(okey, mn ? 0xff : 0, cols * sizeof(ull), c->stream), "cudaMemsetAsync");
        GP_LAUNCH(grid, bs, g.smem, c->stream, fast::k_ext_cols<T, VEC, U>)(x, rows, cols, g.rpb, g.CV, mn, ab, arg, okey, oidx);
    }
    return 0;
}

template <typename T, int U>
static int farg_all(gp_cuda_reduce *c, const T *x, size_t n, int mn, char *err, size_t errlen)
{
    const int bs = c->tune.bs;
    size_t work = (n / (16 / sizeof(T)) + (size_t)bs * U - 1) / ((size_t)bs * U);
    unsigned g = grid_for(c, fast::k_arg_all<T, U>, bs, 0, work ? work : 1);
    GROW(c->d_part, c->part_cap, (size_t)g * 2 * sizeof(ull), 0);
    ull *pk = (ull *)c->d_part, *pi = pk + g, *o = (ull *)c->d_out;
    GP_LAUNCH(g, bs, 0, c->stream, fast::k_arg_all<T, U>)(x, n, mn, pk, pi);
    GP_LAUNCH(1, 256, 0, c->stream, fast::k_arg_combine)(pk, pi, g, mn, o, o + 1);
    return 0;
}

/* auto=1 (the default, until bs, bps or unroll is set): the f32 sums run the block size and loads
 * in flight that measured best for each axis and kind of shape over the five shapes of
 * bench_reduce_gpu on the H200 (bench/NOTES.md, 2026-12-01; the narrow columns retuned on an
 * H100 and an H200, 2026-12-05): all 256 x 8; rows 128 x 16 when a warp per row has work, else
 * 128 x 8 (16-byte rows 256 x 4); cols 512 x 16 for wide matrices, 512 x 4 for at most 16 rows,
 * else 512 x 8. The tuning is restored on return. */
struct AutoShape {
    gp_cuda_reduce *c;
    Tune saved;
    AutoShape(gp_cuda_reduce *cc, int bs, int unroll, int bps = 0, int rsteps = 0) : c(cc), saved(cc->tune)
    {
        if (c->tune.autoshape) {
            c->tune.bs = bs;
            c->tune.unroll = unroll;
            if (bps) c->tune.bps = bps;
            if (rsteps) c->tune.rsteps = rsteps;
        }
    }
    ~AutoShape() { c->tune = saved; }
};

/* U (loads in flight per thread) from the tuning for f32; 4 for the other types. */
template <typename T>
static void fsum_all_u(gp_cuda_reduce *c, const T *x, size_t n, int sq, gp_xfmt f, long long *acc, ull *zacc)
{
    if constexpr (std::is_same<T, float>::value) {
        /* 256 x 8: 0.981-0.987x CUB on the five shapes against 0.974-0.978 for 512 x 4 (2026-12-01,
         * with the last block finishing: before it 512 x 4 measured best) */
        AutoShape as(c, 256, 8);
        if (c->tune.unroll == 2) fsum_all<T, 2>(c, x, n, sq, f, acc, zacc);
        else if (c->tune.unroll == 8) fsum_all<T, 8>(c, x, n, sq, f, acc, zacc);
        else fsum_all<T, 4>(c, x, n, sq, f, acc, zacc);
    } else {
        fsum_all<T, 4>(c, x, n, sq, f, acc, zacc);
    }
}
template <typename T>
static int fsum_rows_u(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, double *out,
                       char *err, size_t errlen)
{
    {   /* few long rows: as whole sums, the whole sum's shape (256 x 8 for f32) */
        bool done = false;
        int rc;
        if constexpr (std::is_same<T, float>::value) {
            AutoShape as(c, 256, 8);
            rc = c->tune.unroll == 8 ? fsum_rows_x<T, 8>(c, x, rows, cols, sq, f, out, &done, err, errlen)
               : c->tune.unroll == 2 ? fsum_rows_x<T, 2>(c, x, rows, cols, sq, f, out, &done, err, errlen)
                                     : fsum_rows_x<T, 4>(c, x, rows, cols, sq, f, out, &done, err, errlen);
        } else {
            rc = fsum_rows_x<T, 4>(c, x, rows, cols, sq, f, out, &done, err, errlen);
        }
        if (rc || done) return rc;
    }
    if constexpr (std::is_same<T, float>::value) {
        /* 16-byte rows (one thread per row, k_sum_rows1) keep 256 x 4: 128 x 8 lost 10% there;
         * rows long enough for a warp per row at 16 loads in flight take 128 x 16 (16384 x 32768:
         * 0.919 -> 0.950x CUB, 512 x 2^20 0.922 -> 0.946, 4 x 2^27 0.933 -> 0.962). Shorter ones
         * were 128 x 8 (at 16: 0.886 -> 0.848 on 2^20 x 512; 256 x 8 card-dependent, 2026-12-05)
         * and take 256 x 4 at twice rsteps: the same lanes per row with 4 loads in flight instead
         * of 8, 2^20 x 512 0.919-0.929 -> 0.944-0.955x CUB on an H100 (twenty-fifth session), 0.933
         * -> 0.936-0.937 on an H200 (twenty-sixth; bench/NOTES.md) */
        const bool r16 = rows16(x, cols, sizeof(T));
        const bool longrows = rows_lg(cols, sizeof(T), 16, c->tune.rsteps) == 5;
        const bool shortrows = !r16 && !longrows;
        AutoShape as(c, r16 || shortrows ? 256 : 128, r16 || shortrows ? 4 : 16, 0, shortrows ? 2 * c->tune.rsteps : 0);
        if (shortrows && fsum_rows_w(c, x, rows, cols, sq, f, out)) return 0;
        if (c->tune.unroll == 2) return fsum_rows<T, 2>(c, x, rows, cols, sq, f, out, err, errlen);
        if (c->tune.unroll == 8) return fsum_rows<T, 8>(c, x, rows, cols, sq, f, out, err, errlen);
        if (c->tune.unroll == 16) return fsum_rows<T, 16>(c, x, rows, cols, sq, f, out, err, errlen);
    }
    return fsum_rows<T, 4>(c, x, rows, cols, sq, f, out, err, errlen);
}
/* columns: 16-byte vectors when the row pitch allows; U = 4 or 8 rows (f32 adds 4 rows at once) */
template <typename T>
static int fsum_cols_u(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, char *err,
                       size_t errlen)
{
    constexpr int V = 16 / sizeof(T);
    int vec = col_vec(cols, sizeof(T), V) > 1;
    if constexpr (std::is_same<T, float>::value) {
        /* 16 rows in flight per thread of 512 when there are rows for it and at least 128 column
         * vectors: 16384 x 32768 0.906 -> 0.947x CUB, 512 x 2^20 0.898 -> 0.953 (2026-12-05);
         * 2^20 x 512, which took 512 x 8 then (against 128 x 8: 0.963 -> 0.981-0.983 on an H100,
         * 0.894-0.900 -> 0.938-0.940 on an H200), 0.946 -> 0.967-0.969 on an H200 at 16
         * (twenty-sixth session); 2^27 x 4 in this kernel 0.87 and 0.82 at 16 against 0.965 and
         * 0.929 at 8. Else 512 x 8; at most 16 rows 512 x 4 (4 x 2^27: 0.265 -> 0.44, half of the
         * rows of a step of 8 were empty). */
        const bool wide = vec && cols / V >= 128 && rows >= 64;
        AutoShape as(c, 512, wide ? 16 : rows <= 16 ? 4 : 8);
        if (c->tune.unroll == 8)
            return vec ? fsum_cols<T, V, 8>(c, x, rows, cols, sq, f, err, errlen) : fsum_cols<T, 1, 8>(c, x, rows, cols, sq, f, err, errlen);
        if (c->tune.unroll == 16 && vec) return fsum_cols<T, V, 16>(c, x, rows, cols, sq, f, err, errlen);
    }
    return vec ? fsum_cols<T, V, 4>(c, x, rows, cols, sq, f, err, errlen) : fsum_cols<T, 1, 4>(c, x, rows, cols, sq, f, err, errlen);
}
/* columns as one whole sum (fsum_cols_x): 256 x 8 for f32 (3 blocks per SM, sum_all_kernel; unroll=4: 4) */
template <typename T>
static int fsum_cols_xu(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, bool *done,
                        char *err, size_t errlen)
{
    if constexpr (std::is_same<T, float>::value) {
        AutoShape as(c, 256, 8);
        if (c->tune.unroll != 4) return fsum_cols_x<T, 8>(c, x, rows, cols, sq, f, done, err, errlen);
    }
    return fsum_cols_x<T, 4>(c, x, rows, cols, sq, f, done, err, errlen);
}
/* extrema / argmin / argmax over columns: 16-byte vectors for 4- and 8-byte types */
template <typename T>
static int fext_cols_v(gp_cuda_reduce *c, const T *x, size_t rows, size_t cols, int mn, int ab, int arg, char *err,
                       size_t errlen)
{
    if constexpr (sizeof(T) >= 4) {
        if (col_vec(cols, sizeof(T), 4) > 1)
            return fext_cols<T, 16 / sizeof(T), 4>(c, x, rows, cols, mn, ab, arg, err, errlen);
    }
    return fext_cols<T, 1, 4>(c, x, rows, cols, mn, ab, arg, err, errlen);
}

/* ---- API ---- */
static int upload(gp_cuda_reduce *c, const void *buf, size_t bytes, char *err, size_t errlen)
{
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    GROW(c->d_in, c->in_cap, bytes, 0);
    CK(cudaMemcpyAsync(c->d_in, buf, bytes, cudaMemcpyHostToDevice, c->stream), "cudaMemcpyAsync H2D");
    return 0;
}
static size_t ntargets(size_t rows, size_t cols, gp_raxis axis)
{
    return axis == GP_AXIS_ALL ? 1 : axis == GP_AXIS_ROWS ? rows : cols;
}
/* the first version's sums: limbs for every target in d_acc */
static int legacy_sum(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, int sq, gp_raxis axis,
                      gp_xfmt f, char *err, size_t errlen)
{
    size_t abytes = ntargets(rows, cols, axis) * ((size_t)f.nl + GP_XSPECIAL) * sizeof(long long);
    GROW(c->d_acc, c->acc_cap, abytes, 0);
    CK(cudaMemsetAsync(c->d_acc, 0, abytes, c->stream), "cudaMemsetAsync");
    TYPE_SWITCH(t, launch_sum<T>(c, (const T *)dx, rows, cols, sq, axis, f, c->d_acc));
    return 0;
}

/* sqerr (axis all, floats): the squares' rounding errors instead of the squares (ts_add's sq == 2) */
static int rsum_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                    gp_raxis axis, gp_xfmt f, int force_legacy, int sqerr, char *err, size_t errlen)
{
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const int sq = k == GP_RK_SQ ? (sqerr ? 2 : 1) : 0, isf = gp_rtype_is_float(t);
    const size_t w = (size_t)f.nl + GP_XSPECIAL, n = ntargets(rows, cols, axis);
    Plan p = {1, !c->tune.fast || force_legacy || (!isf && axis != GP_AXIS_ALL), axis == GP_AXIS_ALL, rows, cols, 0, t, k,
              axis, f};
    c->plan.what = 0;
    c->raw = NULL;
    if (p.legacy) {
        int rc = legacy_sum(c, dx, rows, cols, t, sq, axis, f, err, errlen);
        if (rc) return rc;
    } else if (axis == GP_AXIS_ALL) {
        GROW(c->d_acc, c->acc_cap, w * sizeof(long long), 0);
        /* one chunk: the kernel alone (zacc); else a memset, then a kernel and a k_norm per chunk */
        ull *zacc = c->tune.fin && rows * cols && rows * cols <= sum_chunk(t == GP_RT_F32) ? c->d_zacc : NULL;
        if (!zacc) CK(cudaMemsetAsync(c->d_acc, 0, w * sizeof(long long), c->stream), "cudaMemsetAsync");
        TYPE_SWITCH(t, fsum_all_u<T>(c, (const T *)dx, rows * cols, sq, f, c->d_acc, zacc));
    } else {
        bool done = false;
        if (axis == GP_AXIS_COLS) {   /* one, two or four columns: as one whole sum */
            int rc = 0;
            FLOAT_SWITCH(t, rc = fsum_cols_xu<T>(c, (const T *)dx, rows, cols, sq, f, &done, err, errlen));
            if (rc) return rc;
            p.limbs = done;
        }
        if (!done) {   /* compact results: row values, or hi per column and the lo-list; a list of exceptions */
            /* rows: n values; cols: hi [n], then the lo-list's values [n], columns [n] and runs */
            GROW(c->d_out, c->out_cap, axis == GP_AXIS_ROWS ? n * 8 : n * 20 + (n / 32 + 2) * 16, 0);
            GROW(c->d_exc, c->exc_cap, n * sizeof(unsigned), 0);
            CK(cudaMemsetAsync(c->d_cnt, 0, 4 * sizeof(ull), c->stream), "cudaMemsetAsync");
            int rc = 0;
            if (axis == GP_AXIS_ROWS) {
                FLOAT_SWITCH(t, rc = fsum_rows_u<T>(c, (const T *)dx, rows, cols, sq, f, (double *)c->d_out, err,
                                                    errlen));
            } else {
                p.xcap = cols < ((size_t)1 << 16) ? cols : ((size_t)1 << 16);
                GROW(c->d_xacc, c->xacc_cap, p.xcap * w * sizeof(long long), 0);
                c->plan = p;   /* fsum_cols reads plan.xcap */
                FLOAT_SWITCH(t, rc = fsum_cols_u<T>(c, (const T *)dx, rows, cols, sq, f, err, errlen));
            }
            if (rc) return rc;
        }
    }
    CK(cudaGetLastError(), "reduce kernel launch");
    p.raw = c->raw;
    c->plan = p;
    return 0;
}

extern "C" int gp_cuda_rsum_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                                gp_raxis axis, gp_xfmt f, char *err, size_t errlen)
{
    return rsum_dev(c, dx, rows, cols, t, k, axis, f, 0, 0, err, errlen);
}

/* pinned staging of at least `bytes` */
static int stage(gp_cuda_reduce *c, size_t bytes, char *err, size_t errlen)
{
    GROW(c->h_acc, c->h_cap, bytes, 1);
    return 0;
}

static void add_limbs(int64_t *acc, const long long *d, size_t ntarget, gp_xfmt f)
{
    size_t w = (size_t)f.nl + GP_XSPECIAL;
    for (size_t i = 0; i < ntarget; i++) {
        int64_t *a = acc + i * w;
        const long long *s = d + i * w;
        for (size_t j = 0; j < w; j++) a[j] += s[j];
        gp_xnorm(a, f.nl);
    }
}

/* runs of the lo-list (push_lo_warp's comment) by first slot */
static int cmp_run(const void *a, const void *b)
{
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

extern "C" int gp_cuda_rsum_fetch(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                                  gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen)
{
    const Plan p = c->plan;
    if (p.what != 1 || p.rows != rows || p.cols != cols || p.t != t || p.k != k || p.axis != axis) {
        snprintf(err, errlen, "gp_cuda_rsum_fetch: no matching gp_cuda_rsum_dev");
        return GP_EINTERNAL;
    }
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const size_t w = (size_t)f.nl + GP_XSPECIAL, n = ntargets(rows, cols, axis);
    c->fallbacks = 0;
    if (p.legacy || p.limbs) {
        const size_t pitch = p.raw ? w + 1 : w;   /* raw: each target's block counter after its limbs */
        size_t abytes = n * pitch * sizeof(long long);
        int rc = stage(c, abytes, err, errlen);
        if (rc) return rc;
        CK(cudaMemcpyAsync(c->h_acc, p.raw ? (const void *)p.raw : (const void *)c->d_acc, abytes, cudaMemcpyDeviceToHost,
                           c->stream), "cudaMemcpyAsync D2H");
        CK(cudaStreamSynchronize(c->stream), "reduce kernel");
        if (p.raw) {
            for (size_t i = 0; i < n; i++) add_limbs(acc + i * w, c->h_acc + i * pitch, 1, f);
        } else if (rowval) {   /* rows of a float type with the first version's kernels: round on the host */
            for (size_t i = 0; i < n; i++) rowval[i] = gp_xvalue((const int64_t *)c->h_acc + i * w, f);
        } else {
            add_limbs(acc, c->h_acc, n, f);
        }
        return 0;
    }
    if (axis == GP_AXIS_ROWS) {
        int rc = stage(c, (rows + 1) * sizeof(double), err, errlen);
        if (rc) return rc;
        CK(cudaMemcpyAsync(c->h_acc, c->d_out, rows * sizeof(double), cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
        CK(cudaMemcpyAsync(c->h_acc + rows, c->d_cnt, sizeof(ull), cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
        CK(cudaStreamSynchronize(c->stream), "reduce kernel");
        memcpy(rowval, c->h_acc, rows * sizeof(double));
        c->fallbacks = (size_t)c->h_acc[rows];
        return 0;
    }
    /* cols: hi per column and the lo-list, listed columns as limbs (or, beyond xcap, a rerun) */
    ull nn[4] = {0, 0, 0, 0};   /* listed columns, lo-list slots, runs, slots in runs */
    CK(cudaMemcpyAsync(nn, c->d_cnt, sizeof nn, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    const ull nexc = nn[0], nlo = nn[1], nrun = nn[2], inrun = nn[3];
    c->fallbacks = (size_t)nexc;
    if (nexc > p.xcap) {   /* too many for the exact column kernel: the first version's, whole panel */
        int rc = legacy_sum(c, dx, rows, cols, t, k == GP_RK_SQ, axis, f, err, errlen);
        if (rc) return rc;
        CK(cudaGetLastError(), "reduce kernel launch");
        size_t abytes = cols * w * sizeof(long long);
        rc = stage(c, abytes, err, errlen);
        if (rc) return rc;
        CK(cudaMemcpyAsync(c->h_acc, c->d_acc, abytes, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
        CK(cudaStreamSynchronize(c->stream), "reduce kernel");
        add_limbs(acc, c->h_acc, cols, f);
        return 0;
    }
    if (nlo > cols || nrun > cols / 32 + 1 || inrun > nlo || (inrun != 0) != (nrun != 0)) {   /* never on a sound device */
        snprintf(err, errlen, "gp_cuda_rsum_fetch: %llu lo-list slots, %llu runs of %llu slots for %zu columns", nlo,
                 nrun, inrun, cols);
        return GP_EINTERNAL;
    }
    /* staging: runs, hi, lo values, their columns (none if every slot is in a run), exception limbs,
     * exception columns; one synchronisation for all */
    const size_t rb = (size_t)nrun * 4 * sizeof(unsigned), hb = cols * sizeof(double), lb = (size_t)nlo * sizeof(double);
    const size_t ib = (size_t)nlo * sizeof(unsigned), xb = (size_t)nexc * w * sizeof(long long);
    const size_t ho = rb, lo_ = ho + hb, io = lo_ + lb, xo = (io + ib + 7) & ~(size_t)7, eo = xo + xb;
    int rc = stage(c, eo + (size_t)nexc * sizeof(unsigned) + 16, err, errlen);
    if (rc) return rc;
    char *h = (char *)c->h_acc;
    const double *dhi = (const double *)c->d_out;
    const unsigned *dlc = (const unsigned *)(dhi + 2 * cols);
    unsigned *run = (unsigned *)h;
    if (nrun) CK(cudaMemcpyAsync(run, dlc + cols, rb, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaMemcpyAsync(h + ho, dhi, hb, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    if (nlo) CK(cudaMemcpyAsync(h + lo_, dhi + cols, lb, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    if (nlo > inrun) CK(cudaMemcpyAsync(h + io, dlc, ib, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    if (nexc) {
        CK(cudaMemcpyAsync(h + xo, c->d_xacc, xb, cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
        CK(cudaMemcpyAsync(h + eo, c->d_exc, (size_t)nexc * sizeof(unsigned), cudaMemcpyDeviceToHost, c->stream),
           "cudaMemcpyAsync D2H");
    }
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    if (nrun) {   /* by first slot; disjoint, inside the slots and columns, inrun slots in all */
        qsort(run, (size_t)nrun, 4 * sizeof(unsigned), cmp_run);
        ull sum = 0;
        for (size_t r = 0; r < nrun; r++) {
            const unsigned *q = run + 4 * r;
            sum += q[2];
            if ((size_t)q[0] + q[2] > nlo || (size_t)q[1] + q[2] > cols || (r && q[0] < run[4 * r - 4] + run[4 * r - 2]) ||
                (r == nrun - 1 && sum != inrun)) {
                snprintf(err, errlen, "gp_cuda_rsum_fetch: run %zu (slot %u, column %u, %u) of %llu slots, %zu columns, %llu in runs",
                         r, q[0], q[1], q[2], nlo, cols, inrun);
                return GP_EINTERNAL;
            }
        }
    }
    const double *hi = (const double *)(h + ho), *lo = (const double *)(h + lo_);
    const unsigned *lc = (const unsigned *)(h + io);
    const long long *xl = (const long long *)(h + xo);
    const unsigned *ex = (const unsigned *)(h + eo);
    for (size_t i = 0; i < cols; i++)   /* listed columns have hi = 0 and no lo */
        if (hi[i] != 0) gp_xdep_d(acc + i * w, f.lo, hi[i]);
    size_t r = 0;
    for (size_t j = 0; j < nlo;) {
        if (r < nrun && j == run[4 * r]) {   /* a run: consecutive columns, zeros included */
            const unsigned *q = run + 4 * r++;
            for (size_t i = 0; i < q[2]; i++)
                if (lo[j + i] != 0) gp_xdep_d(acc + ((size_t)q[1] + i) * w, f.lo, lo[j + i]);
            j += q[2];
            continue;
        }
        if (lc[j] >= cols) {   /* never on a sound device: a kernel wrote outside its columns */
            snprintf(err, errlen, "gp_cuda_rsum_fetch: lo-list entry %zu names column %u of %zu", j, lc[j], cols);
            return GP_EINTERNAL;
        }
        gp_xdep_d(acc + (size_t)lc[j] * w, f.lo, lo[j]);
        j++;
    }
    for (size_t j = 0; j < nexc; j++) {
        int64_t *a = acc + (size_t)ex[j] * w;
        for (size_t i = 0; i < w; i++) a[i] += xl[j * w + i];
    }
    for (size_t i = 0; i < cols; i++) gp_xnorm(acc + i * w, f.nl);
    return 0;
}

extern "C" int gp_cuda_rsum(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                            gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen)
{
    int rc = upload(c, buf, rows * cols * gp_rtype_size(t), err, errlen);
    /* rows of a float type without rowval: the caller wants limbs, which only the first version keeps */
    int force_legacy = axis == GP_AXIS_ROWS && !rowval;
    if (!rc) rc = rsum_dev(c, c->d_in, rows, cols, t, k, axis, f, force_legacy, 0, err, errlen);
    if (!rc) rc = gp_cuda_rsum_fetch(c, c->d_in, rows, cols, t, k, axis, f, acc,
                                     axis == GP_AXIS_ROWS && gp_rtype_is_float(t) ? rowval : NULL, err, errlen);
    return rc;
}

/* ---- extrema ---- */
extern "C" int gp_cuda_rext_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                                gp_raxis axis, char *err, size_t errlen)
{
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const size_t n = ntargets(rows, cols, axis);
    const int mn = k == GP_RK_MIN, ab = k == GP_RK_ABSMAX;
    Plan p = {2, !c->tune.fast, 0, rows, cols, 0, t, k, axis, {0, 0}};
    c->plan.what = 0;
    if (p.legacy) {
        GROW(c->d_acc, c->acc_cap, 2 * n * sizeof(ull), 0);
        ull *dk = (ull *)c->d_acc, *dn = dk + n;
        CK(cudaMemsetAsync(dk, mn ? 0xff : 0, n * sizeof(ull), c->stream), "cudaMemsetAsync");
        CK(cudaMemsetAsync(dn, 0, n * sizeof(ull), c->stream), "cudaMemsetAsync");
        TYPE_SWITCH(t, launch_ext<T>(c, (const T *)dx, rows, cols, k, axis, dk, dn));
    } else {
        GROW(c->d_out, c->out_cap, 2 * n * sizeof(ull), 0);
        ull *o = (ull *)c->d_out;
        int rc = 0;
        if (axis == GP_AXIS_ALL) {
            CK(cudaMemsetAsync(o, mn ? 0xff : 0, sizeof(ull), c->stream), "cudaMemsetAsync");
            TYPE_SWITCH(t, (fext_all<T, 4>(c, (const T *)dx, rows * cols, mn, ab, o)));
        } else if (axis == GP_AXIS_ROWS) {
            TYPE_SWITCH(t, rc = (fext_rows<T, 4>(c, (const T *)dx, rows, cols, mn, ab, 0, o, NULL, err, errlen)));
        } else {
            TYPE_SWITCH(t, rc = fext_cols_v<T>(c, (const T *)dx, rows, cols, mn, ab, 0, err, errlen));
        }
        if (rc) return rc;
    }
    CK(cudaGetLastError(), "reduce kernel launch");
    c->plan = p;
    return 0;
}

extern "C" int gp_cuda_rext_fetch(gp_cuda_reduce *c, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                                  uint64_t *key, int64_t *nan, char *err, size_t errlen)
{
    const Plan p = c->plan;
    if (p.what != 2 || p.rows != rows || p.cols != cols || p.t != t || p.k != k || p.axis != axis) {
        snprintf(err, errlen, "gp_cuda_rext_fetch: no matching gp_cuda_rext_dev");
        return GP_EINTERNAL;
    }
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const size_t n = ntargets(rows, cols, axis);
    const int mn = k == GP_RK_MIN, isf = gp_rtype_is_float(t);
    int rc = stage(c, 2 * n * sizeof(ull), err, errlen);
    if (rc) return rc;
    ull *h = (ull *)c->h_acc;
    CK(cudaMemcpyAsync(h, p.legacy ? (void *)c->d_acc : c->d_out, (p.legacy ? 2 : 1) * n * sizeof(ull),
                       cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    const ull nank = mn ? 0ull : ~0ull;
    for (size_t i = 0; i < n; i++) {
        ull d = h[i];
        if (p.legacy) nan[i] += (int64_t)h[n + i];
        else if (isf && d == nank) { nan[i]++; continue; }
        key[i] = mn ? (d < key[i] ? d : key[i]) : (d > key[i] ? d : key[i]);
    }
    return 0;
}

extern "C" int gp_cuda_rext(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                            gp_raxis axis, uint64_t *key, int64_t *nan, char *err, size_t errlen)
{
    int rc = upload(c, buf, rows * cols * gp_rtype_size(t), err, errlen);
    if (!rc) rc = gp_cuda_rext_dev(c, c->d_in, rows, cols, t, k, axis, err, errlen);
    if (!rc) rc = gp_cuda_rext_fetch(c, rows, cols, t, k, axis, key, nan, err, errlen);
    return rc;
}

/* ---- argmin / argmax (fast kernels only; "legacy" has none) ---- */
extern "C" int gp_cuda_rarg_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                                gp_raxis axis, char *err, size_t errlen)
{
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const size_t n = ntargets(rows, cols, axis);
    const int mn = k == GP_RK_ARGMIN;
    Plan p = {3, 0, 0, rows, cols, 0, t, k, axis, {0, 0}};
    c->plan.what = 0;
    GROW(c->d_out, c->out_cap, 2 * n * sizeof(ull), 0);
    ull *o = (ull *)c->d_out;
    int rc = 0;
    if (axis == GP_AXIS_ALL) {
        TYPE_SWITCH(t, rc = (farg_all<T, 4>(c, (const T *)dx, rows * cols, mn, err, errlen)));
    } else if (axis == GP_AXIS_ROWS) {
        TYPE_SWITCH(t, rc = (fext_rows<T, 4>(c, (const T *)dx, rows, cols, mn, 0, 1, NULL, o, err, errlen)));
    } else {
        TYPE_SWITCH(t, rc = fext_cols_v<T>(c, (const T *)dx, rows, cols, mn, 0, 1, err, errlen));
    }
    if (rc) return rc;
    CK(cudaGetLastError(), "reduce kernel launch");
    c->plan = p;
    return 0;
}

extern "C" int gp_cuda_rarg_fetch(gp_cuda_reduce *c, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rkind k,
                                  gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen)
{
    const Plan p = c->plan;
    if (p.what != 3 || p.rows != rows || p.cols != cols || p.t != t || p.k != k || p.axis != axis) {
        snprintf(err, errlen, "gp_cuda_rarg_fetch: no matching gp_cuda_rarg_dev");
        return GP_EINTERNAL;
    }
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    const size_t n = ntargets(rows, cols, axis);
    const int mn = k == GP_RK_ARGMIN;
    const size_t words = axis == GP_AXIS_ROWS ? n : 2 * n;
    int rc = stage(c, words * sizeof(ull), err, errlen);
    if (rc) return rc;
    ull *h = (ull *)c->h_acc;
    CK(cudaMemcpyAsync(h, c->d_out, words * sizeof(ull), cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "reduce kernel");
    if (axis == GP_AXIS_ROWS) {   /* a row is whole in its panel: the column is the answer */
        for (size_t i = 0; i < n; i++) idx[i] = h[i];
        return 0;
    }
    const ull *dk = h, *di = h + (axis == GP_AXIS_ALL ? 1 : n);
    for (size_t i = 0; i < n; i++) {
        if (di[i] == GP_RARG_NONE) continue;
        uint64_t g = axis == GP_AXIS_ALL ? (uint64_t)row0 * cols + di[i] : (uint64_t)row0 + di[i];
        if (gp_rarg_better(mn, dk[i], g, key[i], idx[i])) { key[i] = dk[i]; idx[i] = g; }
    }
    return 0;
}

extern "C" int gp_cuda_rarg(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                            gp_rkind k, gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen)
{
    int rc = upload(c, buf, rows * cols * gp_rtype_size(t), err, errlen);
    if (!rc) rc = gp_cuda_rarg_dev(c, c->d_in, rows, cols, t, k, axis, err, errlen);
    if (!rc) rc = gp_cuda_rarg_fetch(c, rows, cols, row0, t, k, axis, key, idx, err, errlen);
    return rc;
}

/* The GPU kept busy for `cycles` clocks (benchmarks: queue the timed work behind it). */
#ifdef GP_TSTAMP
/* the whole sum's stamps (GP_TS) of the last launch: 5 x 2^14 */
extern "C" void gp_cuda_reduce_tstamp(unsigned long long *host)
{
    cudaMemcpyFromSymbol(host, fast::gp_ts, sizeof fast::gp_ts);
}
#endif

extern "C" void gp_cuda_reduce_spin(gp_cuda_reduce *c, long long cycles)
{
    GP_LAUNCH(1, 1, 0, c->stream, fast::k_spin)(cycles);
}

/* ---- stats ---- */
/* The exact sum (kind k, sqerr) of a device panel into the normalised limbs of format f; its
 * special counts (NaN, +Inf and infinite squares, -Inf) into special when not NULL. */
static int stats_sum(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k, int sqerr,
                     gp_xfmt f, int64_t *limbs, int64_t *special, char *err, size_t errlen)
{
    int64_t a[GP_XNL_MAX + GP_XSPECIAL];
    memset(a, 0, sizeof a);
    int rc = rsum_dev(c, dx, rows, cols, t, k, GP_AXIS_ALL, f, 0, sqerr, err, errlen);
    if (!rc) rc = gp_cuda_rsum_fetch(c, dx, rows, cols, t, k, GP_AXIS_ALL, f, a, NULL, err, errlen);
    if (rc) return rc;
    for (int i = 0; i < f.nl; i++) limbs[i] += a[i];
    gp_xnorm(limbs, f.nl);
    if (special) memcpy(special, a + f.nl, GP_XSPECIAL * sizeof *special);
    return 0;
}

template <typename T>
static void launch_stats(gp_cuda_reduce *c, const T *x, size_t n, ull seed0)
{
    constexpr int VEC = 16 / sizeof(T), U = 4;
    const int bs = c->tune.bs;
    const size_t work = (n / VEC + (size_t)bs * U - 1) / ((size_t)bs * U);
    const unsigned g = grid_for(c, fast::k_stats<T, U>, bs, 0, work ? work : 1);
    GP_LAUNCH(g, bs, 0, c->stream, fast::k_stats<T, U>)(x, n, seed0, c->d_stats);
}

extern "C" int gp_cuda_rstats_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, size_t row0, gp_rtype t,
                                  gp_rstats *s, char *err, size_t errlen)
{
    const size_t n = rows * cols;
    if (!n) return 0;
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    /* the sums of the CPU's stats: values and squares (f64: and the squares' errors) of the finite
     * values, exact; infinite squares of finite values are qover */
    int64_t sq[GP_XSPECIAL];
    const int64_t pinf0 = s->pinf + s->ninf;
    int rc = stats_sum(c, dx, rows, cols, t, GP_RK_SUM, 0, s->fs, s->s, NULL, err, errlen);
    if (!rc) rc = stats_sum(c, dx, rows, cols, t, GP_RK_SQ, 0, s->fq, s->q, sq, err, errlen);
    if (!rc && t == GP_RT_F64) rc = stats_sum(c, dx, rows, cols, t, GP_RK_SQ, 1, s->fq, s->q, NULL, err, errlen);
    if (rc) return rc;
    rc = gp_cuda_rstats_aux_dev(c, dx, rows, cols, row0, t, s, err, errlen);
    if (rc) return rc;
    if (gp_rtype_is_float(t)) s->qover += sq[1] - (int64_t)(s->pinf + s->ninf - pinf0);
    return 0;
}

extern "C" int gp_cuda_rstats_aux_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, size_t row0,
                                      gp_rtype t, gp_rstats *s, char *err, size_t errlen)
{
    const size_t n = rows * cols;
    if (!n) return 0;
    CK(cudaSetDevice(c->dev), "cudaSetDevice");
    GROW(c->d_stats, c->stats_cap, 6 * sizeof(ull), 0);
    CK(cudaMemsetAsync(c->d_stats, 0, 6 * sizeof(ull), c->stream), "cudaMemsetAsync");
    CK(cudaMemsetAsync(c->d_stats + 1, 0xff, sizeof(ull), c->stream), "cudaMemsetAsync");
    TYPE_SWITCH(t, launch_stats<T>(c, (const T *)dx, n, (ull)row0 * cols));
    CK(cudaGetLastError(), "stats kernel launch");
    int rc = stage(c, 6 * sizeof(ull), err, errlen);
    if (rc) return rc;
    ull *h = (ull *)c->h_acc;
    CK(cudaMemcpyAsync(h, c->d_stats, 6 * sizeof(ull), cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "stats kernel");
    s->checksum += h[0];
    if (h[1] < s->kmin) s->kmin = h[1];
    if (h[2] > s->kmax) s->kmax = h[2];
    s->nan += (int64_t)h[3];
    s->pinf += (int64_t)h[4];
    s->ninf += (int64_t)h[5];
    s->count += (int64_t)n;
    s->finite += (int64_t)(n - h[3] - h[4] - h[5]);
    return 0;
}

extern "C" int gp_cuda_rstats(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                              gp_rstats *s, char *err, size_t errlen)
{
    if (!rows || !cols) return 0;
    int rc = upload(c, buf, rows * cols * gp_rtype_size(t), err, errlen);
    if (!rc) rc = gp_cuda_rstats_dev(c, c->d_in, rows, cols, row0, t, s, err, errlen);
    return rc;
}

/* ---- host panels ---- */
/* Page-locks a driver's panel buffer so that its uploads run at the pinned rate (H200 machine:
 * ~55 GB/s against ~8.6 GB/s pageable, docs of ../shared/device). Best effort: when the driver or
 * the limits refuse, the buffer stays pageable and 0 is returned (uploads are slower only).
 * GP_CUDA_PIN=0 in the environment turns it off (for measuring what it gives). */
extern "C" int gp_cuda_reduce_pin(gp_cuda_reduce *c, void *buf, size_t bytes)
{
    const char *env = getenv("GP_CUDA_PIN");
    if (env && !strcmp(env, "0")) return 0;
    if (!c || !buf || !bytes || cudaSetDevice(c->dev) != cudaSuccess) return 0;
    if (cudaHostRegister(buf, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return 1;
}
extern "C" void gp_cuda_reduce_unpin(gp_cuda_reduce *c, void *buf)
{
    if (!c || !buf || cudaSetDevice(c->dev) != cudaSuccess) return;
    if (cudaHostUnregister(buf) != cudaSuccess) cudaGetLastError();
}

/* ---- verify ---- */
template <typename U>
static void launch_hash(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, ull seed0, ull rstep, ull cstep,
                        gp_raxis axis)
{
    const int bs = 256;
    const U *x = (const U *)dx;
    if (axis == GP_AXIS_ROWS) {
        size_t work = cols < 32 ? (rows + bs - 1) / bs : (rows * ((cols + 1023) / 1024) + bs / 32 - 1) / (bs / 32);
        const unsigned g = grid_for(c, fast::k_hash_rows<U>, bs, 0, work ? work : 1);
        GP_LAUNCH(g, bs, 0, c->stream, fast::k_hash_rows<U>)(x, rows, cols, seed0, rstep, cstep, c->d_stats);
    } else {
        size_t work = ((rows + 63) / 64 * cols + bs - 1) / bs;
        const unsigned g = grid_for(c, fast::k_hash_cols<U>, bs, 0, work ? work : 1);
        GP_LAUNCH(g, bs, 0, c->stream, fast::k_hash_cols<U>)(x, rows, cols, seed0, rstep, cstep, c->d_stats);
    }
}

extern "C" int gp_cuda_rhash(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t esize, uint64_t seed0,
                             uint64_t rstep, uint64_t cstep, gp_raxis axis, uint64_t *out, char *err, size_t errlen)
{
    const size_t n = axis == GP_AXIS_ROWS ? rows : cols;
    if (esize != 1 && esize != 2 && esize != 4 && esize != 8) {
        snprintf(err, errlen, "gp_cuda_rhash: %zu-byte elements (1, 2, 4 or 8 only)", esize);
        return GP_EINVAL;
    }
    if (!n) return 0;
    if (!rows || !cols) { memset(out, 0, n * sizeof *out); return 0; }
    int rc = upload(c, buf, rows * cols * esize, err, errlen);
    if (rc) return rc;
    GROW(c->d_stats, c->stats_cap, n * sizeof(ull), 0);
    CK(cudaMemsetAsync(c->d_stats, 0, n * sizeof(ull), c->stream), "cudaMemsetAsync");
    switch (esize) {
    case 1: launch_hash<uint8_t>(c, c->d_in, rows, cols, seed0, rstep, cstep, axis); break;
    case 2: launch_hash<uint16_t>(c, c->d_in, rows, cols, seed0, rstep, cstep, axis); break;
    case 4: launch_hash<uint32_t>(c, c->d_in, rows, cols, seed0, rstep, cstep, axis); break;
    default: launch_hash<uint64_t>(c, c->d_in, rows, cols, seed0, rstep, cstep, axis); break;
    }
    CK(cudaGetLastError(), "fingerprint kernel launch");
    rc = stage(c, n * sizeof(ull), err, errlen);
    if (rc) return rc;
    CK(cudaMemcpyAsync(c->h_acc, c->d_stats, n * sizeof(ull), cudaMemcpyDeviceToHost, c->stream), "cudaMemcpyAsync D2H");
    CK(cudaStreamSynchronize(c->stream), "fingerprint kernel");
    memcpy(out, c->h_acc, n * sizeof *out);
    return 0;
}
