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
 *  k_vec1h 1 B with 8-row micro-blocks (half of k_vec<1>'s registers): the 1 B default in its
 *          128-row x 256-byte tile shape (CFG_E|ALT).
 * Selectable, not default (tuning bits; none beat the defaults on the H200, bench/NOTES.md
 * "Transpose kernels, 2026-12-01"): k_async (cp.async or bulk-copy stages, persistent),
 * k_vec1h's other shapes, k_vec shapes with 16 loads in flight (CFG_E/CFG_F), grouped tile
 * orders (GROUP).
 * Edges (partial tiles, 1xN, Nx1) are predicated inside the same pass. All indexing is size_t;
 * the grid is one-dimensional over tiles with a grid-stride loop (no gridDim.y limit). */
#include <stdint.h>
#include <type_traits>
#include <cuda_runtime.h>
#include "kernels/backend.h"
#include "pipeline/status.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/tile_order.h"

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
template <int ES, int M, int NT, int L, bool STREAM, int MINT = min_threads<ES>()>
__global__ void __launch_bounds__(NT, MINT / NT > 0 ? MINT / NT : 1)
    k_vec(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t rows, size_t cols,
          size_t ntr, size_t ntc, size_t ntiles, int order)
{
    constexpr int K = 16 / ES;
    constexpr int T = M * K;          /* tile edge in elements */
    constexpr int MB = M * M / NT;    /* micro-blocks per thread */
    constexpr int NV = M * K * M / NT; /* output vectors per thread */
    static_assert(M % 8 == 0 && (M * M) % NT == 0 && MB >= 1, "bad vec tile");
    extern __shared__ uint4 sm[];
    const size_t sp = cols / K, dp = rows / K; /* row pitches in chunks */

    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        size_t tr, tc;
        gp_tile_at(t, ntr, ntc, order, &tr, &tc);
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

/* ---- k_vec1h: 1-byte elements with half-height micro-blocks. A thread loads 8 rows x 16 bytes
 * (8 LDG.128, 32 words: a quarter of k_vec<1>'s registers), transposes them into 16 pieces of
 * 8 bytes (dst row j of the micro-block: byte j of the 8 rows, two 4x4 byte transposes each,
 * Micro<1>::word with q = 0, 1) and stores those with STS.64 into the tile kept in dst order;
 * phase 2 is k_vec's (LDS.128 along dst rows, coalesced STG.128). Tile: TR src rows x MC
 * chunks (TR dst bytes per dst row, MC*16 dst rows). Lanes take consecutive src chunks
 * (mc = i % MC) and then 8-row groups: the STS.64 of a warp hit 32 distinct (chunk, half)
 * positions per pair of lanes with pad/swizzle (2 wavefronts for 256 bytes, the minimum). */
/* byte j of rows 4q..4q+3 (word j/4 of each), as Micro<1>::word on an 8-row block */
__device__ __forceinline__ uint32_t tr4x4(const uint32_t (&in)[8][4], int j, int q)
{
    const int w = j >> 2, c = j & 3;
    const uint32_t a0 = in[4 * q][w], a1 = in[4 * q + 1][w];
    const uint32_t a2 = in[4 * q + 2][w], a3 = in[4 * q + 3][w];
    const uint32_t lo = __byte_perm(a0, a1, (c >> 1) ? 0x7362 : 0x5140);
    const uint32_t hi = __byte_perm(a2, a3, (c >> 1) ? 0x7362 : 0x5140);
    return __byte_perm(lo, hi, (c & 1) ? 0x7632 : 0x5410);
}

/* A k_vec1h micro-block: src chunk mc of 8-row group g. Its 8 rows x 16 bytes into v from p
 * (the chunk's first row; rows sp chunks apart, the pointer stepped, not multiplied), and its
 * 16 dst-row pieces of 8 bytes into the dst-order tile. */
__device__ __forceinline__ void vec1h_load(uint32_t (&v)[8][4], const uint4 *__restrict__ p,
                                           size_t sp)
{
#pragma unroll
    for (int k = 0; k < 8; k++, p += sp) {
        const uint4 x = __ldg(p);
        v[k][0] = x.x; v[k][1] = x.y; v[k][2] = x.z; v[k][3] = x.w;
    }
}
/* ... stored as dst rows d0 .. d0 + 15, 8-byte half h of chunk ch, of a tile of M chunks a row */
template <int L, int M>
__device__ __forceinline__ void vec1h_store(const uint32_t (&v)[8][4], uint2 *sm2, int d0, int ch,
                                            int h)
{
#pragma unroll
    for (int j = 0; j < 16; j++) {
        uint2 o;
        o.x = tr4x4(v, j, 0);
        o.y = tr4x4(v, j, 1);
        sm2[2 * soff<L, M, 16>(d0 + j, ch) + h] = o;
    }
}

template <int TR, int MC, int NT, int L, int MINT>
__global__ void __launch_bounds__(NT, MINT / NT > 0 ? MINT / NT : 1)
    k_vec1h(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t rows, size_t cols,
            size_t ntr, size_t ntc, size_t ntiles, int order)
{
    constexpr int M = TR / 16;           /* chunks per dst row of the tile */
    constexpr int G8 = TR / 8;           /* 8-row groups */
    constexpr int MB = G8 * MC / NT;     /* micro-blocks per thread */
    constexpr int NV = TR / 16 * MC * 16 / NT; /* output vectors per thread */
    static_assert(M % 8 == 0 && (G8 * MC) % NT == 0 && MB >= 1 && NV >= 1, "bad 1h tile");
    static_assert(NT % MC == 0 && NT % M == 0, "k_vec1h: thread map");
    extern __shared__ uint4 sm[];
    uint2 *sm2 = reinterpret_cast<uint2 *>(sm);
    const size_t sp = cols / 16, dp = rows / 16;
    /* Addresses advance by pointer steps: per-access products do not depend on the tile, so ptxas
     * hoists them out of the tile loop and spills them under the 64-80 register caps.
     * Phase 1: a thread keeps its src chunk mc and steps GS 8-row groups per micro-block. */
    constexpr int GS = NT / MC;
    const int mc = threadIdx.x % MC, g0 = threadIdx.x / MC;
    const size_t istep = (size_t)GS * 8 * sp;
    /* phase 2: a thread keeps dst chunk c and steps DS dst rows per vector */
    constexpr int DS = NT / M;
    const int c = threadIdx.x % M, d0 = threadIdx.x / M;
    const size_t ostep = (size_t)DS * dp;

    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        size_t tr, tc;
        gp_tile_at(t, ntr, ntc, order, &tr, &tc);
        const size_t r0 = tr * TR, c0 = tc * (MC * 16);
        const size_t rl = (rows - r0) / 8, cl = (cols - c0) / 16;
        const int ng = rl < (size_t)G8 ? (int)rl : G8; /* valid 8-row groups (rows % 16 == 0) */
        const int nmc = cl < (size_t)MC ? (int)cl : MC;
        const bool full = (ng == G8) && (nmc == MC);

        const uint4 *in = src + (r0 + (size_t)g0 * 8) * sp + c0 / 16 + mc;
        const bool mine = full || mc < nmc;
        { /* all MB micro-blocks' loads first: 8 * MB in flight */
            uint32_t v[MB][8][4];
#pragma unroll
            for (int b = 0; b < MB; b++, in += istep)
                if (full || (mine && g0 + b * GS < ng)) vec1h_load(v[b], in, sp);
#pragma unroll
            for (int b = 0; b < MB; b++) {
                const int g = g0 + b * GS;
                if (full || (mine && g < ng)) vec1h_store<L, M>(v[b], sm2, mc * 16, g >> 1, g & 1);
            }
        }
        __syncthreads();
        const int ndr = nmc * 16, nch = ng / 2; /* valid dst rows; valid chunks per dst row */
        /* shared loads in flight before their stores: 8, or 4 under a register cap below 128 */
        constexpr int GGM = MINT / NT > 2 || NT > 256 ? 4 : 8, GG = NV < GGM ? NV : GGM;
        uint4 *out = dst + (c0 + (size_t)d0) * dp + r0 / 16 + c;
#pragma unroll
        for (int gg = 0; gg < NV; gg += GG) {
            uint4 w[GG];
#pragma unroll
            for (int q = 0; q < GG; q++) {
                const int d = d0 + (gg + q) * DS;
                if (full || (d < ndr && c < nch)) w[q] = sm[soff<L, M, 16>(d, c)];
            }
#pragma unroll
            for (int q = 0; q < GG; q++) {
                const int d = d0 + (gg + q) * DS;
                if (full || (d < ndr && c < nch)) *out = w[q];
                out += ostep;
            }
        }
        __syncthreads();
    }
}

/* ---- k_async: the tile comes in through cp.async (LDGSTS, 16 bytes, L2 only), S stages deep,
 * in *src* order; loads in flight cost no registers, so the block stays small and persistent.
 * A tile is TR = GR*K rows x TC = MC*K cols (GR row groups of K rows, MC 16-byte chunks per
 * row). Iteration i of a block: wait for tile i's copies, barrier, issue the copies of tile
 * i+S-1 into the stage freed by tile i-1, then each thread reads its micro-blocks (K rows of
 * one chunk, K LDS.128 down a column of the tile), transposes them in registers (Micro<ES>)
 * and stores K 16-byte vectors straight to dst: lanes take consecutive row groups, so a warp's
 * store covers >= 128 contiguous bytes of one dst row. Layouts apply to the column reads:
 * NONE puts the lanes' rows K*MC chunks apart (one bank group: 8- to 32-way conflicts), PAD
 * adds one chunk per row group, SWIZZLE XORs the chunk with the row group. */
__device__ __forceinline__ void cp_async16(uint4 *s, const uint4 *g)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Hopper's bulk copy engine (cp.async.bulk, plain sm_90): one copy per tile row, completion
 * counted in bytes on an mbarrier per stage. */
__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    unsigned done = 0;
    do {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}
__device__ __forceinline__ void bulk_g2s(void *s, const void *g, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];\n" ::"r"(smem_u32(s)),
                 "l"(g), "r"(bytes), "r"(smem_u32(bar))
                 : "memory");
}

