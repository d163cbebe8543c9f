/* bench/bench_reduce_gpu.cu — gpipe's device reductions against CUB on the H200 (issue 5).
 *
 * One 2 GiB f32 matrix in device memory (random, see --data), viewed as each shape of the issue
 * (16384x32768, 512x2^20, 2^20x512, 2^27x4, 4x2^27). For every shape, in the same run:
 *   copy        cudaMemcpy D2D of the same bytes, GB/s = (read + written) / time: the ceiling
 *   cub_sum     cub::DeviceReduce::Sum over the whole matrix: the reference rate R
 *   plain_sum   a plain warp-shuffle float sum (16-byte loads, not reproducible): exactness' cost
 *   cub_rows    cub::DeviceSegmentedReduce::Sum, one segment per row
 *   plain_rows  (>= 8192 rows of 4, or a multiple of 8, 512-byte units) plain float row sums read as
 *               k_sum_rows_w reads them: the ceiling of a row sum that need not be exact
 *   sum_all, sum_rows, sum_cols, min_all, max_all, max_rows, max_cols, argmax_all, argmax_rows,
 *   argmax_cols: gpipe's kernels exactly as `gpipe reduce --device cuda` runs them on a panel
 *               (gp_cuda_r*_dev: the device part of gp_cuda_rsum/rext/rarg; no host copy timed)
 *   legacy_*    the same with the first version of the kernels (kernels=legacy)
 *   batch=K_*   sum_all, sum_rows, sum_cols with the other ways of adding f32 (tuning batch=0|1|2)
 * With --probes only (questions of one session each, answered or asked in bench/NOTES.md):
 *   plain_sum_wc, plain_sum_8, plain_sum_8wc (first shape, timing only) plain_sum with a warp's 4
 *               loads on contiguous bytes; with 8 loads at the exact sum's 256 x 4 an SM, in the
 *               block-tile order and contiguous (tuning wc): does the whole sum's load order cost?
 *   plain_rows_pf (4 units) plain_rows with the next batch's loads issued before this batch's merge
 *   plain_rows_ns (4 units) plain_rows without the per-row stores: a warp adds its rows' sums and
 *               stores one double at the end (timing only: is the row output what costs?)
 *   plain_rows_r1 (4 units) a warp a row, 4 loads a lane, 64 warps an SM (the whole sum's occupancy)
 *   plain_rows_st_cs, _ld_cs, _l2, _sm (4 units) plain_rows with streaming stores, streaming loads,
 *               the stores into a 1 MiB buffer kept in L2, the stores from shared memory every 32
 *               steps: where do the row stores cost?
 *   plain_rows_ch (4 units) plain_rows with 16 consecutive rows a warp and one 128-byte store of
 *               their sums (the stores' granularity and the grid's walk through the matrix)
 * Once, on the whole matrix (without --ops, or with "stats" in it):
 *   stats       `gpipe stats --device cuda`'s device part (gp_cuda_rstats_dev), and its steps
 *               stats_sumsq (the exact sum of squares) and stats_aux (fingerprint, extrema,
 *               counts); checked against gp_cpu_rstats on host threads, every figure
 * GB/s = bytes of the matrix read / time (CUB and gpipe alike); "r+w GB/s" adds the bytes the op
 * writes (rows: 8 B per row, cols: 8 B per column for gpipe, 12 B more per column whose lo is not
 * 0, which this figure leaves out; 4 B per row for CUB), which bounds
 * the 2^27x4 row and 4x2^27 column cases. Timing: CUDA events around each call on the stream
 * the kernels run on, a spin kernel queued first (no host gap is timed), median of --reps after
 * 2 warm-ups.
 * Verification (a fast but wrong kernel fails the run, exit 1): every gpipe op of the full
 * 16384x32768 matrix against the CPU kernels (exact sums, bit for bit; threads over row panels
 * merged like ranks), and for the other shapes the same kernels on a 2^24-element matrix of the
 * same kind (16x2^20, 2^15x512, 2^22x4, 4x2^22); every shape's whole sum equal to the verified one.
 * --tune: every sum kernel over threads per block x blocks per SM x loads in flight, the best per
 * op and shape (results never depend on it; tests/gpu/test_cuda_reduce.c checks that).
 * usage: bench_reduce_gpu [--reps N] [--json FILE] [--tune] [--data uniform|wide] [--no-verify]
 *                         [--quick] [--probes] [--shape I]   (I: only the I-th shape, 0..4, e.g. under ncu)
 *                         [--log2n L]  (2^L floats instead of 2^29, 22 <= L <= 32: a size sweep separates a
 *                         fixed cost per call from a rate; --quick is L = 27)
 *                         [--cols C]  (the matrix as (n / C) x C instead, C a power of two)
 *                         [--ops sum_all,max_rows,...] [--variants 'SPEC;SPEC'] (tuning specs on top
 *                         of the default: the sums, or every op of --ops, in the same run)
 *                         (exit 0 ok, 1 verification failed, 2 error) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <algorithm>
#include <string>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "pipeline/reduce.h"
#include "pipeline/status.h"

namespace {

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench_reduce_gpu: %s failed: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

/* uniform: doubles with 53 random bits in [-1, 1) rounded to f32 (small values keep 24 bits, so
 * a few 4-element groups span more than 27 binades: the rare exact fallback is exercised);
 * wide: the same scaled by 2^-20..2^20 (most 4-element groups fall back to per-element TwoSum) */
__global__ void k_fill(float *x, size_t n, int wide)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 30; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 27; h *= 0x94D049BB133111EBull; h ^= h >> 31;
        double d = (double)(h >> 11) * 0x1p-53 * 2.0 - 1.0;
        if (wide) d = ldexp(d, (int)(h & 63) % 41 - 20);
        x[i] = (float)d;
    }
}

/* plain float sum: U 16-byte loads in flight per thread, float accumulators, warp shuffle,
 * one atomicAdd per warp. WC: a warp's U loads read 512 U contiguous bytes of the block's tile
 * (k_sum_rows_w's order) instead of 512 B in each of U rows of blockDim.x vectors */
template <int U, bool WC = false>
__global__ void k_plain_sum(const float4 *__restrict__ x, size_t nv, float *out)
{
    float a[U];
#pragma unroll
    for (int u = 0; u < U; u++) a[u] = 0.f;
    const size_t tile = (size_t)blockDim.x * U;
    for (size_t b = blockIdx.x * tile; b < nv; b += (size_t)gridDim.x * tile) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            size_t i = WC ? b + (threadIdx.x >> 5) * 32 * U + u * 32 + (threadIdx.x & 31) : b + (size_t)u * blockDim.x + threadIdx.x;
            v[u] = i < nv ? __ldg(x + i) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < U; u++) a[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < U; u++) s += a[u];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

/* plain float row sums of rows of K 512-byte units (cols = 128 K) with k_sum_rows_w's geometry:
 * a warp takes 2 consecutive rows and each load instruction 512 contiguous bytes of one row, 8
 * in flight per lane (KT = 4: both rows' 8 units at once; KT = 0: any K % 8 == 0, a row at a
 * time), float accumulators, an xor-shuffle tree per row, one double per row out (the bytes gpipe
 * writes). Not reproducible: the ceiling of a row sum that need not be exact. */
template <int KT>
__global__ void __launch_bounds__(512, 2) k_plain_rows(const float4 *__restrict__ x, size_t rows, unsigned K, double *out)
{
    constexpr int RW = 2, U = 8;
    const unsigned lane = threadIdx.x & 31;
    const size_t nb = (rows + RW - 1) / RW;
    const size_t nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    for (size_t b = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5; b < nb; b += nw) {
        const size_t r0 = b * RW;
        const int nr = rows - r0 < (size_t)RW ? (int)(rows - r0) : RW;
        const float4 *p = x + r0 * K * 32 + lane;
        float acc[RW] = {0.f, 0.f};
        if (KT > 0 && nr == RW) {
            float4 v[RW * KT > 0 ? RW * KT : 1];
#pragma unroll
            for (int u = 0; u < RW * KT; u++) v[u] = __ldg(p + (size_t)u * 32);
#pragma unroll
            for (int u = 0; u < RW * KT; u++) acc[KT ? u / KT : 0] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
        } else {
            constexpr int UC = KT > 0 ? KT : U;   /* loads a chunk; K % UC == 0 */
            for (int r = 0; r < nr; r++)
                for (unsigned u0 = 0; u0 < K; u0 += UC) {
                    float4 v[UC];
#pragma unroll
                    for (int u = 0; u < UC; u++) v[u] = __ldg(p + ((size_t)r * K + u0 + u) * 32);
#pragma unroll
                    for (int u = 0; u < UC; u++) acc[r] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
                }
        }
#pragma unroll
        for (int r = 0; r < RW; r++)
            for (int off = 16; off > 0; off >>= 1) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], off);
        if (lane < (unsigned)nr) out[r0 + lane] = lane ? acc[1] : acc[0];
    }
}

