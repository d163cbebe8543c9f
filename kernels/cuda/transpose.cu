/* kernels/cuda/transpose.cu — out-of-place matrix transpose on the GPU, any element size.
 *
 * Three kernel families (docs/gpu-kernels.md explains the layouts and the measured conflicts):
 *  k_vec   element sizes 1, 2, 4, 8, 16 when both buffers are 16-byte aligned and rows and cols
 *          are multiples of K = 16/esize (so every row of src and dst starts 16-byte aligned).
 *          A thread loads a KxK "micro-block" (K rows x 16 bytes, all loads in flight),
 *          transposes it in registers (__byte_perm for 1 and 2 B) and stores K 16-byte vectors
 *          into a shared tile kept in dst order; after one barrier the block writes the tile
 *          out with coalesced 16-byte stores. Shared layout: none / pad / swizzle.
 *  k_unit  everything else (odd shapes, misaligned pointers, esize 3, 12, ...): a TTxTT element
 *          tile (TT = 32 unless the element is big), elements moved as 1/2/4/8-byte units,
 *          one warp per tile row, same three layouts.
 *  k_naive one thread per element, no shared memory (reference point for the bench);
 *  k_big   one block per element for elements larger than 24 KiB.
 * Edges (partial tiles, 1xN, Nx1) are predicated inside the same pass. All indexing is size_t;
 * the grid is one-dimensional over tiles with a grid-stride loop (no gridDim.y limit). */
#include <stdint.h>
#include <type_traits>
#include <cuda_runtime.h>
#include "kernels/backend.h"
#include "pipeline/status.h"
#include "kernels/cuda/cuda_kernels.h"

// kernels