/* chunk ch of local src row r of an async tile */
template <int L, int MC, int K> __device__ __forceinline__ int aoff(int r, int ch)
{
    if (L == L_PAD) return r * MC + r / K + ch;
    if (L == L_SWZ) return r * MC + (ch ^ ((r / K) & 7));
    return r * MC + ch;
}

template <int ES, int GR, int MC, int NT, int S, int MINB, int L, bool BULK = false>
__global__ void __launch_bounds__(NT, MINB)
    k_async(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t rows, size_t cols,
            size_t ntr, size_t ntc, size_t ntiles, int order)
{
    constexpr int K = 16 / ES, TR = GR * K, TC = MC * K;
    constexpr int SC = TR * MC + (L == L_PAD ? GR : 0); /* chunks per stage */
    constexpr int PR = TR * MC / NT;                    /* copies per thread per tile */
    constexpr int MBT = GR * MC / NT;                   /* micro-blocks per thread per tile */
    static_assert(MC % 8 == 0 && GR % 8 == 0 && (TR * MC) % NT == 0 && (GR * MC) % NT == 0 &&
                      MBT >= 1 && S >= 2,
                  "bad async tile");
    static_assert(!BULK || L != L_SWZ, "bulk copies move whole rows: no swizzle");
    extern __shared__ uint4 sm[];
    uint64_t *bar = reinterpret_cast<uint64_t *>(sm + S * SC); /* BULK: one per stage */
    const size_t sp = cols / K, dp = rows / K; /* row pitches in chunks */

    auto coords = [&](size_t t, size_t &r0, size_t &c0) {
        size_t tr, tc;
        gp_tile_at(t, ntr, ntc, order, &tr, &tc);
        r0 = tr * TR;
        c0 = tc * TC;
    };
    auto issue = [&](size_t t, int s) {
        size_t r0, c0;
        coords(t, r0, c0);
        const size_t rl = rows - r0, cl = (cols - c0) / K;
        const int nr = rl < (size_t)TR ? (int)rl : TR, nc = cl < (size_t)MC ? (int)cl : MC;
        uint4 *st = sm + s * SC;
        const uint4 *g = src + r0 * sp + c0 / K;
        if constexpr (BULK) { /* warp 0: the byte count first, then one copy per row */
            if (threadIdx.x < 32) {
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* after the reads */
                if (threadIdx.x == 0) mbar_expect_tx(&bar[s], (unsigned)(nr * nc * 16));
                __syncwarp();
                for (int r = threadIdx.x; r < nr; r += 32)
                    bulk_g2s(st + aoff<L, MC, K>(r, 0), g + (size_t)r * sp, (unsigned)(nc * 16),
                             &bar[s]);
            }
        } else {
#pragma unroll
            for (int p = 0; p < PR; p++) {
                const int q = threadIdx.x + p * NT, r = q / MC, ch = q % MC;
                if (r < nr && ch < nc)
                    cp_async16(st + aoff<L, MC, K>(r, ch), g + (size_t)r * sp + ch);
            }
        }
    };

    if (BULK) {
        if (threadIdx.x == 0) {
            for (int s = 0; s < S; s++) mbar_init(&bar[s], 1);
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
    }
#pragma unroll
    for (int s = 0; s < S - 1; s++) {
        const size_t t = blockIdx.x + (size_t)s * gridDim.x;
        if (t < ntiles) issue(t, s);
        if (!BULK) cp_async_commit();
    }
    int cs = 0;          /* stage of the tile consumed now */
    unsigned phase = 0;  /* BULK: bit s = parity of stage s's next completion */
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        if (BULK) {
            mbar_wait(&bar[cs], (phase >> cs) & 1u); /* tile t's bytes have all landed */
            phase ^= 1u << cs;
        } else {
            cp_async_wait<S - 2>(); /* this thread's copies of tile t have landed */
        }
        __syncthreads(); /* everyone's; and stage cs-1 is no longer read */
        {
            const size_t tn = t + (size_t)(S - 1) * gridDim.x;
            if (tn < ntiles) issue(tn, cs == 0 ? S - 1 : cs - 1);
            if (!BULK) cp_async_commit();
        }
        size_t r0, c0;
        coords(t, r0, c0);
        const size_t rl = (rows - r0) / K, cl = (cols - c0) / K;
        const int nmr = rl < (size_t)GR ? (int)rl : GR, nmc = cl < (size_t)MC ? (int)cl : MC;
        const bool full = (nmr == GR) && (nmc == MC);
        const uint4 *st = sm + cs * SC;
        uint32_t v[MBT][K][4];
#pragma unroll
        for (int b = 0; b < MBT; b++) {
            const int i = threadIdx.x + b * NT, g = i % GR, c = i / GR;
            if (full || (g < nmr && c < nmc)) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    const uint4 x = st[aoff<L, MC, K>(g * K + k, c)];
                    v[b][k][0] = x.x; v[b][k][1] = x.y; v[b][k][2] = x.z; v[b][k][3] = x.w;
                }
            }
        }
