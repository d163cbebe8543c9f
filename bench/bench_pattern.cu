/* bench/bench_pattern.cu — how fast the GPU's memory serves a transpose's *access pattern*,
 * without the transpose (issue 3: the kernels' ceilings of ~92-97% of device copy did not move
 * with registers, occupancy, shared-memory layout, cp.async or the bulk copy engine).
 *
 * A "block transpose" moves tiles whole: src tile (tr, tc) of TR rows x TCB bytes goes to dst
 * tile (tc, tr) of DR rows x DCB bytes (DR x DCB = TR x TCB; for the element transpose of a
 * square tile of es-byte elements, DR = TCB / es and DCB = TR x es). Inside a tile the k-th
 * 16-byte chunk of src goes to the k-th chunk of dst, so every load and store is a coalesced
 * 16-byte access with no shared memory and no register shuffles: what is left is the DRAM and L2
 * side of the pattern — TR-row column bands on the read side, DR-row bands on the write side, in
 * column-major or row-major tile order, one block per tile as the transpose kernels run.
 * `identity` rows copy each tile to the same place (the read pattern on both sides).
 * On the bench's matrices each tile also runs staged through shared memory with its stores (and
 * then its loads too) issued to the bulk copy engine, which orders the DRAM writes itself.
 *
 * Prints GB/s (read + written) and % of cudaMemcpy D2D of the same bytes in the same run,
 * median of --reps after 2 warm-ups; the dst is checked for one sample config per shape.
 * The tile-shape sweep runs with --full; always: the footprint sweep (the same tile on smaller
 * matrices) and supertile orders (the resident blocks on a rectangle of tiles).
 * usage: bench_pattern [--reps N] [--json FILE] [--quick] [--full] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench_pattern: %s: %s\n", #x, cudaGetErrorString(e_));               \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

struct Pat {
    int ltr, ltc;     /* log2 of src tile rows and 16-byte chunks per src tile row */
    int ldr, ldc;     /* the same for the dst tile */
    int cm;           /* tile order: 0 row-major, 1 column-major (neighbouring blocks: neighbouring src
                       * tile rows), 2 supertiles of 2^lgr x 2^lgc tiles walked column-major, tiles
                       * column-major inside, 3 the same with the supertiles walked row-major */
    int ident;        /* 1: dst tile (tr, tc) = src tile (tr, tc), same shape */
    int lgr, lgc;     /* supertile shape (orders 2, 3) */
};

/* One block per tile; NL chunks in flight per thread. */
template <int NL>
__global__ void __launch_bounds__(256) k_pattern(const uint4 *__restrict__ src, uint4 *__restrict__ dst,
                                                 size_t scols, size_t ntr, size_t ntc, Pat p)
{
    const size_t t = blockIdx.x;
    size_t tr, tc;
    if (p.cm == 1) { tc = t / ntr; tr = t - tc * ntr; }
    else if (p.cm == 0) { tr = t / ntc; tc = t - tr * ntc; }
    else {
        const size_t sup = t >> (p.lgr + p.lgc), l = t & ((1u << (p.lgr + p.lgc)) - 1);
        const size_t nsr = ntr >> p.lgr, nsc = ntc >> p.lgc;
        size_t sr, sc;
        if (p.cm == 2) { sc = sup / nsr; sr = sup - sc * nsr; }
        else { sr = sup / nsc; sc = sup - sr * nsc; }
        tr = (sr << p.lgr) + (l & ((1u << p.lgr) - 1));
        tc = (sc << p.lgc) + (l >> p.lgr);
    }
    const int tcm = (1 << p.ltc) - 1, dcm = (1 << p.ldc) - 1;
    const int nk = 1 << (p.ltr + p.ltc);
    const uint4 *s = src + (tr << p.ltr) * scols + (tc << p.ltc);
    uint4 *d;
    size_t dp;
    if (p.ident) { d = dst + (tr << p.ltr) * scols + (tc << p.ltc); dp = scols; }
    else { dp = ntr << p.ldc; d = dst + (tc << p.ldr) * dp + (tr << p.ldc); }
    for (int k0 = threadIdx.x; k0 < nk; k0 += 256 * NL) {
        uint4 v[NL];
#pragma unroll
        for (int i = 0; i < NL; i++) {
            const int k = k0 + i * 256;
            if (k < nk) v[i] = __ldg(s + (size_t)(k >> p.ltc) * scols + (k & tcm));
        }
#pragma unroll
        for (int i = 0; i < NL; i++) {
            const int k = k0 + i * 256;
            if (k < nk) {
                if (p.ident) d[(size_t)(k >> p.ltc) * dp + (k & tcm)] = v[i];
                else d[(size_t)(k >> p.ldc) * dp + (k & dcm)] = v[i];
            }
        }
    }
}