/* the float sums of a batch of 2 rows of 4 units (v[0..3] row 0, v[4..7] row 1), every lane
 * holding both after an xor-shuffle tree */
__device__ __forceinline__ void sum_two_rows(const float4 (&v)[8], float (&acc)[2])
{
    acc[0] = acc[1] = 0.f;
#pragma unroll
    for (int u = 0; u < 8; u++) acc[u / 4] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
#pragma unroll
    for (int r = 0; r < 2; r++)
        for (int off = 16; off > 0; off >>= 1) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], off);
}

/* the 8 loads of batch b of rows of 4 units (rows 2b, 2b + 1), lane's vectors; CS: streaming loads
 * (ld.global.cs) instead of the read-only path */
template <bool CS = false>
__device__ __forceinline__ void load_two_rows(const float4 *__restrict__ x, size_t b, unsigned lane, float4 (&v)[8])
{
    const float4 *p = x + b * 256 + lane;
#pragma unroll
    for (int u = 0; u < 8; u++) v[u] = CS ? __ldcs(p + (size_t)u * 32) : __ldg(p + (size_t)u * 32);
}

/* k_plain_rows<4> without the per-row output: each warp's rows summed in one register, one double
 * per warp into out[warp] (the grid's warps <= rows), the per-row shuffles kept. Checked as a whole:
 * the warps' doubles add up to the sum of the exact row sums within the float bound. */
__global__ void __launch_bounds__(512, 2) k_plain_rows_ns(const float4 *__restrict__ x, size_t rows, double *out)
{
    constexpr int RW = 2, NV = 8;
    const unsigned lane = threadIdx.x & 31;
    const size_t nb = (rows + RW - 1) / RW, nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    const size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    double tot = 0;
    for (size_t b = w; b < nb; b += nw) {
        const size_t r0 = b * RW;
        const int nr = rows - r0 < (size_t)RW ? (int)(rows - r0) : RW;
        const float4 *p = x + r0 * 128 + lane;
        float4 v[NV];
#pragma unroll
        for (int u = 0; u < NV; u++) v[u] = u / 4 < nr ? __ldg(p + (size_t)u * 32) : make_float4(0.f, 0.f, 0.f, 0.f);
        float acc[RW];
        sum_two_rows(v, acc);
        tot += (double)acc[0] + (double)acc[1];
    }
    if (lane == 0 && w < rows) out[w] = tot;
}

/* k_plain_rows<4> with each warp on 16 consecutive rows (8 batches of 2, 32 KiB contiguous) and
 * their 16 sums stored at once, lanes 0-15 one 128-byte store, instead of a 16-byte store per
 * batch; rows % 16 == 0. Asks whether the row stores' granularity, or the order in which the
 * grid walks the matrix, is what plain_rows loses to the whole sum. */
__global__ void __launch_bounds__(512, 2) k_plain_rows_ch(const float4 *__restrict__ x, size_t rows, double *out)
{
    constexpr int RW = 2, NV = 8, CH = 16;
    const unsigned lane = threadIdx.x & 31;
    const size_t nc = rows / CH, nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    for (size_t c = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5; c < nc; c += nw) {
        double mine = 0;
#pragma unroll 1
        for (int bi = 0; bi < CH / RW; bi++) {
            float4 v[NV];
            load_two_rows(x, c * (CH / RW) + bi, lane, v);
            float acc[RW];
            sum_two_rows(v, acc);
            if (lane == 2u * bi) mine = acc[0];
            if (lane == 2u * bi + 1) mine = acc[1];
        }
        if (lane < CH) out[c * CH + lane] = mine;
    }
}

/* plain float sums of rows of 4 units, a warp per row: 4 loads in flight a lane, 256-thread blocks
 * 8 per SM (64 warps, the occupancy of the plain whole sum, which holds 4 loads a lane too), where
 * plain_rows runs 32 warps of 8 loads: the same bytes in flight, twice the warps to hide a merge */
__global__ void __launch_bounds__(256, 8) k_plain_rows_r1(const float4 *__restrict__ x, size_t rows, double *out)
{
    const unsigned lane = threadIdx.x & 31;
    const size_t nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    for (size_t r = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5; r < rows; r += nw) {
        const float4 *p = x + r * 128 + lane;
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] = __ldg(p + (size_t)u * 32);
        float a = 0.f;
#pragma unroll
        for (int u = 0; u < 4; u++) a += (v[u].x + v[u].y) + (v[u].z + v[u].w);
        for (int off = 16; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
        if (lane == 0) out[r] = a;
    }
}

/* plain_rows (4 units, 2 rows a warp, 8 loads) with one thing changed, to find where its row stores
 * cost (plain_rows_ns, without them, reads ~4 points faster): M = 0 the stores into a 1 MiB buffer
 * (row r into slot r % 2^17) that stays in L2, so nothing is written back to DRAM during the run;
 * M = 1 streaming stores (st.global.cs, evict-first); M = 2 streaming loads (ld.global.cs) so that
 * L2 evicts the matrix before the dirty output lines */
template <int M>
__global__ void __launch_bounds__(512, 2) k_plain_rows_x(const float4 *__restrict__ x, size_t rows, double *out)
{
    constexpr int RW = 2, NV = 8;
    const unsigned lane = threadIdx.x & 31;
    const size_t nb = rows / RW, nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    for (size_t b = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5; b < nb; b += nw) {
        float4 v[NV];
        load_two_rows<M == 2>(x, b, lane, v);
        float acc[RW];
        sum_two_rows(v, acc);
        const size_t r = b * RW + lane;
        if (lane < RW) {
            const double d = lane ? acc[1] : acc[0];
            if (M == 0) out[r & ((1u << 17) - 1)] = d;
            else if (M == 1) __stcs(out + r, d);
            else out[r] = d;
        }
    }
}

/* plain_rows (the same walk: warp w of the grid on batches w, w + nw, ...) with the row sums held
 * in shared memory and stored every S = 32 of the block's steps: a block's 32 rows a step are 256
 * contiguous bytes of out, the whole grid's 128 KiB, so the output goes out in bursts of 4 MiB (S
 * steps of the grid) between long runs of loads only; the last, partial step of the grid stores
 * directly. rows % 2 == 0. */
__global__ void __launch_bounds__(512, 2) k_plain_rows_sm(const float4 *__restrict__ x, size_t rows, double *out)
{
    constexpr int RW = 2, NV = 8, S = 32, WB = 16;   /* WB warps a block (512 threads) */
    __shared__ double st[S][WB * RW];
    const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const size_t nw = ((size_t)gridDim.x * blockDim.x) >> 5, steps = rows / RW / nw;
    for (size_t k0 = 0; k0 < steps; k0 += S) {
        const int ns = steps - k0 < (size_t)S ? (int)(steps - k0) : S;
        for (int k = 0; k < ns; k++) {
            const size_t b = (k0 + k) * nw + blockIdx.x * (size_t)WB + wib;
            float4 v[NV];
            load_two_rows(x, b, lane, v);
            float acc[RW];
            sum_two_rows(v, acc);
            if (lane < RW) st[k][wib * RW + lane] = lane ? acc[1] : acc[0];
        }
        __syncthreads();
        for (int i = threadIdx.x; i < ns * WB * RW; i += blockDim.x) {   /* step k's 32 rows: 256 B */
            const int k = i / (WB * RW), j = i % (WB * RW);
            out[((k0 + k) * nw + blockIdx.x * (size_t)WB) * RW + j] = st[k][j];
        }
        __syncthreads();
    }
    for (size_t b = steps * nw + blockIdx.x * (size_t)WB + wib; b < rows / RW; b += nw) {   /* the last, partial step */
        float4 v[NV];
        load_two_rows(x, b, lane, v);
        float acc[RW];
        sum_two_rows(v, acc);
        if (lane < RW) out[b * RW + lane] = lane ? acc[1] : acc[0];
    }
}