#pragma unroll
        for (int b = 0; b < MBT; b++) {
            const int i = threadIdx.x + b * NT, g = i % GR, c = i / GR;
            if (full || (g < nmr && c < nmc)) {
                uint4 *d = dst + (c0 + (size_t)c * K) * dp + r0 / K + g;
#pragma unroll
                for (int j = 0; j < K; j++) {
                    uint4 o;
                    o.x = Micro<ES>::word(v[b], j, 0);
                    o.y = Micro<ES>::word(v[b], j, 1);
                    o.z = Micro<ES>::word(v[b], j, 2);
                    o.w = Micro<ES>::word(v[b], j, 3);
                    d[(size_t)j * dp] = o;
                }
            }
        }
        cs = cs == S - 1 ? 0 : cs + 1;
    }
    if (!BULK) cp_async_wait<0>();
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
 * 90.0%; 1 B: k_vec1h's 256-byte-wide tiles, 2026-12-01). Pad and swizzle tie within noise
 * everywhere; swizzle needs no extra shared memory. Column-major tile order won for every size. */
const gp_tile_layout g_default_layout[5] = {GP_TILE_SWIZZLE, GP_TILE_SWIZZLE, GP_TILE_SWIZZLE,
                                            GP_TILE_SWIZZLE, GP_TILE_SWIZZLE};