/* Hopper's bulk copy engine (cp.async.bulk), as kernels/cuda/transpose.cu uses it for loads */
__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bulk_g2s(void *s, const void *g, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(smem_u32(s)), "l"(g), "r"(bytes), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void bulk_s2g(void *g, const void *s, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(g), "r"(smem_u32(s)),
                 "r"(bytes) : "memory");
}

/* The same block transpose (column-major tile order) staged through shared memory, its stores
 * issued to the bulk copy engine: one cp.async.bulk per dst tile row, DCB bytes (the engine, not
 * the SM's store path, orders the writes). Chunk k goes to chunk k, so the stage is linear for both
 * sides: src tile row r is stage bytes [r TCB, (r+1) TCB), dst tile row q is [q DCB, (q+1) DCB).
 * BL: the loads too, one bulk copy per src tile row completing on an mbarrier; else 16-byte __ldg
 * loads, 8 in flight per thread, into the stage. */
template <bool BL>
__global__ void __launch_bounds__(256) k_pattern_bulk(const uint4 *__restrict__ src, uint4 *__restrict__ dst,
                                                      size_t scols, size_t ntr, Pat p)
{
    extern __shared__ __align__(128) uint4 st[];
    __shared__ uint64_t bar;
    const size_t t = blockIdx.x, tc = t / ntr, tr = t - tc * ntr;
    const int tcm = (1 << p.ltc) - 1, nk = 1 << (p.ltr + p.ltc);
    const uint4 *s = src + (tr << p.ltr) * scols + (tc << p.ltc);
    const size_t dp = ntr << p.ldc;
    uint4 *d = dst + (tc << p.ldr) * dp + (tr << p.ldc);
    if (BL) {
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&bar)) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            if (threadIdx.x == 0)
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(&bar)),
                             "r"((unsigned)nk * 16) : "memory");
            __syncwarp();
            for (int r = threadIdx.x; r < (1 << p.ltr); r += 32)
                bulk_g2s(st + ((size_t)r << p.ltc), s + (size_t)r * scols, 16u << p.ltc, &bar);
        }
        unsigned done = 0;
        do {
            asm volatile("{\n .reg .pred q;\n mbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0;\n"
                         " selp.u32 %0, 1, 0, q;\n}\n" : "=r"(done) : "r"(smem_u32(&bar)) : "memory");
        } while (!done);
    } else {
        for (int k0 = threadIdx.x; k0 < nk; k0 += 256 * 8) {
            uint4 v[8];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int k = k0 + i * 256;
                if (k < nk) v[i] = __ldg(s + (size_t)(k >> p.ltc) * scols + (k & tcm));
            }
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int k = k0 + i * 256;
                if (k < nk) st[k] = v[i];
            }
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* this thread's writes -> the engine */
        __syncthreads();
    }
    for (int q = threadIdx.x; q < (1 << p.ldr); q += 256)
        bulk_s2g(d + (size_t)q * dp, st + ((size_t)q << p.ldc), 16u << p.ldc);
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); /* the stage stays until read */
}

/* launch a column-major block transpose of `src` (rows x scols chunks) with tile p: 0 k_pattern,
 * 1 SM loads + bulk stores, 2 bulk loads + bulk stores */
static void launch_pattern(int how, const uint4 *src, uint4 *dst, size_t scols, size_t ntr, size_t ntc, Pat p)
{
    const unsigned nb = (unsigned)(ntr * ntc);
    const size_t smem = (size_t)16 << (p.ltr + p.ltc);
    if (how == 0) k_pattern<8><<<nb, 256>>>(src, dst, scols, ntr, ntc, p);
    else if (how == 1) k_pattern_bulk<false><<<nb, 256, smem>>>(src, dst, scols, ntr, p);
    else k_pattern_bulk<true><<<nb, 256, smem>>>(src, dst, scols, ntr, p);
}