namespace {

enum { L_NONE = GP_TILE_NONE, L_PAD = GP_TILE_PAD, L_SWZ = GP_TILE_SWIZZLE };

template <bool STREAM> __device__ __forceinline__ uint4 vload(const uint4 *p)
{
    return STREAM ? __ldcs(p) : __ldg(p);
}
template <bool STREAM> __device__ __forceinline__ void vstore(uint4 *p, uint4 v)
{
    if (STREAM)
        __stcs(p, v);
    else
        *p = v;
}

/* Word q of row j of the transposed KxK micro-block; in[k][w] is word w of source row k.
 * All indices are compile-time constants after unrolling (the arrays stay in registers). */
template <int ES> struct Micro;
template <> struct Micro<16> {
    __device__ __forceinline__ static uint32_t word(const uint32_t (&in)[1][4], int j, int q)
    {
        return in[0][q];
    }
};
template <> struct Micro<8> {
    /* element (row k, col j) is words 2j, 2j+1 of row k; dst row j = src rows 0,1 at col j */
    __device__ __forceinline__ static uint32_t word(const uint32_t (&in)[2][4], int j, int q)
    {
        return in[q >> 1][2 * j + (q & 1)];
    }
};
template <> struct Micro<4> {
    __device__ __forceinline__ static uint32_t word(const uint32_t (&in)[4][4], int j, int q)
    {
        return in[q][j];
    }
};
template <> struct Micro<2> {
    /* word w of a row holds cols 2w (low half), 2w+1; dst row j=2w+h, word q = rows 2q,2q+1 */
    __device__ __forceinline__ static uint32_t word(const uint32_t (&in)[8][4], int j, int q)
    {
        return __byte_perm(in[2 * q][j >> 1], in[2 * q + 1][j >> 1], (j & 1) ? 0x7632 : 0x5410);
    }
};
template <> struct Micro<1> {
    /* 4x4 byte transpose of rows 4q..4q+3, word j/4; result column j%4 */
    __device__ __forceinline__ static uint32_t word(const uint32_t (&in)[16][4], int j, int q)
    {
        const int w = j >> 2, c = j & 3;
        const uint32_t a0 = in[4 * q][w], a1 = in[4 * q + 1][w];
        const uint32_t a2 = in[4 * q + 2][w], a3 = in[4 * q + 3][w];
        const uint32_t lo = __byte_perm(a0, a1, (c >> 1) ? 0x7362 : 0x5140);
        const uint32_t hi = __byte_perm(a2, a3, (c >> 1) ? 0x7362 : 0x5140);
        return __byte_perm(lo, hi, (c & 1) ? 0x7632 : 0x5410);
    }
};

/* Offset (in 16-byte chunks) of chunk c of local dst row d in the shared tile. M chunks per
 * row; K dst rows come from one micro-block. PAD: one 16-byte access width after every K rows
 * (one micro-row); SWIZZLE: chunk index XOR (micro-row mod 8). */
template <int L, int M, int K> __device__ __forceinline__ int soff(int d, int c)
{
    if (L == L_PAD) return d * M + d / K + c;
    if (L == L_SWZ) return d * M + (c ^ ((d / K) & 7));
    return d * M + c;
}

/* Register cap from the threads per SM asked for: 512 (128 registers) for 4-16 B, 384 (170)
 * for 2 B, 256 for 1 B, whose 64-word micro-blocks spill under 170 (ptxas -v). */
template <int ES> constexpr int min_threads() { return ES >= 4 ? 512 : ES == 2 ? 384 : 256; }
template <int ES, int M, int NT, int L, bool STREAM>
__global__ void __launch_bounds__(NT, min_threads<ES>() / NT > 0 ? min_threads<ES>() / NT : 1)
    k_vec(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t rows, size_t cols,
          size_t ntr, size_t ntc, size_t ntiles, int colmajor)
{
    constexpr int K = 16 / ES;
    constexpr int T = M * K;          /* tile edge in elements */
    constexpr int MB = M * M / NT;    /* micro-blocks per thread */
    constexpr int NV = M * K * M / NT; /* output vectors per thread */
    static_assert(M % 8 == 0 && (M * M) % NT == 0 && MB >= 1, "bad vec tile");
    extern __shared__ uint4 sm[];
    const size_t sp = cols / K, dp = rows / K; /* row pitches in chunks */

    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        /* row-major tile order: neighbouring blocks read neighbouring src tiles; column-major:
         * neighbouring blocks write neighbouring dst tiles */
        size_t tr, tc;
        if (colmajor) { tc = t / ntr; tr = t - tc * ntr; }
        else { tr = t / ntc; tc = t - tr * ntc; }
        const size_t r0 = tr * T, c0 = tc * T;
        const size_t rl = (rows - r0) / K, cl = (cols - c0) / K;
        const int nmr = rl < (size_t)M ? (int)rl : M; /* valid micro-rows / micro-cols */
        const int nmc = cl < (size_t)M ? (int)cl : M;
        const bool full = (nmr == M) && (nmc == M);

        uint32_t v[MB][K][4];
#pragma unroll
        for (int b = 0; b < MB; b++) {
            const int i = threadIdx.x + b * NT, mc = i % M, mr = i / M;
            if (full || (mr < nmr && mc < nmc)) {
                const uint4 *p = src + (r0 + (size_t)mr * K) * sp + c0 / K + mc;
#pragma unroll
                for (int k = 0; k < K; k++) {
                    const uint4 x = vload<STREAM>(p + (size_t)k * sp);
                    v[b][k][0] = x.x; v[b][k][1] = x.y; v[b][k][2] = x.z; v[b][k][3] = x.w;
                }
            }
        }
#pragma unroll
        for (int b = 0; b < MB; b++) {
            const int i = threadIdx.x + b * NT, mc = i % M, mr = i / M;
            if (full || (mr < nmr && mc < nmc)) {
#pragma unroll
                for (int j = 0; j < K; j++) {
                    uint4 o;
                    o.x = Micro<ES>::word(v[b], j, 0);
                    o.y = Micro<ES>::word(v[b], j, 1);
                    o.z = Micro<ES>::word(v[b], j, 2);
                    o.w = Micro<ES>::word(v[b], j, 3);
                    sm[soff<L, M, K>(mc * K + j, mr)] = o;
                }
            }
        }
        __syncthreads();
        const int ndr = nmc * K; /* valid dst rows of the tile; nmr valid chunks per row */
        constexpr int G = NV < 8 ? NV : 8; /* shared loads in flight before their stores */
#pragma unroll
        for (int g = 0; g < NV; g += G) {
            uint4 w[G];
#pragma unroll
            for (int q = 0; q < G; q++) {
                const int i = threadIdx.x + (g + q) * NT, c = i % M, d = i / M;
                if (full || (d < ndr && c < nmr)) w[q] = sm[soff<L, M, K>(d, c)];
            }
#pragma unroll
            for (int q = 0; q < G; q++) {
                const int i = threadIdx.x + (g + q) * NT, c = i % M, d = i / M;
                if (full || (d < ndr && c < nmr))
                    vstore<STREAM>(dst + (c0 + (size_t)d) * dp + r0 / K + c, w[q]);
            }
        }
        __syncthreads();
    }
}