const int g_default_tune[5] = {
    /* 1 B: k_vec1h, 128 rows x 256 B tiles, 256 threads (2026-12-01, third H200 round: 91.9-92.6%
     * against 88.8-90.5% for k_vec's 8x8 micro-blocks of 16x16 with 64 threads) */
    GP_CUDA_TUNE_COLMAJOR | GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_ALT,
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

/* Grouped tile orders (tune bit GROUP, gp_tile_at in tile_order.h): panels about this many
 * bytes of a src row wide (mode 2) or of a dst row tall (mode 3); gp_cuda_tile_group_bytes()
 * sets it for the bench. */
size_t g_group_bytes = 2048;

/* The kernels' `order` argument from a mode 0-3 and the tile's edges in bytes (src row run
 * tc_bytes, dst row run tr_bytes). */
int tile_order(int mode, size_t tr_bytes, size_t tc_bytes)
{
    if (mode < 2) return mode;
    size_t g = g_group_bytes / (mode == 2 ? tc_bytes : tr_bytes);
    if (g < 1) g = 1;
    if (g > (1u << 20)) g = 1u << 20;
    return mode | (int)(g << 2);
}

template <int ES, int M, int NT, int L, bool S, int MINT = min_threads<ES>()>
int launch_vec(const void *s, void *d, size_t rows, size_t cols, int mode, cudaStream_t st)
{
    constexpr size_t T = (size_t)M * (16 / ES);
    constexpr size_t smem = sizeof(uint4) * ((size_t)M * (16 / ES) * M + (L == L_PAD ? M : 0));
    if (smem > 48 * 1024) {
        static bool attr_set = false; /* per instantiation; benign race (idempotent call) */
        if (!attr_set) {
            if (cudaFuncSetAttribute(k_vec<ES, M, NT, L, S, MINT>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem) != cudaSuccess)
                return GP_EDEVICE;
            attr_set = true;
        }
    }
    const size_t ntr = (rows + T - 1) / T, ntc = (cols + T - 1) / T, nt = ntr * ntc;
    k_vec<ES, M, NT, L, S, MINT><<<grid_for(nt), NT, smem, st>>>(
        static_cast<const uint4 *>(s), static_cast<uint4 *>(d), rows, cols, ntr, ntc, nt,
        tile_order(mode, T * ES, T * ES));
    return launched();
}

/* k_vec1h (1 B): tile TR src rows x MC chunks, NT threads, register cap from MINT threads/SM */
template <int TR, int MC, int NT, int L, int MINT>
int launch_vec1h(const void *s, void *d, size_t rows, size_t cols, int mode, cudaStream_t st)
{
    constexpr size_t TC = (size_t)MC * 16;
    constexpr size_t smem = sizeof(uint4) * (TC * (TR / 16) + (L == L_PAD ? (size_t)MC : 0));
    auto kern = k_vec1h<TR, MC, NT, L, MINT>;
    /* large tiles: the opt-in size, and all of L1 as shared memory so MINT / NT blocks fit */
    if (smem > 48 * 1024 &&
        (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
             cudaSuccess ||
         cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared) != cudaSuccess))
        return GP_EDEVICE;
    const size_t ntr = (rows + TR - 1) / TR, ntc = (cols + TC - 1) / TC, nt = ntr * ntc;
    kern<<<grid_for(nt), NT, smem, st>>>(static_cast<const uint4 *>(s), static_cast<uint4 *>(d),
                                         rows, cols, ntr, ntc, nt, tile_order(mode, TR, TC));
    return launched();
}