/* correctness of the index map on one small block transpose, each kernel (host check) */
static int check_index_map(uint4 *src, uint4 *dst)
{
    const size_t R = 256, B = 1024, sc = B / 16;
    std::vector<uint32_t> h(R * B / 4), o(R * B / 4);
    for (size_t i = 0; i < h.size(); i++) h[i] = (uint32_t)i;
    CK(cudaMemcpy(src, h.data(), R * B, cudaMemcpyHostToDevice));
    const Pat p{5, 3, 4, 4, 1, 0, 0, 0}; /* 32 x 128 B -> 16 x 256 B */
    const size_t ntr = R / 32, ntc = sc / 8;
    int failed = 0;
    for (int how = 0; how < 3; how++) {
        CK(cudaMemset(dst, 0xff, R * B));
        launch_pattern(how, src, dst, sc, ntr, ntc, p);
        CK(cudaGetLastError());
        CK(cudaMemcpy(o.data(), dst, R * B, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t tr = 0; tr < ntr; tr++)
            for (size_t tc = 0; tc < ntc; tc++)
                for (size_t k = 0; k < 32 * 8; k++) {
                    size_t sr = tr * 32 + k / 8, sch = tc * 8 + k % 8;
                    size_t dr = tc * 16 + k / 16, dch = tr * 16 + k % 16, dpc = ntr * 16;
                    for (int w = 0; w < 4; w++) bad += o[(dr * dpc + dch) * 4 + w] != h[(sr * sc + sch) * 4 + w];
                }
        printf("index map check, %s: %s\n", how == 0 ? "k_pattern" : how == 1 ? "bulk stores" : "bulk loads+stores",
               bad ? "FAILED" : "ok");
        failed |= bad != 0;
    }
    return failed;
}

static const size_t BULK_SMEM = 96 * 1024; /* the largest tile the staged kernels take */

static int ilog2(size_t v) { int l = 0; while ((1ull << l) < v) l++; return l; }

int main(int argc, char **argv)
{
    int reps = 20, quick = 0, full = 0;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--full")) full = 1;
        else {
            fprintf(stderr, "usage: bench_pattern [--reps N] [--json FILE] [--quick] [--full]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    FILE *jf = json ? fopen(json, "a") : NULL;
    /* two 2 GiB shapes: a power-of-two pitch (the 8 B transpose's 16384 x 131072 B) and not */
    struct Shape { size_t rows, bytes; } shapes[] = {{16384, 131072}, {45056, 47104}};
    const size_t maxb = (size_t)45056 * 47104 > (size_t)16384 * 131072 ? (size_t)45056 * 47104 : (size_t)16384 * 131072;
    uint4 *src, *dst;
    CK(cudaMalloc(&src, maxb));
    CK(cudaMalloc(&dst, maxb));
    CK(cudaMemset(src, 0x5a, maxb));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("bench_pattern: %s, %d SMs; block transposes of whole tiles, median of %d, %% of cudaMemcpy D2D\n",
           prop.name, prop.multiProcessorCount, reps);
    auto median = [&](auto launch) {
        std::vector<float> ms;
        for (int r = 0; r < reps + 2; r++) {
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float m;
            CK(cudaEventElapsedTime(&m, e0, e1));
            if (r >= 2) ms.push_back(m);
        }
        std::sort(ms.begin(), ms.end());
        return (double)ms[ms.size() / 2];
    };
    for (const Shape &sh : shapes) {
        if (!full) break;   /* the tile-shape sweep (2026-12-02, call 2): --full */
        const size_t bytes = sh.rows * sh.bytes, scols = sh.bytes / 16;
        double cms = median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
        const double copy = 2.0 * bytes / (cms * 1e6);
        printf("\nshape %zu rows x %zu B (%.2f GiB): copy %.1f GB/s\n", sh.rows, sh.bytes, bytes / 1073741824.0, copy);
        printf("  %-34s %8s %9s %7s\n", "pattern (src tile -> dst tile)", "ms", "GB/s", "%copy");
        /* src tiles TR rows x TCB bytes; dst: the element transpose's tile for es, or identity */
        const int trs[] = {16, 32, 64, 128, 256};
        const int tcbs[] = {128, 256, 512, 1024, 2048};
        const int ess[] = {8, 1, 0};   /* 0: identity */
        for (int es : ess)
            for (int cm = 1; cm >= 0; cm--)
                for (int TR : trs)
                    for (int TCB : tcbs) {
                        if (quick && (TR != 64 || (TCB != 512 && TCB != 256))) continue;
                        Pat p;
                        p.lgr = p.lgc = 0;
                        p.ltr = ilog2(TR);
                        p.ltc = ilog2(TCB / 16);
                        p.cm = cm;
                        p.ident = es == 0;
                        int DR = es ? TCB / es : TR, DCB = es ? TR * es : TCB;
                        if (DCB < 16 || sh.rows % TR || sh.bytes % TCB) continue;
                        p.ldr = ilog2(DR);
                        p.ldc = ilog2(DCB / 16);
                        const size_t ntr = sh.rows / TR, ntc = sh.bytes / TCB;
                        if (ntr * ntc > 0x7fffffffull) continue;
                        double ms = median([&] {
                            k_pattern<8><<<(unsigned)(ntr * ntc), 256>>>(src, dst, scols, ntr, ntc, p);
                        });
                        CK(cudaGetLastError());
                        const double gb = 2.0 * bytes / (ms * 1e6);
                        char name[96];
                        if (es)
                            snprintf(name, sizeof name, "%3dx%-4d -> %4dx%-3d (es %d) %s", TR, TCB, DR, DCB, es,
                                     cm ? "cm" : "rm");
                        else
                            snprintf(name, sizeof name, "%3dx%-4d identity %s", TR, TCB, cm ? "cm" : "rm");
                        printf("  %-34s %8.4f %9.1f %6.1f%%\n", name, ms, gb, 100.0 * gb / copy);
                        if (jf)
                            fprintf(jf, "{\"bench\":\"pattern\",\"rows\":%zu,\"bytes\":%zu,\"tr\":%d,\"tcb\":%d,\"dr\":%d,"
                                        "\"dcb\":%d,\"es\":%d,\"order\":\"%s\",\"ms\":%.5f,\"gbps\":%.1f,\"copy_gbps\":%.1f}\n",
                                    sh.rows, sh.bytes, TR, TCB, DR, DCB, es, cm ? "cm" : "rm", ms, gb, copy);
                    }
        double cms2 = median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
        printf("  copy again: %.1f GB/s\n", 2.0 * bytes / (cms2 * 1e6));
    }
    /* the issue's own matrices (gpipe bench kernels: 2 GiB per element size), every tile that
     * divides them, column-major order: the pattern's ceiling for each kernel shape */
    CK(cudaFuncSetAttribute(k_pattern_bulk<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BULK_SMEM));
    CK(cudaFuncSetAttribute(k_pattern_bulk<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BULK_SMEM));
    printf("\nthe bench's matrices, block transposes in column-major order; the same staged through shared\n"
           "memory with the stores (and the loads) by the bulk copy engine\n");
    {
        struct IS { int es; size_t n; } is[] = {{1, 46336}, {2, 32768}, {4, 23168}, {8, 16384}, {16, 11584}};
        for (const IS &m : is) {
            const size_t rows = m.n, rb = m.n * m.es, bytes = rows * rb, scols = rb / 16;
            double cms = median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
            const double copy = 2.0 * bytes / (cms * 1e6);
            printf("es %d: %zu x %zu B, copy %.1f GB/s\n", m.es, rows, rb, copy);
            for (int TR : {16, 32, 64, 128, 256})
                for (int TCB : {128, 256, 512, 1024}) {
                    const int DR = TCB / m.es, DCB = TR * m.es;
                    if (rows % TR || rb % TCB || DCB < 16 || DCB > 4096 || DR < 1) continue;
                    Pat p{ilog2(TR), ilog2(TCB / 16), ilog2(DR), ilog2(DCB / 16), 1, 0, 0, 0};
                    const size_t ntr = rows / TR, ntc = rb / TCB;
                    double gb[3] = {0, 0, 0};
                    for (int how = 0; how < 3; how++) {
                        if (how && (size_t)TR * TCB > BULK_SMEM) continue;
                        double ms = median([&] { launch_pattern(how, src, dst, scols, ntr, ntc, p); });
                        CK(cudaGetLastError());
                        gb[how] = 2.0 * bytes / (ms * 1e6);
                        if (jf)
                            fprintf(jf, "{\"bench\":\"issue\",\"es\":%d,\"n\":%zu,\"tr\":%d,\"tcb\":%d,\"stores\":\"%s\","
                                        "\"gbps\":%.1f,\"copy_gbps\":%.1f}\n", m.es, m.n, TR, TCB,
                                    how == 0 ? "sm" : how == 1 ? "bulk" : "bulk+bulk loads", gb[how], copy);
                    }
                    printf("  %3dx%-4d -> %4dx%-4d cm %8.1f GB/s %6.1f%%   bulk stores %6.1f%%   bulk both %6.1f%%\n",
                           TR, TCB, DR, DCB, gb[0], 100.0 * gb[0] / copy, 100.0 * gb[1] / copy, 100.0 * gb[2] / copy);
                }
        }
    }
    if (full) {
        /* footprint: the 8 B default's tile (64 x 512 B) on matrices of 128 MiB .. 2 GiB with the same
         * 128 KiB pitch, column-major (the transposes' order) and row-major, identity and es 8 */
        printf("\nfootprint: 64 x 512 B tiles, pitch 131072 B, fewer rows\n");
        for (size_t rows : {(size_t)1024, (size_t)2048, (size_t)4096, (size_t)8192, (size_t)16384}) {
            const size_t bytes = rows * 131072, scols = 131072 / 16;
            double cms = median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
            const double copy = 2.0 * bytes / (cms * 1e6);
            for (int es : {8, 0})
                for (int cm = 1; cm >= 0; cm--) {
                    Pat p{6, 5, es ? 6 : 6, es ? 5 : 5, cm, es == 0, 0, 0};
                    const size_t ntr = rows / 64, ntc = 131072 / 512;
                    double ms = median([&] { k_pattern<8><<<(unsigned)(ntr * ntc), 256>>>(src, dst, scols, ntr, ntc, p); });
                    const double gb = 2.0 * bytes / (ms * 1e6);
                    printf("  %6zu rows (%5zu MiB) %-8s %s  %8.1f GB/s %6.1f%% (copy %.1f)\n", rows, bytes >> 20,
                           es ? "es 8" : "identity", cm ? "cm" : "rm", gb, 100.0 * gb / copy, copy);
                }
        }
        /* supertile orders on the element transposes' tiles: (TR, TCB, es) = the 8 B default 64 x 512,
         * the 4 B default 64 x 256, the 1 B default 128 x 256, and 256 x 256 for 1 B */
        printf("\nsupertile orders (2: supertiles column-major, 3: row-major; tiles column-major inside)\n");
        for (const Shape &sh : shapes) {
            const size_t bytes = sh.rows * sh.bytes, scols = sh.bytes / 16;
            double cms = median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
            const double copy = 2.0 * bytes / (cms * 1e6);
            printf("shape %zu x %zu B: copy %.1f GB/s\n", sh.rows, sh.bytes, copy);
            const int cfg[][3] = {{64, 512, 8}, {64, 256, 4}, {128, 256, 1}, {256, 256, 1}};
            for (const auto &c3 : cfg) {
                const int TR = c3[0], TCB = c3[1], es = c3[2];
                const int DR = TCB / es, DCB = TR * es;
                const size_t ntr = sh.rows / TR, ntc = sh.bytes / TCB;
                for (int ord = 1; ord <= 3; ord++)
                    for (int lgr = 0; lgr <= 7; lgr++)
                        for (int lgc = 0; lgc <= 7; lgc++) {
                            if (ord == 1 && (lgr || lgc)) continue;
                            if (ord > 1 && (lgr + lgc < 4 || lgr + lgc > 11 || (ntr >> lgr) << lgr != ntr ||
                                            (ntc >> lgc) << lgc != ntc))
                                continue;
                            Pat p{ilog2(TR), ilog2(TCB / 16), ilog2(DR), ilog2(DCB / 16), ord, 0, lgr, lgc};
                            double ms = median([&] { k_pattern<8><<<(unsigned)(ntr * ntc), 256>>>(src, dst, scols, ntr, ntc, p); });
                            const double gb = 2.0 * bytes / (ms * 1e6);
                            printf("  %3dx%-4d es %d order %d super %3dx%-3d %8.1f GB/s %6.1f%%\n", TR, TCB, es, ord,
                                   1 << lgr, 1 << lgc, gb, 100.0 * gb / copy);
                            if (jf)
                                fprintf(jf, "{\"bench\":\"super\",\"rows\":%zu,\"bytes\":%zu,\"tr\":%d,\"tcb\":%d,\"es\":%d,"
                                            "\"order\":%d,\"sr\":%d,\"sc\":%d,\"gbps\":%.1f,\"copy_gbps\":%.1f}\n",
                                        sh.rows, sh.bytes, TR, TCB, es, ord, 1 << lgr, 1 << lgc, gb, copy);
                        }
            }
        }
    }
    if (check_index_map(src, dst)) return 1;
    if (jf) fclose(jf);
    return 0;
}