template <int L> __device__ __forceinline__ int uoff(int r, int c, int tt)
{
    if (L == L_PAD) return r * (tt + 1) + c;
    if (L == L_SWZ) return r * tt + (c ^ (r & (tt - 1)));
    return r * tt + c;
}

/* Generic tile: elements of nu units of type U, tile tt x tt (tt a power of two <= 32). */
template <typename U, int L>
__global__ void __launch_bounds__(256)
    k_unit(const U *__restrict__ src, U *__restrict__ dst, size_t rows, size_t cols, int nu,
           int tt, size_t ntc, size_t ntiles)
{
    extern __shared__ uint4 smraw[];
    U *sm = reinterpret_cast<U *>(smraw);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const size_t tr = t / ntc, tc = t - tr * ntc;
        const size_t r0 = tr * tt, c0 = tc * tt;
        const int nr = rows - r0 < (size_t)tt ? (int)(rows - r0) : tt;
        const int nc = cols - c0 < (size_t)tt ? (int)(cols - c0) : tt;
        if (nu == 1) {
            for (int r = warp; r < nr; r += 8) {
                const U *p = src + (r0 + r) * cols + c0;
                for (int j = lane; j < nc; j += 32) sm[uoff<L>(r, j, tt)] = __ldg(p + j);
            }
            __syncthreads();
            for (int c = warp; c < nc; c += 8) {
                U *p = dst + (c0 + c) * rows + r0;
                for (int j = lane; j < nr; j += 32) p[j] = sm[uoff<L>(j, c, tt)];
            }
        } else {
            for (int r = warp; r < nr; r += 8) {
                const U *p = src + ((r0 + r) * cols + c0) * nu;
                for (int j = lane; j < nc * nu; j += 32) {
                    const int e = j / nu, k = j - e * nu;
                    sm[(size_t)uoff<L>(r, e, tt) * nu + k] = __ldg(p + j);
                }
            }
            __syncthreads();
            for (int c = warp; c < nc; c += 8) {
                U *p = dst + ((c0 + c) * rows + r0) * nu;
                for (int j = lane; j < nr * nu; j += 32) {
                    const int e = j / nu, k = j - e * nu;
                    p[j] = sm[(size_t)uoff<L>(e, c, tt) * nu + k];
                }
            }
        }
        __syncthreads();
    }
}

/* One thread per element, no shared memory: reads coalesced, writes strided. */
template <typename U>
__global__ void k_naive(const U *__restrict__ src, U *__restrict__ dst, size_t rows, size_t cols,
                        int nu)
{
    const size_t n = rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / cols, c = i - r * cols;
        const U *s = src + i * nu;
        U *d = dst + (c * rows + r) * nu;
        for (int k = 0; k < nu; k++) d[k] = __ldg(s + k);
    }
}

/* Elements too big for a shared tile: one block per element. */
template <typename U>
__global__ void k_big(const U *__restrict__ src, U *__restrict__ dst, size_t rows, size_t cols,
                      size_t nu)
{
    const size_t n = rows * cols;
    for (size_t e = blockIdx.x; e < n; e += gridDim.x) {
        const size_t r = e / cols, c = e - r * cols;
        const U *s = src + e * nu;
        U *d = dst + (c * rows + r) * nu;
        for (size_t k = threadIdx.x; k < nu; k += blockDim.x) d[k] = __ldg(s + k);
    }
}

} // namespace

// launchers

namespace {

/* DEFAULT per element size 1, 2, 4, 8, 16 B: layout and tuning bits, the fastest measured on
 * the H200 on 2026-11-30 (bench/NOTES.md; 2 B: the CFG_C sweep of the second session, 96.7% vs
 * 90.0%). Pad and swizzle tie within noise everywhere;
 * swizzle needs no extra shared memory. Column-major tile order won for every size. */
const gp_tile_layout g_default_layout[5] = {GP_TILE_SWIZZLE, GP_TILE_SWIZZLE, GP_TILE_SWIZZLE,
                                            GP_TILE_SWIZZLE, GP_TILE_SWIZZLE};
const int g_default_tune[5] = {
    GP_CUDA_TUNE_COLMAJOR,                    /* 1 B: 8x8 micro-blocks of 16x16, 64 threads */
    GP_CUDA_TUNE_COLMAJOR | GP_CUDA_TUNE_CFG_C, /* 2 B: 16x16 of 8x8, 128 threads, 2 per thread */
    GP_CUDA_TUNE_COLMAJOR,                    /* 4 B: 16x16 of 4x4, 128 threads */
    GP_CUDA_TUNE_COLMAJOR,                    /* 8 B: 32x32 of 2x2, 256 threads */
    GP_CUDA_TUNE_COLMAJOR | GP_CUDA_TUNE_ALT, /* 16 B: 32x32, 128 threads */
};

int es_index(size_t es)
{
    switch (es) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
    }
}