/* Shapes E, F, E|F (tune bits CFG_E, CFG_F; issue 3's third round, 2026-12-01): fewer registers
 * per load in flight. 1 B: k_vec1h, 8-row micro-blocks (E: 128x128 B tile, 128 threads, 8 loads
 * each, 4 blocks/SM; F: the same tile with 64 threads, 16 loads each; E|F: 256 rows x 128 B,
 * 256 threads). 2/4/8/16 B: k_vec with 16 loads in flight per thread under a 170-register cap
 * (384 threads/SM; F: 8 B under the 128 cap). */
template <int ES, int L>
int launch_vec_ef(const void *s, void *d, size_t rows, size_t cols, int ef, bool alt, int mode,
                  cudaStream_t st)
{
    switch (ES) {
    case 1:
        if (alt) /* 128 rows x 256 B tiles, 256 threads with 8 loads each: E 2 blocks/SM (the
                  * default), F 4 blocks/SM (64 registers), E|F 3 blocks/SM (80 registers); all
                  * within 0.4 points on the H200 (2026-12-04). 256 x 256 B tiles lost (90-91%),
                  * also on 2-block clusters (73-75%): bench/NOTES.md, sixteenth session. */
            return ef == 1   ? launch_vec1h<128, 16, 256, L, 512>(s, d, rows, cols, mode, st)
                   : ef == 2 ? launch_vec1h<128, 16, 256, L, 1024>(s, d, rows, cols, mode, st)
                             : launch_vec1h<128, 16, 256, L, 768>(s, d, rows, cols, mode, st);
        return ef == 1   ? launch_vec1h<128, 8, 128, L, 512>(s, d, rows, cols, mode, st)
               : ef == 2 ? launch_vec1h<128, 8, 64, L, 384>(s, d, rows, cols, mode, st)
                         : launch_vec1h<256, 8, 256, L, 512>(s, d, rows, cols, mode, st);
    case 2: return launch_vec<2, 16, 128, L, false, 512>(s, d, rows, cols, mode, st);
    case 4: return launch_vec<4, 16, 64, L, false, 384>(s, d, rows, cols, mode, st);
    case 8:
        if (alt) /* fewer threads per SM: E 256 x 1 block, F 128 x 2 (16 loads), E|F 128x128 tiles */
            return ef == 1   ? launch_vec<8, 32, 256, L, false, 256>(s, d, rows, cols, mode, st)
                   : ef == 2 ? launch_vec<8, 32, 128, L, false, 256>(s, d, rows, cols, mode, st)
                             : launch_vec<8, 64, 256, L, false, 256>(s, d, rows, cols, mode, st);
        /* E|F: 32 x 32 tiles (256-byte rows, 8 KB) with 64 threads of 8 loads, 8 blocks/SM:
         * 95.0% of copy with pad or swizzle, the default's figure (2026-12-02) */
        return ef == 2   ? launch_vec<8, 32, 128, L, false, 512>(s, d, rows, cols, mode, st)
               : ef == 3 ? launch_vec<8, 16, 64, L, false, 512>(s, d, rows, cols, mode, st)
                         : launch_vec<8, 32, 128, L, false, 384>(s, d, rows, cols, mode, st);
    default: return launch_vec<16, 32, 64, L, false, 384>(s, d, rows, cols, mode, st);
    }
}