/* k_plain_rows<4> with the next batch's 8 loads issued before this batch's adds, shuffles and
 * store (software pipelining: a warp's loads no longer wait for its per-row merge). 64 registers
 * of data a lane, so 256-thread blocks, 3 per SM (85 registers). The last, partial batch (one
 * row) is summed without prefetch. */
__global__ void __launch_bounds__(256, 3) k_plain_rows_pf(const float4 *__restrict__ x, size_t rows, double *out)
{
    constexpr int RW = 2, NV = 8;   /* 2 rows of 4 units */
    const unsigned lane = threadIdx.x & 31;
    const size_t nfull = rows / RW, nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    size_t b = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
    float4 v[NV];
    if (b < nfull) load_two_rows(x, b, lane, v);
    for (; b < nfull; b += nw) {
        const size_t bn = b + nw;
        float4 w[NV];
        if (bn < nfull) load_two_rows(x, bn, lane, w);
        float acc[RW];
        sum_two_rows(v, acc);
        if (lane < RW) out[b * RW + lane] = lane ? acc[1] : acc[0];
#pragma unroll
        for (int u = 0; u < NV; u++) v[u] = w[u];
    }
    if (rows % RW && ((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5) == 0) {   /* the last row */
        const size_t r = rows - 1;
        float a = 0.f;
        for (int u = 0; u < 4; u++) {
            const float4 t = __ldg(x + r * 128 + lane + (size_t)u * 32);
            a += (t.x + t.y) + (t.z + t.w);
        }
        for (int off = 16; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
        if (lane == 0) out[r] = a;
    }
}

/* sum |x| of each row in double, a warp per row: the probes' error bound */
__global__ void k_abs_rows(const float *__restrict__ x, size_t rows, size_t cols, double *out)
{
    const unsigned lane = threadIdx.x & 31;
    const size_t nw = ((size_t)gridDim.x * blockDim.x) >> 5;
    for (size_t r = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5; r < rows; r += nw) {
        double a = 0;
        for (size_t j = lane; j < cols; j += 32) a += fabs((double)x[r * cols + j]);
        for (int off = 16; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
        if (lane == 0) out[r] = a;
    }
}

struct RowOffset {
    long long cols;
    __host__ __device__ long long operator()(long long i) const { return i * cols; }
};

struct Ctx {
    gp_cuda_reduce *cu = nullptr;
    cudaStream_t s = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float *x = nullptr, *dst = nullptr, *fout = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0, n = 0, bytes = 0;
    int reps = 20, sms = 0;
    long long spin = 0;
    FILE *json = nullptr;
    char err[512] = "";
};

double seconds()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

void die(Ctx &c, const char *what)
{
    fprintf(stderr, "bench_reduce_gpu: %s: %s\n", what, c.err);
    exit(2);
}

/* median milliseconds of fn() over c.reps, after 2 warm-ups; an op slower than 100 ms (only the
 * first version's kernels on degenerate shapes) gets fewer repetitions (*reps says how many) */
template <typename F> double time_ms(Ctx &c, F fn, int *reps_used = nullptr)
{
    fn();
    CK(cudaEventRecord(c.e0, c.s));
    fn();
    CK(cudaEventRecord(c.e1, c.s));
    CK(cudaEventSynchronize(c.e1));
    CK(cudaGetLastError());
    float first = 0;
    CK(cudaEventElapsedTime(&first, c.e0, c.e1));
    int reps = c.reps;
    if (first > 100 && reps > 3) reps = std::max(3, (int)(1000 / first));
    if (reps_used) *reps_used = reps;
    std::vector<float> t;
    for (int r = 0; r < reps; r++) {
        gp_cuda_reduce_spin(c.cu, c.spin);
        CK(cudaEventRecord(c.e0, c.s));
        fn();
        CK(cudaEventRecord(c.e1, c.s));
        CK(cudaEventSynchronize(c.e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct Row {
    std::string op, shape, note;
    double gbps, rw_gbps, ms, vs_cub, vs_copy;
};
std::vector<Row> g_rows;

void record(Ctx &c, const char *op, size_t R, size_t C, double ms, double written, double cub, double copy,
            const char *note)
{
    Row r;
    char sh[64];
    snprintf(sh, sizeof sh, "%zux%zu", R, C);
    r.op = op;
    r.shape = sh;
    r.note = note ? note : "";
    r.ms = ms;
    r.gbps = c.bytes / ms / 1e6;          /* bytes of the matrix read */
    r.rw_gbps = (c.bytes + written) / ms / 1e6;
    if (!strcmp(op, "copy")) r.gbps = r.rw_gbps;   /* the copy counts read + write */
    r.vs_cub = cub > 0 ? r.gbps / cub : 0.0;
    r.vs_copy = copy > 0 ? r.gbps / copy : 0.0;
    printf("%-18s %-13s %9.1f %9.1f %7.3f %7.3f %9.4f  %s\n", op, sh, r.gbps, r.rw_gbps, r.vs_cub, r.vs_copy, ms,
           r.note.c_str());
    fflush(stdout);
    if (c.json)
        fprintf(c.json, "{\"bench\":\"reduce_gpu\",\"op\":\"%s\",\"shape\":[%zu,%zu],\"gbps\":%.2f,\"rw_gbps\":%.2f,"
                "\"ms\":%.5f,\"vs_cub_sum\":%.4f,\"vs_copy\":%.4f,\"note\":\"%s\"}\n",
                op, R, C, r.gbps, r.rw_gbps, ms, r.vs_cub, r.vs_copy, r.note.c_str());
    g_rows.push_back(r);
}

/* ---- gpipe ops: the device part of what `gpipe reduce --device cuda` does per panel ---- */
enum Op { SUM_ALL, SUM_ROWS, SUM_COLS, MIN_ALL, MAX_ALL, MAX_ROWS, MAX_COLS, ARG_ALL, ARG_ROWS, ARG_COLS, NOPS };
const char *op_name[NOPS] = {"sum_all", "sum_rows", "sum_cols", "min_all", "max_all", "max_rows", "max_cols",
                             "argmax_all", "argmax_rows", "argmax_cols"};
gp_rkind op_kind(int o)
{
    return o <= SUM_COLS ? GP_RK_SUM : o == MIN_ALL ? GP_RK_MIN : o <= MAX_COLS ? GP_RK_MAX : GP_RK_ARGMAX;
}
gp_raxis op_axis(int o)
{
    switch (o) {
    case SUM_ROWS: case MAX_ROWS: case ARG_ROWS: return GP_AXIS_ROWS;
    case SUM_COLS: case MAX_COLS: case ARG_COLS: return GP_AXIS_COLS;
    default: return GP_AXIS_ALL;
    }
}
double op_written(int o, size_t R, size_t C)
{
    gp_raxis a = op_axis(o);
    if (a == GP_AXIS_ALL) return 0;
    if (a == GP_AXIS_ROWS) return 8.0 * R;
    return (o == ARG_COLS ? 16.0 : 8.0) * C;   /* SUM_COLS: hi, and 12 B more per nonzero lo (not counted) */
}
std::vector<std::string> split(const char *s, char sep)
{
    std::vector<std::string> v;
    if (!s) return v;
    std::string cur;
    for (const char *p = s;; p++) {
        if (*p == sep || !*p) {
            if (!cur.empty()) v.push_back(cur);
            cur.clear();
            if (!*p) break;
        } else {
            cur += *p;
        }
    }
    return v;
}
/* --ops: a comma-separated list of op names (NULL: every op) */
bool op_on(const char *ops, int o)
{
    if (!ops) return true;
    for (const std::string &w : split(ops, ','))
        if (w == op_name[o]) return true;
    return false;
}
void run_op(Ctx &c, int o, const float *x, size_t R, size_t C)
{
    gp_rkind k = op_kind(o);
    gp_raxis a = op_axis(o);
    int rc;
    if (k == GP_RK_SUM) rc = gp_cuda_rsum_dev(c.cu, x, R, C, GP_RT_F32, k, a, gp_rfmt(GP_RT_F32, k), c.err, sizeof c.err);
    else if (k == GP_RK_ARGMAX) rc = gp_cuda_rarg_dev(c.cu, x, R, C, GP_RT_F32, k, a, c.err, sizeof c.err);
    else rc = gp_cuda_rext_dev(c.cu, x, R, C, GP_RT_F32, k, a, c.err, sizeof c.err);
    if (rc) die(c, op_name[o]);
}

/* results in the host form the driver uses */
struct Res {
    std::vector<int64_t> acc;
    std::vector<double> rowval;
    std::vector<uint64_t> key, idx;
    std::vector<int64_t> nan;
};
void init_res(Res &r, int o, size_t R, size_t C)
{
    gp_rkind k = op_kind(o);
    gp_raxis a = op_axis(o);
    size_t nt = a == GP_AXIS_ALL ? 1 : a == GP_AXIS_ROWS ? R : C;
    size_t w = gp_rwords(gp_rfmt(GP_RT_F32, GP_RK_SUM));
    if (k == GP_RK_SUM) { r.acc.assign(a == GP_AXIS_ROWS ? 1 : nt * w, 0); r.rowval.assign(nt, 0); }
    r.key.assign(nt, gp_rext_identity(k));
    r.idx.assign(nt, GP_RARG_NONE);
    r.nan.assign(nt, 0);
}
/* fetch what run_op left on the device */
void fetch(Ctx &c, int o, const float *x, size_t R, size_t C, Res &r)
{
    gp_rkind k = op_kind(o);
    gp_raxis a = op_axis(o);
    init_res(r, o, R, C);
    int rc;
    if (k == GP_RK_SUM)
        rc = gp_cuda_rsum_fetch(c.cu, x, R, C, GP_RT_F32, k, a, gp_rfmt(GP_RT_F32, k), r.acc.data(),
                                a == GP_AXIS_ROWS ? r.rowval.data() : NULL, c.err, sizeof c.err);
    else if (k == GP_RK_ARGMAX)
        rc = gp_cuda_rarg_fetch(c.cu, R, C, 0, GP_RT_F32, k, a, r.key.data(), r.idx.data(), c.err, sizeof c.err);
    else
        rc = gp_cuda_rext_fetch(c.cu, R, C, GP_RT_F32, k, a, r.key.data(), r.nan.data(), c.err, sizeof c.err);
    if (rc) die(c, op_name[o]);
}

/* CPU reference: threads over row panels, merged exactly like ranks (limbs added, keys folded,
 * (key, index) pairs by the total order) */
void cpu_ref(int o, const float *hx, size_t R, size_t C, Res &r)
{
    gp_rkind k = op_kind(o);
    gp_raxis a = op_axis(o);
    gp_xfmt f = gp_rfmt(GP_RT_F32, GP_RK_SUM);
    size_t w = gp_rwords(f);
    init_res(r, o, R, C);
    unsigned nth = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    if (nth > R) nth = (unsigned)R;
    std::vector<Res> part(nth);
    std::vector<std::thread> th;
    for (unsigned t = 0; t < nth; t++) {
        th.emplace_back([&, t] {
            size_t r0 = R * t / nth, r1 = R * (t + 1) / nth;
            Res &p = part[t];
            init_res(p, o, a == GP_AXIS_ROWS ? r1 - r0 : R, C);
            const float *px = hx + r0 * C;
            if (k == GP_RK_SUM) {
                if (a == GP_AXIS_ROWS) {
                    std::vector<int64_t> acc(w);
                    for (size_t i = 0; i < r1 - r0; i++) {
                        std::fill(acc.begin(), acc.end(), 0);
                        gp_cpu_rsum(px + i * C, 1, C, GP_RT_F32, k, GP_AXIS_ALL, f, acc.data());
                        r.rowval[r0 + i] = gp_xvalue(acc.data(), f);
                    }
                } else {
                    gp_cpu_rsum(px, r1 - r0, C, GP_RT_F32, k, a, f, p.acc.data());
                }
            } else if (k == GP_RK_ARGMAX) {
                if (a == GP_AXIS_ROWS) {
                    gp_cpu_rarg(px, r1 - r0, C, r0, GP_RT_F32, k, a, r.key.data() + r0, r.idx.data() + r0);
                } else {
                    gp_cpu_rarg(px, r1 - r0, C, r0, GP_RT_F32, k, a, p.key.data(), p.idx.data());
                }
            } else {
                if (a == GP_AXIS_ROWS) gp_cpu_rext(px, r1 - r0, C, GP_RT_F32, k, a, r.key.data() + r0, r.nan.data() + r0);
                else gp_cpu_rext(px, r1 - r0, C, GP_RT_F32, k, a, p.key.data(), p.nan.data());
            }
        });
    }
    for (auto &t : th) t.join();
    if (a == GP_AXIS_ROWS) return;
    size_t nt = a == GP_AXIS_ALL ? 1 : C;
    for (unsigned t = 0; t < nth; t++) {
        Res &p = part[t];
        for (size_t i = 0; i < nt; i++) {
            if (k == GP_RK_SUM) {
                for (size_t j = 0; j < w; j++) r.acc[i * w + j] += p.acc[i * w + j];
            } else if (k == GP_RK_ARGMAX) {
                if (gp_rarg_better(0, p.key[i], p.idx[i], r.key[i], r.idx[i])) { r.key[i] = p.key[i]; r.idx[i] = p.idx[i]; }
            } else {
                r.nan[i] += p.nan[i];
                r.key[i] = k == GP_RK_MIN ? std::min(r.key[i], p.key[i]) : std::max(r.key[i], p.key[i]);
            }
        }
    }
    if (k == GP_RK_SUM)
        for (size_t i = 0; i < nt; i++) gp_xnorm(r.acc.data() + i * w, f.nl);
}

/* 0 when equal (the driver's view: sums bit for bit, extrema by key or both NaN, indices) */
int same(int o, size_t R, size_t C, const Res &g, const Res &c, char *why, size_t whylen)
{
    gp_rkind k = op_kind(o);
    gp_raxis a = op_axis(o);
    size_t nt = a == GP_AXIS_ALL ? 1 : a == GP_AXIS_ROWS ? R : C;
    size_t w = gp_rwords(gp_rfmt(GP_RT_F32, GP_RK_SUM));
    for (size_t i = 0; i < nt; i++) {
        if (k == GP_RK_SUM && a == GP_AXIS_ROWS) {
            if (gp_dbits(g.rowval[i]) != gp_dbits(c.rowval[i])) {
                snprintf(why, whylen, "row %zu: gpu %a cpu %a", i, g.rowval[i], c.rowval[i]);
                return 1;
            }
        } else if (k == GP_RK_SUM) {
            if (memcmp(g.acc.data() + i * w, c.acc.data() + i * w, w * 8)) {
                gp_xfmt f = gp_rfmt(GP_RT_F32, GP_RK_SUM);
                snprintf(why, whylen, "target %zu: gpu %a cpu %a", i, gp_xvalue(g.acc.data() + i * w, f),
                         gp_xvalue(c.acc.data() + i * w, f));
                return 1;
            }
        } else if (k == GP_RK_ARGMAX) {
            if (g.idx[i] != c.idx[i]) {
                snprintf(why, whylen, "target %zu: gpu index %llu cpu %llu", i, (unsigned long long)g.idx[i],
                         (unsigned long long)c.idx[i]);
                return 1;
            }
        } else if ((g.nan[i] > 0) != (c.nan[i] > 0) || (!c.nan[i] && g.key[i] != c.key[i])) {
            snprintf(why, whylen, "target %zu: gpu key %016llx cpu %016llx", i, (unsigned long long)g.key[i],
                     (unsigned long long)c.key[i]);
            return 1;
        }
    }
    return 0;
}

} // namespace

#ifdef GP_TSTAMP
extern "C" void gp_cuda_reduce_tstamp(unsigned long long *host);
/* GP_TSTAMP builds (diagnostic, bench/NOTES.md thirty-fifth session): where a whole-sum launch
 * spends its time, from the blocks' %globaltimer stamps, against the events around it. Its launches
 * take fin=1 on top of the tuning: the stamps after the loads are on the last block's path, and
 * with fin=2 (the default since the thirty-eighth session) there is no last block; deftune after */
void tstamp_report(Ctx &c, size_t R, size_t C, const char *deftune)
{
    if (gp_cuda_reduce_tune(c.cu, "fin=1", c.err, sizeof c.err)) die(c, "tune");
    std::vector<unsigned long long> ts(5 << 14);
    const size_t S = 1u << 14;
    for (int rep = 0; rep < 3; rep++) {
        gp_cuda_reduce_spin(c.cu, c.spin);
        CK(cudaEventRecord(c.e0, c.s));
        run_op(c, SUM_ALL, c.x, R, C);
        CK(cudaEventRecord(c.e1, c.s));
        CK(cudaEventSynchronize(c.e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
        gp_cuda_reduce_tstamp(ts.data());
        std::vector<double> st, le, fe, du, at, ct;
        unsigned long long t0 = ~0ull;
        size_t n = 0;
        while (n < S && ts[n]) t0 = std::min(t0, ts[n++]);
        auto us = [&](int k, size_t b) { return (ts[k * S + b] - t0) * 1e-3; };
        for (size_t b = 0; b < n; b++) {
            st.push_back(us(0, b));
            le.push_back(us(1, b));
            fe.push_back(us(2, b));
            du.push_back(fe.back() - le.back());
            at.push_back(us(4, b) - le.back());     /* warp merge, flush, limb atomics (fr=0: and the fence) */
            ct.push_back(us(2, b) - us(4, b));      /* the block count */
        }
        for (auto *v : {&st, &le, &fe, &du, &at, &ct}) std::sort(v->begin(), v->end());
        const size_t L = ts[3 * S + 1] ? (size_t)ts[3 * S + 1] - 1 : 0;   /* the last block */
        printf("tstamp %zux%zu: %zu blocks, event %.1f us; starts 0..%.1f (median %.1f); loads end %.1f / %.1f / %.1f "
               "/ %.1f (min / median / 90%% / max); counted (flush, fence, count) median %.1f max %.1f, per block median %.1f max %.1f; finish %.1f us\n",
               R, C, n, ms * 1e3, st[n - 1], st[n / 2], le[0], le[n / 2], le[n * 9 / 10], le[n - 1], fe[n / 2], fe[n - 1], du[n / 2], du[n - 1],
               us(3, 0));
        printf("tstamp-end %zux%zu: per block median / max: merge and atomics %.2f / %.2f, count %.2f / %.2f us; "
               "last block %zu: loads end %.2f, atomics %.2f, counted %.2f, finish %.2f us\n",
               R, C, at[n / 2], at[n - 1], ct[n / 2], ct[n - 1], L, us(1, L), us(4, L), us(2, L), us(3, 0));
    }
    if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
}
#endif

int main(int argc, char **argv)
{
    Ctx c;
    const double t_start = seconds();
    const char *json = NULL, *data = "uniform";
    int tune = 0, verify = 1, quick = 0, only = -1, probes = 0, log2n = 0;
    size_t xcols = 0;   /* --cols C: the matrix as (n / C) x C, alone */
    const char *ops = NULL, *variants = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) c.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--tune")) tune = 1;
        else if (!strcmp(argv[i], "--no-verify")) verify = 0;
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--probes")) probes = 1;
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc) only = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cols") && i + 1 < argc) xcols = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc) ops = argv[++i];
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc) variants = argv[++i];
        else {
            fprintf(stderr, "usage: bench_reduce_gpu [--reps N] [--json FILE] [--tune] [--data uniform|wide] "
                    "[--no-verify] [--quick | --log2n 22..32] [--probes] [--shape 0..4 | --cols C] [--ops sum_all,sum_rows,...] "
                    "[--variants 'SPEC;SPEC']\n");
            return 2;
        }
    }
    if (c.reps < 1) c.reps = 1;
    if (json && !(c.json = fopen(json, "a"))) { perror(json); return 2; }
    int wide = !strcmp(data, "wide");
    if (gp_cuda_reduce_create(&c.cu, 0, c.err, sizeof c.err)) die(c, "gp_cuda_reduce_create");
    c.s = (cudaStream_t)gp_cuda_reduce_stream(c.cu);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    c.sms = prop.multiProcessorCount;
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    c.spin = (long long)(khz > 0 ? khz : 2000000) * 1000 / 5000;   /* 200 us of SM clocks */
    const char *base_tune = gp_cuda_reduce_tuning(c.cu);
    char deftune[160];
    snprintf(deftune, sizeof deftune, "%s", base_tune);
    if (!log2n) log2n = quick ? 27 : 29;   /* 2 GiB of f32 (--quick: 512 MiB) */
    if (log2n < 22 || log2n > 32) {
        fprintf(stderr, "bench_reduce_gpu: --log2n %d: want 22..32 (2^L floats)\n", log2n);
        return 2;
    }
    c.n = (size_t)1 << log2n;
    c.bytes = c.n * sizeof(float);
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    CK(cudaMalloc(&c.x, c.bytes));
    CK(cudaMalloc(&c.dst, c.bytes));
    CK(cudaMalloc(&c.fout, (c.n / 4 + 16) * sizeof(float)));
    k_fill<<<c.sms * 16, 256, 0, c.s>>>(c.x, c.n, wide);
    CK(cudaStreamSynchronize(c.s));
    CK(cudaGetLastError());
    printf("device: %s, %d SMs; %s; data %s; %zu MiB f32; median of %d; kernels %s\n", prop.name, c.sms,
           gp_cuda_reduce_desc(c.cu), data, c.bytes >> 20, c.reps, deftune);
    if (c.json)
        fprintf(c.json, "{\"bench\":\"reduce_gpu\",\"device\":\"%s\",\"data\":\"%s\",\"mib\":%zu,\"reps\":%d,\"tuning\":\"%s\"}\n",
                prop.name, data, c.bytes >> 20, c.reps, deftune);

    const int sh = log2n - 2;   /* log2 of the element count / 4 */
    struct Shape { size_t r, c, vr, vc; } shapes[6] = {
        {(size_t)1 << (sh - 13), (size_t)1 << 15, 0, 0},
        {512, (size_t)1 << (sh - 7), 16, (size_t)1 << 20},
        {(size_t)1 << (sh - 7), 512, (size_t)1 << 15, 512},
        {(size_t)1 << sh, 4, (size_t)1 << 22, 4},
        {4, (size_t)1 << sh, 4, (size_t)1 << 22},
    };
    size_t nshapes = 5;
    if (xcols) {   /* a sixth shape, run alone; verified on a 2^24-element matrix of its width */
        if (xcols & (xcols - 1) || xcols > c.n) {
            fprintf(stderr, "bench_reduce_gpu: --cols %zu: want a power of two <= %zu\n", xcols, c.n);
            return 2;
        }
        const size_t vc = std::min(xcols, (size_t)1 << 24);
        shapes[5] = Shape{c.n / xcols, xcols, ((size_t)1 << 24) / vc, vc};
        nshapes = 6;
        only = 5;
    }
    /* CUB temporary storage for the largest use */
    size_t tb = 0, t2 = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tb, c.x, c.fout, (long long)c.n, c.s));
    for (size_t si = 0; si < nshapes; si++) {
        const Shape &s = shapes[si];
        auto off = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), RowOffset{(long long)s.c});
        CK(cub::DeviceSegmentedReduce::Sum(nullptr, t2, c.x, c.fout, (long long)s.r, off, off + 1, c.s));
        tb = std::max(tb, t2);
    }
    c.tmp_bytes = tb;
    CK(cudaMalloc(&c.tmp, c.tmp_bytes ? c.tmp_bytes : 16));

    printf("\n%-18s %-13s %9s %9s %7s %7s %9s  %s\n", "op", "shape", "GB/s", "r+w GB/s", "x CUB", "x copy", "ms", "note");
    int bad = 0;
    std::vector<int64_t> sum0;   /* the whole sum, the same for every shape */
    double best_tune[6][3] = {{0}};
    char best_cfg[6][3][96] = {{{0}}};
    for (size_t si = 0; si < nshapes; si++) {
        const size_t R = shapes[si].r, C = shapes[si].c;
        if (only >= 0 && (int)si != only) continue;
        if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
        double copy = time_ms(c, [&] { CK(cudaMemcpyAsync(c.dst, c.x, c.bytes, cudaMemcpyDeviceToDevice, c.s)); });
        double copy_gbps = 2.0 * c.bytes / copy / 1e6;
        record(c, "copy", R, C, copy, c.bytes, 0, copy_gbps, "read + write");
        double cub = time_ms(c, [&] { CK(cub::DeviceReduce::Sum(c.tmp, c.tmp_bytes, c.x, c.fout, (long long)c.n, c.s)); });
        double cub_gbps = c.bytes / cub / 1e6;
        record(c, "cub_sum", R, C, cub, 4, cub_gbps, copy_gbps, "reference R");
        double plain = time_ms(c, [&] {
            CK(cudaMemsetAsync(c.fout, 0, 4, c.s));
            k_plain_sum<4><<<c.sms * 8, 256, 0, c.s>>>(reinterpret_cast<const float4 *>(c.x), c.n / 4, c.fout);
        });
        record(c, "plain_sum", R, C, plain, 4, cub_gbps, copy_gbps, "float, not reproducible");
        if (probes && (si == 0 || only >= 0)) {   /* the plain sum's load order and shape (the same bytes on every shape) */
            const float4 *xv = reinterpret_cast<const float4 *>(c.x);
            double wc4 = time_ms(c, [&] {
                CK(cudaMemsetAsync(c.fout, 0, 4, c.s));
                k_plain_sum<4, true><<<c.sms * 8, 256, 0, c.s>>>(xv, c.n / 4, c.fout);
            });
            record(c, "plain_sum_wc", R, C, wc4, 4, cub_gbps, copy_gbps, "plain_sum, a warp's 4 loads contiguous");
            double b8 = time_ms(c, [&] {
                CK(cudaMemsetAsync(c.fout, 0, 4, c.s));
                k_plain_sum<8><<<c.sms * 4, 256, 0, c.s>>>(xv, c.n / 4, c.fout);
            });
            record(c, "plain_sum_8", R, C, b8, 4, cub_gbps, copy_gbps, "8 loads, 256 x 4 an SM");
            double wc8 = time_ms(c, [&] {
                CK(cudaMemsetAsync(c.fout, 0, 4, c.s));
                k_plain_sum<8, true><<<c.sms * 4, 256, 0, c.s>>>(xv, c.n / 4, c.fout);
            });
            record(c, "plain_sum_8wc", R, C, wc8, 4, cub_gbps, copy_gbps, "8 loads, 256 x 4, contiguous");
        }
        auto off = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), RowOffset{(long long)C});
        double seg = time_ms(c, [&] {
            CK(cub::DeviceSegmentedReduce::Sum(c.tmp, c.tmp_bytes, c.x, c.fout, (long long)R, off, off + 1, c.s));
        });
        record(c, "cub_rows", R, C, seg, 4.0 * R, cub_gbps, copy_gbps, "DeviceSegmentedReduce");
        double sum_all_ms = 0;
        Res defres[NOPS];
        bool have[NOPS] = {false};
        for (int o = 0; o < NOPS; o++) {
            if (!op_on(ops, o)) continue;
            double ms = time_ms(c, [&] { run_op(c, o, c.x, R, C); });
            Res g;
            char note[128] = "";
            size_t nt = op_axis(o) == GP_AXIS_ALL ? 1 : op_axis(o) == GP_AXIS_ROWS ? R : C;
            if (nt <= ((size_t)1 << 22) || o == SUM_ROWS) {   /* host copy small enough */
                fetch(c, o, c.x, R, C, g);
                snprintf(note, sizeof note, "exact fallback for %zu targets", gp_cuda_reduce_fallbacks(c.cu));
            }
            record(c, op_name[o], R, C, ms, op_written(o, R, C), cub_gbps, copy_gbps, note);
            if (o == SUM_ALL) {
#ifdef GP_TSTAMP
                tstamp_report(c, R, C, deftune);
#endif
                sum_all_ms = ms;
                if (sum0.empty()) sum0 = g.acc;
                else if (g.acc != sum0) {
                    printf("VERIFY FAIL sum_all %zux%zu: the whole sum differs from the first shape's\n", R, C);
                    bad = 1;
                }
            }
            have[o] = note[0] != 0;
            if (have[o]) defres[o] = std::move(g);
        }
        /* the plain float row sum of short rows as k_sum_rows_w reads them: the rows' ceiling
         * without exactness (K = 4 units as one batch of 8 loads, or K % 8 == 0; enough rows for
         * every warp) */
        const unsigned K = (unsigned)(C / 128);
        if (C % 128 == 0 && R >= 8192 && (K == 4 || K % 8 == 0)) {
            double *prow = nullptr;
            CK(cudaMalloc(&prow, R * sizeof(double)));
            const float4 *xv = reinterpret_cast<const float4 *>(c.x);
            std::vector<double> habs(R);   /* sum |x| per row (finite data) */
            k_abs_rows<<<c.sms * 8, 256, 0, c.s>>>(c.x, R, C, prow);
            CK(cudaStreamSynchronize(c.s));
            CK(cudaMemcpy(habs.data(), prow, R * sizeof(double), cudaMemcpyDeviceToHost));
            /* times one probe writing nout doubles into prow (poisoned first: an unwritten slot shows
             * as NaN) and, where the exact row sums were fetched, checks them: err(h) is the error
             * against the float bound (<= 1: float rounding only; NaN counts as a failure) */
            auto probe = [&](const char *name, const char *what, size_t nout, auto launch, auto err) {
                CK(cudaMemset(prow, 0xff, R * sizeof(double)));
                double ms = time_ms(c, launch);
                char note[128];
                snprintf(note, sizeof note, "%s", what);
                if (have[SUM_ROWS]) {
                    std::vector<double> h(nout);
                    CK(cudaMemcpy(h.data(), prow, nout * sizeof(double), cudaMemcpyDeviceToHost));
                    const double e = err(h);
                    if (!(e <= 1)) {
                        printf("VERIFY FAIL %s %zux%zu: off the exact row sums by %g of the float bound\n", name, R, C, e);
                        bad = 1;
                    }
                    snprintf(note, sizeof note, "%s; error <= %.2g of the bound", what, e);
                }
                record(c, name, R, C, ms, 8.0 * nout, cub_gbps, copy_gbps, note);
            };
            /* each row against C 2^-24 sum |x|, the bound of a float sum in any order */
            auto per_row = [&](const std::vector<double> &h) {
                double worst = 0;
                for (size_t r = 0; r < R; r++) {
                    const double e = fabs(h[r] - defres[SUM_ROWS].rowval[r]) / (C * 0x1p-24 * habs[r] + 0x1p-1000);
                    worst = e == e ? std::max(worst, e) : INFINITY;
                }
                return worst;
            };
            probe("plain_rows", "float, not reproducible, k_sum_rows_w's loads", R, [&] {
                if (K == 4) k_plain_rows<4><<<c.sms * 2, 512, 0, c.s>>>(xv, R, K, prow);
                else k_plain_rows<0><<<c.sms * 2, 512, 0, c.s>>>(xv, R, K, prow);
            }, per_row);
            if (K == 4 && probes) {
                probe("plain_rows_pf", "the same, next batch's loads before the merge", R,
                      [&] { k_plain_rows_pf<<<c.sms * 3, 256, 0, c.s>>>(xv, R, prow); }, per_row);
                /* one double per warp (the grid's warps <= 8192 rows): their total against the
                 * exact rows' total, with the doubles' own rounding added to the bound */
                probe("plain_rows_r1", "a warp a row, 4 loads, 64 warps an SM", R,
                      [&] { k_plain_rows_r1<<<c.sms * 8, 256, 0, c.s>>>(xv, R, prow); }, per_row);
                if (R % 16 == 0)
                    probe("plain_rows_ch", "16 rows a warp, their sums in one 128-byte store", R,
                          [&] { k_plain_rows_ch<<<c.sms * 2, 512, 0, c.s>>>(xv, R, prow); }, per_row);
                if (R % 2 == 0) {
                    probe("plain_rows_st_cs", "plain_rows, streaming stores (st.global.cs)", R,
                          [&] { k_plain_rows_x<1><<<c.sms * 2, 512, 0, c.s>>>(xv, R, prow); }, per_row);
                    probe("plain_rows_ld_cs", "plain_rows, streaming loads (ld.global.cs)", R,
                          [&] { k_plain_rows_x<2><<<c.sms * 2, 512, 0, c.s>>>(xv, R, prow); }, per_row);
                }
                if (R % 2 == 0 && R >= (1u << 17))   /* slot s: the exact sum of one of the rows s + i 2^17 */
                    probe("plain_rows_l2", "plain_rows, row r into slot r % 2^17 (1 MiB kept in L2; timing)", 1u << 17,
                          [&] { k_plain_rows_x<0><<<c.sms * 2, 512, 0, c.s>>>(xv, R, prow); }, [&](const std::vector<double> &h) {
                              double worst = 0;
                              for (size_t sl = 0; sl < h.size(); sl++) {
                                  double best = INFINITY;
                                  for (size_t r = sl; r < R; r += h.size())
                                      best = std::min(best, fabs(h[sl] - defres[SUM_ROWS].rowval[r]) /
                                                                (C * 0x1p-24 * habs[r] + 0x1p-1000));
                                  worst = best == best ? std::max(worst, best) : INFINITY;
                              }
                              return worst;
                          });
                if (R % 2 == 0)
                    probe("plain_rows_sm", "plain_rows, row sums out every 32 steps from shared memory", R,
                          [&] { k_plain_rows_sm<<<c.sms * 2, 512, 0, c.s>>>(xv, R, prow); }, per_row);
                const unsigned g = c.sms * 2, nw = g * 512 / 32;
                if (nw <= R)
                    probe("plain_rows_ns", "plain_rows without the row stores (timing; checked as a total)", nw,
                          [&] { k_plain_rows_ns<<<g, 512, 0, c.s>>>(xv, R, prow); }, [&](const std::vector<double> &h) {
                              double got = 0, want = 0, abs = 0;
                              for (unsigned i = 0; i < nw; i++) got += h[i];
                              for (size_t r = 0; r < R; r++) { want += defres[SUM_ROWS].rowval[r]; abs += habs[r]; }
                              const double e = fabs(got - want) / (C * 0x1p-24 * abs + R * 0x1p-52 * abs + 0x1p-1000);
                              return e == e ? e : INFINITY;
                          });
            }
            CK(cudaFree(prow));
        }
        if (sum_all_ms > 0)
            printf("%-18s %-13s exact whole sum / plain float sum: time x%.3f (%.0f vs %.0f GB/s)\n", "cost", "",
               sum_all_ms / plain, c.bytes / sum_all_ms / 1e6, c.bytes / plain / 1e6);
        /* --variants: each tuning spec on top of the default, in the same run: the sums, or with
         * --ops every op named there */
        for (const std::string &v : split(variants, ';')) {
            if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err) ||
                gp_cuda_reduce_tune(c.cu, v.c_str(), c.err, sizeof c.err)) die(c, "tune");
            for (int o = 0; o < NOPS; o++) {
                if (ops ? !op_on(ops, o) : o > SUM_COLS) continue;
                double ms = time_ms(c, [&] { run_op(c, o, c.x, R, C); });
                char name[96], why[256] = "not compared";
                snprintf(name, sizeof name, "%s_%s", op_name[o], v.c_str());
                if (have[o]) {
                    Res g;
                    fetch(c, o, c.x, R, C, g);
                    if (same(o, R, C, g, defres[o], why, sizeof why)) {
                        printf("VERIFY FAIL %s %zux%zu: %s\n", name, R, C, why);
                        bad = 1;
                    } else {
                        snprintf(why, sizeof why, "variant, equal to the default");
                    }
                }
                record(c, name, R, C, ms, op_written(o, R, C), cub_gbps, copy_gbps, why);
            }
        }
        if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
        /* the first version of the kernels, for comparison (not with --ops) */
        if (gp_cuda_reduce_tune(c.cu, "kernels=legacy", c.err, sizeof c.err)) die(c, "tune");
        for (int o : {SUM_ALL, SUM_ROWS, SUM_COLS, MAX_ALL}) {
            if (ops) break;
            int reps = c.reps;
            double ms = time_ms(c, [&] { run_op(c, o, c.x, R, C); }, &reps);
            char name[64], note[128];
            snprintf(name, sizeof name, "legacy_%s", op_name[o]);
            snprintf(note, sizeof note, "first version (limbs per target)%s", reps < c.reps ? ", slow: fewer reps" : "");
            double wr = o == SUM_ROWS ? 14.0 * 8 * R : o == SUM_COLS ? 14.0 * 8 * C : 0;
            record(c, name, R, C, ms, wr, cub_gbps, copy_gbps, note);
        }
        /* the fast kernels with the other ways of adding f32 (batch=0: one TwoSum per 4 elements,
         * the previous default; 1: one per step of U x 4; 2: steps in runs) */
        for (const char *bt : {"batch=0", "batch=1", "batch=2"}) {
            if (strstr(deftune, bt) || ops) continue;
            if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err) ||
                gp_cuda_reduce_tune(c.cu, bt, c.err, sizeof c.err)) die(c, "tune");
            for (int o : {SUM_ALL, SUM_ROWS, SUM_COLS}) {
                double ms = time_ms(c, [&] { run_op(c, o, c.x, R, C); });
                char name[64];
                snprintf(name, sizeof name, "%s_%s", bt, op_name[o]);
                record(c, name, R, C, ms, op_written(o, R, C), cub_gbps, copy_gbps, "f32 adds (tuning batch)");
            }
        }
        if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
        if (tune && seconds() - t_start > 60) {
            printf("%-18s %-13s skipped: 60 s spent (the whole run must stay under 90 s)\n", "tune", "");
            tune = 0;
        }
        if (tune) {
            static const int bss[] = {128, 256, 512}, bpss[] = {4, 8, 16, 32}, uns[] = {2, 4, 8};
            for (int o = 0; o < 3; o++) {
                for (int b : bss)
                    for (int p : bpss)
                        for (int u : uns) {
                            char cfg[96];
                            snprintf(cfg, sizeof cfg, "kernels=fast,bs=%d,bps=%d,unroll=%d", b, p, u);
                            if (gp_cuda_reduce_tune(c.cu, cfg, c.err, sizeof c.err)) die(c, "tune");
                            double ms = time_ms(c, [&] { run_op(c, o, c.x, R, C); });
                            double gb = c.bytes / ms / 1e6;
                            if (c.json)
                                fprintf(c.json, "{\"bench\":\"reduce_gpu_tune\",\"op\":\"%s\",\"shape\":[%zu,%zu],"
                                        "\"config\":\"%s\",\"gbps\":%.2f,\"vs_cub_sum\":%.4f}\n",
                                        op_name[o], R, C, cfg, gb, gb / cub_gbps);
                            if (gb > best_tune[si][o]) { best_tune[si][o] = gb; snprintf(best_cfg[si][o], 96, "%s", cfg); }
                        }
                printf("%-18s %-13s best %s: %.1f GB/s (x%.3f CUB)\n", op_name[o], "tune", best_cfg[si][o],
                       best_tune[si][o], best_tune[si][o] / cub_gbps);
                fflush(stdout);
            }
            /* lanes per row of the row sums: fewest steps per lane (rsteps) at the default config */
            for (int rs : {1, 2, 4, 8, 16}) {
                char cfg[96];
                snprintf(cfg, sizeof cfg, "rsteps=%d", rs);
                if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err) ||
                    gp_cuda_reduce_tune(c.cu, cfg, c.err, sizeof c.err)) die(c, "tune");
                double ms = time_ms(c, [&] { run_op(c, SUM_ROWS, c.x, R, C); });
                printf("%-18s %-13s %s: %.1f GB/s (x%.3f CUB)\n", "sum_rows", "rsteps", cfg, c.bytes / ms / 1e6,
                       c.bytes / ms / 1e6 / cub_gbps);
            }
            if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
        }
    }

    /* ---- gpipe stats --device cuda: its device part on the whole matrix (no shape matters), against
     * the CPU's gp_cpu_rstats on host threads over row panels (merged like ranks), bit for bit ---- */
    if (!ops || strstr(ops, "stats")) {
        const size_t R = shapes[0].r, C = shapes[0].c;
        if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
        double copy = time_ms(c, [&] { CK(cudaMemcpyAsync(c.dst, c.x, c.bytes, cudaMemcpyDeviceToDevice, c.s)); });
        double cub = time_ms(c, [&] { CK(cub::DeviceReduce::Sum(c.tmp, c.tmp_bytes, c.x, c.fout, (long long)c.n, c.s)); });
        gp_rstats g;
        double ms = time_ms(c, [&] {
            gp_rstats_init(&g, GP_RT_F32);
            if (gp_cuda_rstats_dev(c.cu, c.x, R, C, 0, GP_RT_F32, &g, c.err, sizeof c.err)) die(c, "stats");
        });
        record(c, "stats", R, C, ms, 0, c.bytes / cub / 1e6, 2.0 * c.bytes / copy / 1e6,
               "gpipe stats (sums, squares, fingerprint + extrema; waits between)");
        /* its steps alone: the exact sum of squares, and the fingerprint + extrema kernel */
        ms = time_ms(c, [&] {
            if (gp_cuda_rsum_dev(c.cu, c.x, R, C, GP_RT_F32, GP_RK_SQ, GP_AXIS_ALL, gp_rfmt(GP_RT_F32, GP_RK_SQ), c.err,
                                 sizeof c.err)) die(c, "sumsq");
        });
        record(c, "stats_sumsq", R, C, ms, 0, c.bytes / cub / 1e6, 2.0 * c.bytes / copy / 1e6, "step: exact sum of squares");
        ms = time_ms(c, [&] {
            gp_rstats a;
            gp_rstats_init(&a, GP_RT_F32);
            if (gp_cuda_rstats_aux_dev(c.cu, c.x, R, C, 0, GP_RT_F32, &a, c.err, sizeof c.err)) die(c, "stats aux");
        });
        record(c, "stats_aux", R, C, ms, 0, c.bytes / cub / 1e6, 2.0 * c.bytes / copy / 1e6,
               "step: fingerprint, extrema, NaN/Inf counts");
        if (verify) {
            std::vector<float> hx(c.n);
            CK(cudaMemcpy(hx.data(), c.x, c.bytes, cudaMemcpyDeviceToHost));
            unsigned nth = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
            std::vector<gp_rstats> part(nth);
            std::vector<std::thread> th;
            double t0 = seconds();
            for (unsigned t = 0; t < nth; t++)
                th.emplace_back([&, t] {
                    size_t r0 = R * t / nth, r1 = R * (t + 1) / nth;
                    gp_rstats_init(&part[t], GP_RT_F32);
                    gp_cpu_rstats(hx.data() + r0 * C, r1 - r0, C, r0, GP_RT_F32, &part[t]);
                });
            for (auto &t : th) t.join();
            double cpu_s = seconds() - t0;
            gp_rstats r = part[0];
            for (unsigned t = 1; t < nth; t++) {   /* merged as gp_rstats_allreduce does over ranks */
                const gp_rstats &p = part[t];
                for (int i = 0; i < r.fs.nl; i++) r.s[i] += p.s[i];
                for (int i = 0; i < r.fq.nl; i++) r.q[i] += p.q[i];
                gp_xnorm(r.s, r.fs.nl);
                gp_xnorm(r.q, r.fq.nl);
                r.count += p.count; r.finite += p.finite; r.nan += p.nan; r.pinf += p.pinf; r.ninf += p.ninf;
                r.qover += p.qover; r.checksum += p.checksum;
                r.kmin = std::min(r.kmin, p.kmin);
                r.kmax = std::max(r.kmax, p.kmax);
            }
            int d = memcmp(r.s, g.s, sizeof r.s) || memcmp(r.q, g.q, sizeof r.q) || r.kmin != g.kmin || r.kmax != g.kmax ||
                    r.count != g.count || r.finite != g.finite || r.nan != g.nan || r.pinf != g.pinf || r.ninf != g.ninf ||
                    r.qover != g.qover || r.checksum != g.checksum;
            printf("verify %-12s %-13s %-6s %s (checksum %016llx; CPU: %u threads, %.2f GB/s, %.2f GB/s per thread)\n",
                   "stats", (std::to_string(R) + "x" + std::to_string(C)).c_str(), "fast", d ? "FAIL" : "ok",
                   (unsigned long long)g.checksum, nth, c.bytes / cpu_s / 1e9, c.bytes / cpu_s / 1e9 / nth);
            bad |= d;
        }
    }

    /* ---- verification against the CPU ---- */
    if (verify) {
        std::vector<float> hx(c.n);
        CK(cudaMemcpy(hx.data(), c.x, c.bytes, cudaMemcpyDeviceToHost));
        for (size_t si = 0; si < nshapes; si++) {
            size_t R = shapes[si].vr ? shapes[si].vr : shapes[si].r, C = shapes[si].vr ? shapes[si].vc : shapes[si].c;
            if (quick && !shapes[si].vr) { R = shapes[si].r / 4; C = shapes[si].c; }
            const char *cfgs[] = {deftune, "kernels=legacy"};
            for (const char *cfg : cfgs) {
                if (gp_cuda_reduce_tune(c.cu, cfg, c.err, sizeof c.err)) die(c, "tune");
                for (int o = 0; o < NOPS; o++) {
                    if (!op_on(ops, o)) continue;
                    if (!strcmp(cfg, "kernels=legacy") && o != SUM_ALL && o != SUM_ROWS && o != SUM_COLS && o != MAX_ALL)
                        continue;
                    run_op(c, o, c.x, R, C);
                    Res g, r;
                    fetch(c, o, c.x, R, C, g);
                    cpu_ref(o, hx.data(), R, C, r);
                    char why[256] = "";
                    int d = same(o, R, C, g, r, why, sizeof why);
                    printf("verify %-12s %-13s %-6s %s%s\n", op_name[o], (std::to_string(R) + "x" + std::to_string(C)).c_str(),
                           cfg == deftune ? "fast" : "legacy", d ? "FAIL: " : "ok", why);
                    if (c.json)
                        fprintf(c.json, "{\"bench\":\"reduce_gpu_verify\",\"op\":\"%s\",\"shape\":[%zu,%zu],\"kernels\":\"%s\","
                                "\"ok\":%s}\n", op_name[o], R, C, cfg == deftune ? "fast" : "legacy", d ? "false" : "true");
                    bad |= d;
                }
            }
        }
        if (gp_cuda_reduce_tune(c.cu, deftune, c.err, sizeof c.err)) die(c, "tune");
    }

    /* ---- the issue's targets, over the issue's shapes that ran (not --cols) ---- */
    printf("\ntargets (ratios to cub_sum of the same shape; the issue's shapes run here):\n");
    const char *tname[3] = {"sum_all", "sum_rows", "sum_cols"};
    const char *tline[3] = {"whole sum >= 1.00x CUB DeviceReduce::Sum", "row sums  >= 0.95x", "col sums  >= 0.95x"};
    const double tgoal[3] = {1.0, 0.95, 0.95};
    for (int k = 0; k < 3; k++) {
        double worst = 1e9;
        int nrun = 0;
        for (auto &r : g_rows) {
            bool issue_shape = false;
            for (size_t si = 0; si < 5; si++)
                issue_shape |= r.shape == std::to_string(shapes[si].r) + "x" + std::to_string(shapes[si].c);
            if (r.op == tname[k] && issue_shape) { worst = std::min(worst, r.vs_cub); nrun++; }
        }
        if (!nrun) printf("  %s: not run\n", tline[k]);
        else printf("  %s on %d shape%s: worst %.4f  %s\n", tline[k], nrun, nrun > 1 ? "s" : "", worst,
                    worst >= tgoal[k] ? "met" : "missed");
    }
    for (auto &r : g_rows)
        if ((r.op == "sum_rows" || r.op == "sum_cols") && r.vs_cub < 0.95)
            printf("    %s %s: x%.3f (%.0f GB/s read, %.0f GB/s read + written)\n", r.op.c_str(), r.shape.c_str(),
                   r.vs_cub, r.gbps, r.rw_gbps);
    printf("verification: %s\n", verify ? (bad ? "FAILED" : "all equal to the CPU") : "skipped (--no-verify)");
    printf("wall time: %.1f s\n", seconds() - t_start);
    if (c.json) fclose(c.json);
    gp_cuda_reduce_destroy(c.cu);
    return bad ? 1 : 0;
}