int launched(void) { return cudaPeekAtLastError() == cudaSuccess ? 0 : GP_EDEVICE; }

unsigned grid_for(size_t n)
{
    return (unsigned)(n < (size_t)0x7fffffff ? (n ? n : 1) : (size_t)0x7fffffff);
}

template <int ES, int M, int NT, int L, bool S>
int launch_vec(const void *s, void *d, size_t rows, size_t cols, int colmajor, cudaStream_t st)
{
    constexpr size_t T = (size_t)M * (16 / ES);
    constexpr size_t smem = sizeof(uint4) * ((size_t)M * (16 / ES) * M + (L == L_PAD ? M : 0));
    if (smem > 48 * 1024) {
        static bool attr_set = false; /* per instantiation; benign race (idempotent call) */
        if (!attr_set) {
            if (cudaFuncSetAttribute(k_vec<ES, M, NT, L, S>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem) != cudaSuccess)
                return GP_EDEVICE;
            attr_set = true;
        }
    }
    const size_t ntr = (rows + T - 1) / T, ntc = (cols + T - 1) / T, nt = ntr * ntc;
    k_vec<ES, M, NT, L, S><<<grid_for(nt), NT, smem, st>>>(
        static_cast<const uint4 *>(s), static_cast<uint4 *>(d), rows, cols, ntr, ntc, nt,
        colmajor);
    return launched();
}

/* (M, NT) per element size: config A (tune 0) and B (GP_CUDA_TUNE_ALT). */
template <int ES, int L, bool S>
int launch_vec_cfg(const void *s, void *d, size_t rows, size_t cols, bool alt, int cm,
                   cudaStream_t st)
{
    switch (ES) {
    case 16: return alt ? launch_vec<16, 32, 128, L, S>(s, d, rows, cols, cm, st)
                        : launch_vec<16, 32, 256, L, S>(s, d, rows, cols, cm, st);
    case 8: return alt ? launch_vec<8, 16, 128, L, S>(s, d, rows, cols, cm, st)
                       : launch_vec<8, 32, 256, L, S>(s, d, rows, cols, cm, st);
    case 4: return alt ? launch_vec<4, 16, 256, L, S>(s, d, rows, cols, cm, st)
                       : launch_vec<4, 16, 128, L, S>(s, d, rows, cols, cm, st);
    case 2: return alt ? launch_vec<2, 8, 64, L, S>(s, d, rows, cols, cm, st)
                       : launch_vec<2, 16, 256, L, S>(s, d, rows, cols, cm, st);
    default: return alt ? launch_vec<1, 16, 256, L, S>(s, d, rows, cols, cm, st)
                        : launch_vec<1, 8, 64, L, S>(s, d, rows, cols, cm, st);
    }
}

/* Two more (M, NT) shapes per element size, swizzled tile and default cache hints only (the
 * measured best of those): CFG_C and CFG_D, for the bench's sweep (--tune). More micro-blocks
 * per thread (more loads in flight, fewer threads) or smaller tiles (more blocks per SM). */