/* (M, NT) per element size: config A (tune 0) and B (GP_CUDA_TUNE_ALT). */
template <int ES, int L, bool S>
int launch_vec_cfg(const void *s, void *d, size_t rows, size_t cols, bool alt, int mode,
                   cudaStream_t st)
{
    switch (ES) {
    case 16: return alt ? launch_vec<16, 32, 128, L, S>(s, d, rows, cols, mode, st)
                        : launch_vec<16, 32, 256, L, S>(s, d, rows, cols, mode, st);
    case 8: return alt ? launch_vec<8, 16, 128, L, S>(s, d, rows, cols, mode, st)
                       : launch_vec<8, 32, 256, L, S>(s, d, rows, cols, mode, st);
    case 4: return alt ? launch_vec<4, 16, 256, L, S>(s, d, rows, cols, mode, st)
                       : launch_vec<4, 16, 128, L, S>(s, d, rows, cols, mode, st);
    case 2: return alt ? launch_vec<2, 8, 64, L, S>(s, d, rows, cols, mode, st)
                       : launch_vec<2, 16, 256, L, S>(s, d, rows, cols, mode, st);
    default: return alt ? launch_vec<1, 16, 256, L, S>(s, d, rows, cols, mode, st)
                        : launch_vec<1, 8, 64, L, S>(s, d, rows, cols, mode, st);
    }
}

/* Two more (M, NT) shapes per element size, swizzled tile and default cache hints only (the
 * measured best of those): CFG_C and CFG_D, for the bench's sweep (--tune). More micro-blocks
 * per thread (more loads in flight, fewer threads) or smaller tiles (more blocks per SM). */
template <int ES>
int launch_vec_more(const void *s, void *d, size_t rows, size_t cols, bool c_not_d, int mode, cudaStream_t st)
{
    switch (ES) {
    case 16: return c_not_d ? launch_vec<16, 16, 128, L_SWZ, false>(s, d, rows, cols, mode, st)
                            : launch_vec<16, 32, 512, L_SWZ, false>(s, d, rows, cols, mode, st);
    case 8: return c_not_d ? launch_vec<8, 16, 64, L_SWZ, false>(s, d, rows, cols, mode, st)
                           : launch_vec<8, 32, 512, L_SWZ, false>(s, d, rows, cols, mode, st);
    case 4: return c_not_d ? launch_vec<4, 16, 64, L_SWZ, false>(s, d, rows, cols, mode, st)
                           : launch_vec<4, 32, 256, L_SWZ, false>(s, d, rows, cols, mode, st);
    case 2: return c_not_d ? launch_vec<2, 16, 128, L_SWZ, false>(s, d, rows, cols, mode, st)
                           : launch_vec<2, 8, 32, L_SWZ, false>(s, d, rows, cols, mode, st);
    default: return c_not_d ? launch_vec<1, 8, 32, L_SWZ, false>(s, d, rows, cols, mode, st)
                            : launch_vec<1, 16, 128, L_SWZ, false>(s, d, rows, cols, mode, st);
    }
}

/* k_async shapes: {GR row groups, MC chunks per row, threads, stages, blocks per SM}.
 * 0 (ASYNC): ~16 KB stages x 4, 3 blocks per SM;  1 (ASYNC|ALT): ~32 KB x 3, 2 blocks;
 * 2 (ASYNC|CFG_C): ~8 KB x 4, 6 blocks (1 B: 16 KB x 2);  3 (ASYNC|CFG_D): config 0's tile, 6
 * stages, 2 blocks. All of them keep ~128 KB of loads in flight per SM at most, none in
 * registers. */
/* Test hook (gp_cuda_async_grid_cap): at most this many blocks per k_async launch, so that
 * small matrices still run many tiles per block and wrap around the stages. 0: no cap. */
int g_async_cap = 0;

template <int ES, int C> struct ACfg;
#define GP_ACFG(ES, C, GR_, MC_, NT_, S_, MB_)                                                    \
    template <> struct ACfg<ES, C> {                                                              \
        enum { GR = GR_, MC = MC_, NT = NT_, S = S_, MINB = MB_ };                                \
    };
GP_ACFG(1, 0, 8, 8, 64, 4, 3)    GP_ACFG(1, 1, 16, 8, 128, 3, 2)  GP_ACFG(1, 2, 8, 8, 64, 2, 6)
GP_ACFG(1, 3, 8, 8, 64, 6, 2)
GP_ACFG(2, 0, 16, 8, 128, 4, 3)  GP_ACFG(2, 1, 16, 16, 256, 3, 2) GP_ACFG(2, 2, 8, 8, 64, 4, 6)
GP_ACFG(2, 3, 16, 8, 128, 6, 2)
GP_ACFG(4, 0, 16, 16, 128, 4, 3) GP_ACFG(4, 1, 32, 16, 256, 3, 2) GP_ACFG(4, 2, 16, 8, 64, 4, 6)
GP_ACFG(4, 3, 16, 16, 128, 6, 2)
GP_ACFG(8, 0, 32, 16, 128, 4, 3) GP_ACFG(8, 1, 32, 32, 256, 3, 2) GP_ACFG(8, 2, 16, 16, 64, 4, 6)
GP_ACFG(8, 3, 32, 16, 128, 6, 2)
GP_ACFG(16, 0, 32, 32, 128, 4, 3) GP_ACFG(16, 1, 64, 32, 256, 3, 2)
GP_ACFG(16, 2, 16, 32, 64, 4, 6) GP_ACFG(16, 3, 32, 32, 128, 6, 2)
/* 4 (ASYNC|CFG_E): config 0's tile, 2 stages, 4 blocks; 5 (ASYNC|CFG_F): 3 stages, 2 blocks:
 * ~64 KB in flight per SM, what the register kernels that reach 97% keep */
GP_ACFG(1, 4, 8, 8, 64, 2, 4)    GP_ACFG(1, 5, 8, 8, 64, 3, 2)
GP_ACFG(2, 4, 16, 8, 128, 2, 4)  GP_ACFG(2, 5, 16, 8, 128, 3, 2)
GP_ACFG(4, 4, 16, 16, 128, 2, 4) GP_ACFG(4, 5, 16, 16, 128, 3, 2)
GP_ACFG(8, 4, 32, 16, 128, 2, 4) GP_ACFG(8, 5, 32, 16, 128, 3, 2)
GP_ACFG(16, 4, 32, 32, 128, 2, 4) GP_ACFG(16, 5, 32, 32, 128, 3, 2)
#undef GP_ACFG

template <int ES, int C, int L, bool BULK = false>
int launch_async(const void *s, void *d, size_t rows, size_t cols, int mode, cudaStream_t st)
{
    using A = ACfg<ES, C>;
    constexpr int K = 16 / ES;
    constexpr size_t TR = (size_t)A::GR * K, TC = (size_t)A::MC * K;
    constexpr size_t smem =
        sizeof(uint4) * A::S * (TR * A::MC + (L == L_PAD ? (size_t)A::GR : 0)) +
        (BULK ? sizeof(uint64_t) * A::S : 0);
    auto kern = k_async<ES, A::GR, A::MC, A::NT, A::S, A::MINB, L, BULK>;
    /* per launch (cheap): the attribute is per device, and a process may use several */
    if (smem > 48 * 1024 &&
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess)
        return GP_EDEVICE;
    /* all of L1 as shared memory: the copies bypass L1 (.cg) and so do the stores */
    if (cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) != cudaSuccess)
        return GP_EDEVICE;
    static int occ = 0; /* blocks per SM; per instantiation (benign race, same answer) */
    if (occ <= 0) {
        int o = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, kern, A::NT, smem) != cudaSuccess)
            return GP_EDEVICE;
        occ = o > 0 ? o : 1;
    }
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return GP_EDEVICE;
    const size_t ntr = (rows + TR - 1) / TR, ntc = (cols + TC - 1) / TC, nt = ntr * ntc;
    size_t resident = (size_t)sms * occ;
    if (g_async_cap > 0 && resident > (size_t)g_async_cap) resident = (size_t)g_async_cap;
    kern<<<grid_for(nt < resident ? nt : resident), A::NT, smem, st>>>(
        static_cast<const uint4 *>(s), static_cast<uint4 *>(d), rows, cols, ntr, ntc, nt,
        tile_order(mode, TR * ES, TC * ES));
    return launched();
}