template <int ES>
int launch_vec_more(const void *s, void *d, size_t rows, size_t cols, bool c_not_d, int cm, cudaStream_t st)
{
    switch (ES) {
    case 16: return c_not_d ? launch_vec<16, 16, 128, L_SWZ, false>(s, d, rows, cols, cm, st)
                            : launch_vec<16, 32, 512, L_SWZ, false>(s, d, rows, cols, cm, st);
    case 8: return c_not_d ? launch_vec<8, 16, 64, L_SWZ, false>(s, d, rows, cols, cm, st)
                           : launch_vec<8, 32, 512, L_SWZ, false>(s, d, rows, cols, cm, st);
    case 4: return c_not_d ? launch_vec<4, 16, 64, L_SWZ, false>(s, d, rows, cols, cm, st)
                           : launch_vec<4, 32, 256, L_SWZ, false>(s, d, rows, cols, cm, st);
    case 2: return c_not_d ? launch_vec<2, 16, 128, L_SWZ, false>(s, d, rows, cols, cm, st)
                           : launch_vec<2, 8, 32, L_SWZ, false>(s, d, rows, cols, cm, st);
    default: return c_not_d ? launch_vec<1, 8, 32, L_SWZ, false>(s, d, rows, cols, cm, st)
                            : launch_vec<1, 16, 128, L_SWZ, false>(s, d, rows, cols, cm, st);
    }
}

template <int ES>
int launch_vec_es(const void *s, void *d, size_t rows, size_t cols, gp_tile_layout layout,
                  int tune, cudaStream_t st)
{
    const bool alt = (tune & GP_CUDA_TUNE_ALT) != 0;
    const bool str = (tune & GP_CUDA_TUNE_STREAM) != 0;
    const int cm = (tune & GP_CUDA_TUNE_COLMAJOR) != 0;
    if (tune & (GP_CUDA_TUNE_CFG_C | GP_CUDA_TUNE_CFG_D))
        return launch_vec_more<ES>(s, d, rows, cols, (tune & GP_CUDA_TUNE_CFG_C) != 0, cm, st);
    switch (layout) {
    case GP_TILE_PAD:
        return str ? launch_vec_cfg<ES, L_PAD, true>(s, d, rows, cols, alt, cm, st)
                   : launch_vec_cfg<ES, L_PAD, false>(s, d, rows, cols, alt, cm, st);
    case GP_TILE_SWIZZLE:
        return str ? launch_vec_cfg<ES, L_SWZ, true>(s, d, rows, cols, alt, cm, st)
                   : launch_vec_cfg<ES, L_SWZ, false>(s, d, rows, cols, alt, cm, st);
    default:
        return str ? launch_vec_cfg<ES, L_NONE, true>(s, d, rows, cols, alt, cm, st)
                   : launch_vec_cfg<ES, L_NONE, false>(s, d, rows, cols, alt, cm, st);
    }
}

template <typename U>
int launch_unit(const void *s, void *d, size_t rows, size_t cols, size_t esize,
                gp_tile_layout layout, cudaStream_t st)
{
    const size_t nu = esize / sizeof(U);
    const U *src = static_cast<const U *>(s);
    U *dst = static_cast<U *>(d);
    int tt = 32;
    while (tt > 1 && (size_t)tt * (tt + 1) * esize > 48 * 1024) tt /= 2;
    if ((size_t)tt * (tt + 1) * esize > 48 * 1024 || nu > (size_t)(1 << 30) / 64) {
        const size_t n = rows * cols;
        k_big<U><<<grid_for(n < 65536 ? n : 65536), 256, 0, st>>>(src, dst, rows, cols, nu);
        return launched();
    }
    const size_t ntr = (rows + tt - 1) / tt, ntc = (cols + tt - 1) / tt, nt = ntr * ntc;
    const size_t smem = (size_t)tt * (tt + 1) * esize;
    const int inu = (int)nu;
    switch (layout) {
    case GP_TILE_PAD:
        k_unit<U, L_PAD><<<grid_for(nt), 256, smem, st>>>(src, dst, rows, cols, inu, tt, ntc, nt);
        break;
    case GP_TILE_SWIZZLE:
        k_unit<U, L_SWZ><<<grid_for(nt), 256, smem, st>>>(src, dst, rows, cols, inu, tt, ntc, nt);
        break;
    default:
        k_unit<U, L_NONE><<<grid_for(nt), 256, smem, st>>>(src, dst, rows, cols, inu, tt, ntc, nt);
        break;
    }
    return launched();
}

template <typename U>
int launch_naive(const void *s, void *d, size_t rows, size_t cols, size_t esize, cudaStream_t st)
{
    const size_t n = rows * cols, blocks = (n + 255) / 256;
    if (esize / sizeof(U) > (size_t)(1 << 20))
        return launch_unit<U>(s, d, rows, cols, esize, GP_TILE_NONE, st);
    k_naive<U><<<grid_for(blocks < (1u << 22) ? blocks : (1u << 22)), 256, 0, st>>>(
        static_cast<const U *>(s), static_cast<U *>(d), rows, cols, (int)(esize / sizeof(U)));
    return launched();
}