template <int ES, int L, bool BULK = false>
int launch_async_cfg(const void *s, void *d, size_t rows, size_t cols, int c, int mode,
                     cudaStream_t st)
{
    switch (c) {
    case 1: return launch_async<ES, 1, L, BULK>(s, d, rows, cols, mode, st);
    case 2: return launch_async<ES, 2, L, BULK>(s, d, rows, cols, mode, st);
    case 3: return launch_async<ES, 3, L, BULK>(s, d, rows, cols, mode, st);
    case 4: return launch_async<ES, 4, L, BULK>(s, d, rows, cols, mode, st);
    case 5: return launch_async<ES, 5, L, BULK>(s, d, rows, cols, mode, st);
    default: return launch_async<ES, 0, L, BULK>(s, d, rows, cols, mode, st);
    }
}

template <int ES>
int launch_vec_es(const void *s, void *d, size_t rows, size_t cols, gp_tile_layout layout,
                  int tune, cudaStream_t st)
{
    const bool alt = (tune & GP_CUDA_TUNE_ALT) != 0;
    const bool str = (tune & GP_CUDA_TUNE_STREAM) != 0;
    /* tile order mode (gp_tile_at): row-/column-major, either of them in panels with GROUP */
    const int mode = ((tune & GP_CUDA_TUNE_COLMAJOR) ? 1 : 0) | ((tune & GP_CUDA_TUNE_GROUP) ? 2 : 0);
    if (tune & GP_CUDA_TUNE_ASYNC) {
        const int c = (tune & GP_CUDA_TUNE_CFG_F)   ? 5
                      : (tune & GP_CUDA_TUNE_CFG_E) ? 4
                      : (tune & GP_CUDA_TUNE_CFG_D) ? 3
                      : (tune & GP_CUDA_TUNE_CFG_C) ? 2
                      : alt                         ? 1
                                                    : 0;
        if (str) /* ASYNC|STREAM: the bulk copy engine, whole rows: none, or pad for pad/swizzle */
            return layout == GP_TILE_NONE
                       ? launch_async_cfg<ES, L_NONE, true>(s, d, rows, cols, c, mode, st)
                       : launch_async_cfg<ES, L_PAD, true>(s, d, rows, cols, c, mode, st);
        switch (layout) {
        case GP_TILE_PAD: return launch_async_cfg<ES, L_PAD>(s, d, rows, cols, c, mode, st);
        case GP_TILE_SWIZZLE: return launch_async_cfg<ES, L_SWZ>(s, d, rows, cols, c, mode, st);
        default: return launch_async_cfg<ES, L_NONE>(s, d, rows, cols, c, mode, st);
        }
    }
    if (tune & (GP_CUDA_TUNE_CFG_E | GP_CUDA_TUNE_CFG_F)) {
        const int ef = ((tune & GP_CUDA_TUNE_CFG_E) ? 1 : 0) | ((tune & GP_CUDA_TUNE_CFG_F) ? 2 : 0);
        switch (layout) {
        case GP_TILE_PAD: return launch_vec_ef<ES, L_PAD>(s, d, rows, cols, ef, alt, mode, st);
        case GP_TILE_SWIZZLE: return launch_vec_ef<ES, L_SWZ>(s, d, rows, cols, ef, alt, mode, st);
        default: return launch_vec_ef<ES, L_NONE>(s, d, rows, cols, ef, alt, mode, st);
        }
    }
    if (tune & (GP_CUDA_TUNE_CFG_C | GP_CUDA_TUNE_CFG_D))
        return launch_vec_more<ES>(s, d, rows, cols, (tune & GP_CUDA_TUNE_CFG_C) != 0, mode, st);
    switch (layout) {
    case GP_TILE_PAD:
        return str ? launch_vec_cfg<ES, L_PAD, true>(s, d, rows, cols, alt, mode, st)
                   : launch_vec_cfg<ES, L_PAD, false>(s, d, rows, cols, alt, mode, st);
    case GP_TILE_SWIZZLE:
        return str ? launch_vec_cfg<ES, L_SWZ, true>(s, d, rows, cols, alt, mode, st)
                   : launch_vec_cfg<ES, L_SWZ, false>(s, d, rows, cols, alt, mode, st);
    default:
        return str ? launch_vec_cfg<ES, L_NONE, true>(s, d, rows, cols, alt, mode, st)
                   : launch_vec_cfg<ES, L_NONE, false>(s, d, rows, cols, alt, mode, st);
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

extern "C" void gp_cuda_async_grid_cap(int blocks) { g_async_cap = blocks > 0 ? blocks : 0; }

extern "C" void gp_cuda_tile_group_bytes(size_t bytes) { g_group_bytes = bytes ? bytes : 2048; }

extern "C" int gp_cuda_default_tune(size_t esize)
{
    const int i = es_index(esize);
    return i < 0 ? 0 : g_default_tune[i];
}

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