/* Largest unit (16, 8, 4, 2, 1 bytes) dividing esize and both addresses. */
size_t unit_for(const void *s, const void *d, size_t esize)
{
    const uintptr_t a = (uintptr_t)s | (uintptr_t)d;
    for (size_t u = 16; u > 1; u /= 2)
        if (esize % u == 0 && a % u == 0) return u;
    return 1;
}

template <typename F> int by_unit(size_t u, F f)
{
    switch (u) {
    case 16: return f((uint4 *)0);
    case 8: return f((unsigned long long *)0);
    case 4: return f((uint32_t *)0);
    case 2: return f((uint16_t *)0);
    default: return f((uint8_t *)0);
    }
}

} // namespace

extern "C" gp_tile_layout gp_cuda_default_layout(size_t esize)
{
    const int i = es_index(esize);
    return i < 0 ? GP_TILE_PAD : g_default_layout[i];
}

extern "C" const char *gp_cuda_layout_name(gp_tile_layout layout)
{
    switch (layout) {
    case GP_TILE_DEFAULT: return "default";
    case GP_TILE_NONE: return "none";
    case GP_TILE_PAD: return "pad";
    case GP_TILE_SWIZZLE: return "swizzle";
    case GP_TILE_NAIVE: return "naive";
    }
    return "?";
}

extern "C" int gp_cuda_transpose_dev_tuned(const void *d_src, void *d_dst, size_t rows,
                                           size_t cols, size_t esize, gp_tile_layout layout,
                                           int tune, cudaStream_t stream)
{
    if (esize == 0) return GP_EINVAL;
    if (rows == 0 || cols == 0) return 0;
    if (cols > SIZE_MAX / rows || rows * cols > SIZE_MAX / esize) return GP_EINVAL;
    const size_t bytes = rows * cols * esize;
    const uintptr_t s = (uintptr_t)d_src, d = (uintptr_t)d_dst;
    if (s < d + bytes && d < s + bytes) return GP_EINVAL; /* out of place only */
    const int ei = es_index(esize);

    if (layout == GP_TILE_DEFAULT) {
        if (rows == 1 || cols == 1) { /* a 1xN or Nx1 transpose is a copy */
            return cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, stream) ==
                           cudaSuccess
                       ? 0
                       : GP_EDEVICE;
        }
        layout = ei < 0 ? GP_TILE_PAD : g_default_layout[ei];
        if (ei >= 0) tune = g_default_tune[ei];
    }
    const size_t u = unit_for(d_src, d_dst, esize);
    const bool al16 = (((uintptr_t)d_src | (uintptr_t)d_dst) & 15) == 0;
    if (layout == GP_TILE_NAIVE) {
        return by_unit(u, [&](auto *tag) {
            return launch_naive<typename std::remove_pointer<decltype(tag)>::type>(
                d_src, d_dst, rows, cols, esize, stream);
        });
    }
    if (ei >= 0 && al16 && rows % (16 / esize) == 0 && cols % (16 / esize) == 0) {
        switch (esize) {
        case 1: return launch_vec_es<1>(d_src, d_dst, rows, cols, layout, tune, stream);
        case 2: return launch_vec_es<2>(d_src, d_dst, rows, cols, layout, tune, stream);
        case 4: return launch_vec_es<4>(d_src, d_dst, rows, cols, layout, tune, stream);
        case 8: return launch_vec_es<8>(d_src, d_dst, rows, cols, layout, tune, stream);
        default: return launch_vec_es<16>(d_src, d_dst, rows, cols, layout, tune, stream);
        }
    }
    /* k_unit's 16-byte unit would double the tile's shared memory for nothing: use 8. */
    const size_t uu = u == 16 ? 8 : u;
    return by_unit(uu, [&](auto *tag) {
        return launch_unit<typename std::remove_pointer<decltype(tag)>::type>(
            d_src, d_dst, rows, cols, esize, layout, stream);
    });
}

extern "C" int gp_cuda_transpose_dev(const void *d_src, void *d_dst, size_t rows, size_t cols,
                                     size_t esize, gp_tile_layout layout, cudaStream_t stream)
{
    return gp_cuda_transpose_dev_tuned(d_src, d_dst, rows, cols, esize, layout, 0, stream);
}
