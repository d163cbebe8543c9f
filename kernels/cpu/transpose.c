/* kernels/cpu/transpose.c — cache-blocked out-of-place transpose of a dense row-major matrix.
 *
 * dst (cols x rows) = transpose of src (rows x cols), elements of esize bytes moved exactly.
 * Figures and the versions that led here: bench/NOTES.md, "CPU transpose (issue 2)".
 *
 * Matrix widths are often powers of two: then every src row maps to the same few L1/L2 sets, a
 * tall block cannot stay in cache, and a kernel that reuses a src line across several column
 * steps re-fetches it. Two layouts avoid that:
 *
 *   Bands (4, 8 B with AVX-512; 8 B with AVX2, and 4 B with GP_CPU_LAYOUT=band; 16 B with
 *   SSE2) — the kernels read whole 64-byte src lines and write whole 64-byte dst lines (AVX-512:
 *   one zmm per line, 16x16 of 4 B / 8x8 of 8 B in registers, one streaming store per dst line;
 *   AVX2 16x16 of 4 B = four 8x8 register transposes, 8x8 of 8 B = four 4x4; 16 B elements are
 *   one register each), so no line is ever reused. src is walked in bands of 128/esize rows (32,
 *   16, 8), column strip by column strip (one src line per row per strip, the lines of the strip
 *   after next prefetched into L2 for 4 B, of the next strip into L1 otherwise); each strip
 *   writes 128 contiguous bytes into each of its dst rows, with non-temporal stores when the
 *   output is >= 8 MiB and dst rows are 64-byte aligned.
 *
 *   Scratch blocks (4 B with AVX2 but not AVX-512: the staged kernel, whose dst rows leave an L1
 *   staging tile as runs of 256-512 B; every other size: unpack butterflies for 1 and 2 B with
 *   AVX-512BW, whole dst lines per store, or AVX2; fixed-size element copies for 3, 6, 12, 24,
 *   32 B and the SSE2/scalar fallbacks; a memcpy per element for other sizes) — blocks of ~2 MiB
 *   (row pieces of up to 32 KiB, long sequential reads) are copied into a scratch buffer whose
 *   row pitch is padded by one line, then transposed out of it; the next block is copied in
 *   slice by slice between the column strips of the current one (double buffer; the staged
 *   kernel every 16 strips).
 *
 * Matrices up to 256 KiB are transposed in one call of the kernel (cache-resident).
 *
 * Environment (read once per process; for tests and benchmarks):
 *   GP_CPU_NT=0|1                  non-temporal stores off/on (default: auto, see above)
 *   GP_CPU_ISA=scalar|sse2|avx2    cap the instruction set (default: avx512 when the CPU and OS
 *                                  have it, else avx2; both compiled with target attributes)
 *   GP_CPU_LAYOUT=band|scratch     the layout of 4 and 8 B (default: bands, but the staged 4 B
 *                                  kernel from scratch with AVX2 alone; scratch forces scratch)
 *   GP_CPU_BAND=rows, GP_CPU_PF=strips, GP_CPU_RUN=bytes, GP_CPU_BLOCK=bytes, GP_CPU_DIRECT=bytes,
 *   GP_CPU_CSTEP=strips            tuning knobs of the two layouts (defaults above)
 * Threads: one call runs on gp_cpu_threads() threads (a kept pool, parts of the matrix; see the
 * end of this file); the pipeline sets that from --threads. Thread-safe: scratch buffers are per
 * thread, and a call that finds the pool busy runs on its own thread.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#endif
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "kernels/cpu/cpu.h"

#if defined(__x86_64__) || defined(_M_X64)
#define GP_X86 1
#include <immintrin.h>
#else
#define GP_X86 0
#endif

#if GP_X86 && defined(__SSE2__)
#define GP_HAVE_SSE2 1
#else
#define GP_HAVE_SSE2 0
#endif

#if GP_X86 && defined(__AVX2__)
#define GP_HAVE_AVX2 1
#define GP_AVX2_FN
#elif GP_X86 && defined(__GNUC__)
#define GP_HAVE_AVX2 1 /* compiled with a target attribute, chosen at run time */
#define GP_AVX2_FN __attribute__((target("avx2")))
#else
#define GP_HAVE_AVX2 0
#endif

#if GP_X86 && defined(__AVX512F__)
#define GP_HAVE_AVX512 1
#define GP_AVX512_FN
#elif GP_X86 && defined(__GNUC__) && !defined(GP_NO_AVX512)
#define GP_HAVE_AVX512 1 /* compiled with a target attribute, chosen at run time */
#define GP_AVX512_FN __attribute__((target("avx512f")))
#else
#define GP_HAVE_AVX512 0
#endif

#define GP_NT_THRESHOLD ((size_t)8 << 20) /* outputs from here up bypass the cache */
#define GP_RUN_BYTES ((size_t)32 << 10)   /* bytes per row piece of a block (long reads) */
#define GP_BLOCK_BYTES ((size_t)2 << 20)  /* bytes per block (two in flight: L2 + part of L3) */
#define GP_DIRECT_BYTES ((size_t)256 << 10) /* matrices up to this size skip the scratch */

typedef unsigned char u8;

/* A micro kernel: transpose the bi x bj tile at s (row pitch ls elements) into d (row pitch ld
 * elements). nt: non-temporal stores allowed (d and ld*esize are 64-byte aligned). */
typedef void (*tile_fn)(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt);

/* ------------------------------------------------------------------------------------------ */
/* Configuration                                                                               */
/* ------------------------------------------------------------------------------------------ */
enum { ISA_SCALAR = 0, ISA_SSE2 = 1, ISA_AVX2 = 2, ISA_AVX512 = 3 };

static volatile int g_ready = 0;
static int g_isa = ISA_SCALAR;
static int g_bw = 0; /* AVX-512BW (byte/word unpacks) usable: the 1- and 2-byte kernels */
static int g_nt = -1; /* -1 auto, 0 off, 1 on */
static size_t g_pf = (size_t)-1, g_band = 0; /* g_pf: -1 = the default of the layout */
static size_t g_cstep = 0; /* GP_CPU_CSTEP (0: the kernel's default) */
static int g_layout = -1; /* -1 auto, 0 bands, 1 scratch blocks (GP_CPU_LAYOUT=band|scratch) */
static size_t g_run = GP_RUN_BYTES, g_block = GP_BLOCK_BYTES, g_direct = GP_DIRECT_BYTES;

static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

static size_t env_size(const char *name, size_t def, size_t lo, size_t hi)
{
    const char *e = getenv(name);
    if (!e || !*e) return def;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    return (*end || v < lo || v > hi) ? def : (size_t)v;
}

static void gp_cpu_init(void)
{
    if (g_ready) return;
    int isa = ISA_SCALAR;
#if GP_HAVE_SSE2
    isa = ISA_SSE2;
#endif
#if GP_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) isa = ISA_AVX2;
#endif
#if GP_HAVE_AVX512
    if (isa == ISA_AVX2 && __builtin_cpu_supports("avx512f")) isa = ISA_AVX512; /* checks OS state too */
#endif
    const char *e = getenv("GP_CPU_ISA");
    if (e) {
        int cap = isa;
        if (!strcmp(e, "scalar")) cap = ISA_SCALAR;
        else if (!strcmp(e, "sse2")) cap = ISA_SSE2;
        else if (!strcmp(e, "avx2")) cap = ISA_AVX2;
        if (cap < isa) isa = cap;
    }
    e = getenv("GP_CPU_NT");
    g_nt = (e && (e[0] == '0' || e[0] == '1') && !e[1]) ? e[0] - '0' : -1;
    g_run = env_size("GP_CPU_RUN", GP_RUN_BYTES, 64, (size_t)1 << 20);
    g_block = env_size("GP_CPU_BLOCK", GP_BLOCK_BYTES, 4096, (size_t)64 << 20);
    g_pf = env_size("GP_CPU_PF", (size_t)-1, 0, 64);
    g_band = env_size("GP_CPU_BAND", 0, 0, 4096);
    g_direct = env_size("GP_CPU_DIRECT", GP_DIRECT_BYTES, 0, (size_t)1 << 40);
    g_cstep = env_size("GP_CPU_CSTEP", 0, 1, 1024);
    e = getenv("GP_CPU_LAYOUT");
    g_layout = !e ? -1 : !strcmp(e, "band") ? 0 : !strcmp(e, "scratch") ? 1 : -1;
#if GP_HAVE_AVX512
    g_bw = isa == ISA_AVX512 && __builtin_cpu_supports("avx512bw");
#endif
    g_isa = isa;
    g_ready = 1; /* idempotent: concurrent first calls compute the same values */
}

const char *gp_cpu_isa_name(void)
{
    gp_cpu_init();
    return g_isa == ISA_AVX512 ? "avx512" : g_isa == ISA_AVX2 ? "avx2" : g_isa == ISA_SSE2 ? "sse2" : "scalar";
}

/* ------------------------------------------------------------------------------------------ */
/* Scalar micro kernels: fixed-size element copies, dst-row order (each dst piece written      */
/* sequentially; the scratch columns they read stay in L1 thanks to the padded pitch)           */
/* ------------------------------------------------------------------------------------------ */
#define DEF_SCALAR(N)                                                                               \
    static void tile_##N(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)   \
    {                                                                                               \
        (void)nt;                                                                                   \
        for (size_t j = 0; j < bj; j++) {                                                           \
            u8 *restrict dr = d + j * ld * (N);                                                     \
            const u8 *restrict sc = s + j * (N);                                                    \
            for (size_t i = 0; i < bi; i++) memcpy(dr + i * (N), sc + i * ls * (N), (N));           \
        }                                                                                           \
    }
DEF_SCALAR(1)
DEF_SCALAR(2)
DEF_SCALAR(3)
DEF_SCALAR(4)
DEF_SCALAR(6)
DEF_SCALAR(8)
DEF_SCALAR(12)
DEF_SCALAR(16)
DEF_SCALAR(24)
DEF_SCALAR(32)

static void tile_generic_es(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, size_t es)
{
    for (size_t j = 0; j < bj; j++) {
        u8 *restrict dr = d + j * ld * es;
        const u8 *restrict sc = s + j * es;
        for (size_t i = 0; i < bi; i++) memcpy(dr + i * es, sc + i * ls * es, es);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* SSE2 micro kernels (x86-64 baseline)                                                        */
/* ------------------------------------------------------------------------------------------ */
#if GP_HAVE_SSE2
/* 4-byte elements, 4x4 register transposes; i inner so that the four dst rows are filled
 * 16 bytes after 16 bytes (whole lines for the write-combining buffers). */
#define SSE2_T4(STORE)                                                                              \
    for (size_t j = 0; j < bj4; j += 4)                                                             \
        for (size_t i = 0; i < bi4; i += 4) {                                                       \
            const float *sp = s + i * ls + j;                                                       \
            __m128 r0 = _mm_loadu_ps(sp), r1 = _mm_loadu_ps(sp + ls);                               \
            __m128 r2 = _mm_loadu_ps(sp + 2 * ls), r3 = _mm_loadu_ps(sp + 3 * ls);                  \
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);                                                      \
            float *dp = d + j * ld + i;                                                             \
            STORE(dp, r0);                                                                          \
            STORE(dp + ld, r1);                                                                     \
            STORE(dp + 2 * ld, r2);                                                                 \
            STORE(dp + 3 * ld, r3);                                                                 \
        }

static void tile4_sse2(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const float *s = (const float *)s8;
    float *d = (float *)d8;
    size_t bi4 = bi & ~(size_t)3, bj4 = bj & ~(size_t)3;
    if (nt) { SSE2_T4(_mm_stream_ps) } else { SSE2_T4(_mm_storeu_ps) }
    if (bj4 < bj) tile_4(s8 + bj4 * 4, ls, d8 + bj4 * ld * 4, ld, bi, bj - bj4, 0);
    if (bi4 < bi) tile_4(s8 + bi4 * ls * 4, ls, d8 + bi4 * 4, ld, bi - bi4, bj4, 0);
}

#define SSE2_T8(STORE)                                                                              \
    for (size_t j = 0; j < bj2; j += 2)                                                             \
        for (size_t i = 0; i < bi2; i += 2) {                                                       \
            const double *sp = s + i * ls + j;                                                      \
            __m128d r0 = _mm_loadu_pd(sp), r1 = _mm_loadu_pd(sp + ls);                              \
            double *dp = d + j * ld + i;                                                            \
            STORE(dp, _mm_unpacklo_pd(r0, r1));                                                     \
            STORE(dp + ld, _mm_unpackhi_pd(r0, r1));                                                \
        }

static void tile8_sse2(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const double *s = (const double *)s8;
    double *d = (double *)d8;
    size_t bi2 = bi & ~(size_t)1, bj2 = bj & ~(size_t)1;
    if (nt) { SSE2_T8(_mm_stream_pd) } else { SSE2_T8(_mm_storeu_pd) }
    if (bj2 < bj) tile_8(s8 + bj2 * 8, ls, d8 + bj2 * ld * 8, ld, bi, bj - bj2, 0);
    if (bi2 < bi) tile_8(s8 + bi2 * ls * 8, ls, d8 + bi2 * 8, ld, bi - bi2, bj2, 0);
}

/* 16-byte elements: each element is one register; streaming stores when allowed. */
static void tile16_sse2(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)
{
    if (!nt) { tile_16(s, ls, d, ld, bi, bj, 0); return; }
    for (size_t j = 0; j < bj; j++) {
        __m128i *dr = (__m128i *)(d + j * ld * 16);
        const u8 *sc = s + j * 16;
        for (size_t i = 0; i < bi; i++)
            _mm_stream_si128(dr + i, _mm_loadu_si128((const __m128i *)(sc + i * ls * 16)));
    }
}
#endif /* GP_HAVE_SSE2 */

/* ------------------------------------------------------------------------------------------ */
/* AVX2 micro kernels                                                                          */
/* ------------------------------------------------------------------------------------------ */
#if GP_HAVE_AVX2
/* 8x8 transpose of 4-byte elements at s (pitch ss); o[k] = column k. */
GP_AVX2_FN static inline void t8x8_f32(const float *s, size_t ss, __m256 *o)
{
#define LD2(a, b) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1)
    /* lane 0 holds row k, lane 1 row k+4 */
    __m256 r0 = LD2(s + 0 * ss, s + 4 * ss), r1 = LD2(s + 1 * ss, s + 5 * ss);
    __m256 r2 = LD2(s + 2 * ss, s + 6 * ss), r3 = LD2(s + 3 * ss, s + 7 * ss);
    __m256 r4 = LD2(s + 0 * ss + 4, s + 4 * ss + 4), r5 = LD2(s + 1 * ss + 4, s + 5 * ss + 4);
    __m256 r6 = LD2(s + 2 * ss + 4, s + 6 * ss + 4), r7 = LD2(s + 3 * ss + 4, s + 7 * ss + 4);
#undef LD2
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    o[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    o[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    o[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    o[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
    o[4] = _mm256_shuffle_ps(t4, t6, 0x44);
    o[5] = _mm256_shuffle_ps(t4, t6, 0xEE);
    o[6] = _mm256_shuffle_ps(t5, t7, 0x44);
    o[7] = _mm256_shuffle_ps(t5, t7, 0xEE);
}

/* 4x4 transpose of 8-byte elements. */
GP_AVX2_FN static inline void t4x4_f64(const double *s, size_t ss, __m256d *o)
{
#define LD2(a, b) _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(a)), _mm_loadu_pd(b), 1)
    __m256d r0 = LD2(s + 0 * ss, s + 2 * ss), r1 = LD2(s + 1 * ss, s + 3 * ss);
    __m256d r2 = LD2(s + 0 * ss + 2, s + 2 * ss + 2), r3 = LD2(s + 1 * ss + 2, s + 3 * ss + 2);
#undef LD2
    o[0] = _mm256_unpacklo_pd(r0, r1);
    o[1] = _mm256_unpackhi_pd(r0, r1);
    o[2] = _mm256_unpacklo_pd(r2, r3);
    o[3] = _mm256_unpackhi_pd(r2, r3);
}

/* Stores of the AVX2 4-byte kernels: unaligned, streaming, aligned (a constant in each caller). */
enum { ST_U, ST_NT, ST_A };
GP_AVX2_FN static inline __attribute__((always_inline)) void put8(float *p, __m256 v, int kind)
{
    if (kind == ST_NT) _mm256_stream_ps(p, v);
    else if (kind == ST_A) _mm256_store_ps(p, v);
    else _mm256_storeu_ps(p, v);
}
/* 16x16 of 4-byte elements at s (pitch ls) into d (pitch ld): four 8x8 register transposes. */
GP_AVX2_FN static inline __attribute__((always_inline)) void t16x16_avx2(const float *s, size_t ls, float *d,
                                                                         size_t ld, int kind)
{
    __m256 a0[8], a1[8], b0[8], b1[8];
    t8x8_f32(s, ls, a0);
    t8x8_f32(s + 8, ls, a1);
    t8x8_f32(s + 8 * ls, ls, b0);
    t8x8_f32(s + 8 * ls + 8, ls, b1);
    for (int k = 0; k < 8; k++) {
        put8(d + k * ld, a0[k], kind);
        put8(d + k * ld + 8, b0[k], kind);
    }
    for (int k = 0; k < 8; k++) {
        put8(d + (8 + k) * ld, a1[k], kind);
        put8(d + (8 + k) * ld + 8, b1[k], kind);
    }
}

/* 16x16 blocks of 4-byte elements: 16 whole 64-byte src lines in, 16 whole dst lines out. */
#define AVX2_T4(KIND)                                                                               \
    for (size_t j = 0; j < bj16; j += 16)                                                           \
        for (size_t i = 0; i < bi16; i += 16) t16x16_avx2(s + i * ls + j, ls, d + j * ld + i, ld, KIND);

GP_AVX2_FN static void tile4_avx2(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const float *s = (const float *)s8;
    float *d = (float *)d8;
    size_t bi16 = bi & ~(size_t)15, bj16 = bj & ~(size_t)15;
    if (nt) { AVX2_T4(ST_NT) } else { AVX2_T4(ST_U) }
    if (bj16 < bj) tile_4(s8 + bj16 * 4, ls, d8 + bj16 * ld * 4, ld, bi, bj - bj16, 0);
    if (bi16 < bi) tile_4(s8 + bi16 * ls * 4, ls, d8 + bi16 * 4, ld, bi - bi16, bj16, 0);
}

/* 8x8 of 8-byte elements: 8 whole src lines in, 8 whole dst lines out. */
#define AVX2_T8(STORE)                                                                              \
    for (size_t j = 0; j < bj8; j += 8)                                                             \
        for (size_t i = 0; i < bi8; i += 8) {                                                       \
            const double *sp = s + i * ls + j;                                                      \
            double *dp = d + j * ld + i;                                                            \
            __m256d a0[4], a1[4], b0[4], b1[4];                                                     \
            t4x4_f64(sp, ls, a0);                                                                   \
            t4x4_f64(sp + 4, ls, a1);                                                               \
            t4x4_f64(sp + 4 * ls, ls, b0);                                                          \
            t4x4_f64(sp + 4 * ls + 4, ls, b1);                                                      \
            for (int k = 0; k < 4; k++) {                                                           \
                STORE(dp + k * ld, a0[k]);                                                          \
                STORE(dp + k * ld + 4, b0[k]);                                                      \
            }                                                                                       \
            for (int k = 0; k < 4; k++) {                                                           \
                STORE(dp + (4 + k) * ld, a1[k]);                                                    \
                STORE(dp + (4 + k) * ld + 4, b1[k]);                                                \
            }                                                                                       \
        }

GP_AVX2_FN static void tile8_avx2(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const double *s = (const double *)s8;
    double *d = (double *)d8;
    size_t bi8 = bi & ~(size_t)7, bj8 = bj & ~(size_t)7;
    if (nt) { AVX2_T8(_mm256_stream_pd) } else { AVX2_T8(_mm256_storeu_pd) }
    if (bj8 < bj) tile_8(s8 + bj8 * 8, ls, d8 + bj8 * ld * 8, ld, bi, bj - bj8, 0);
    if (bi8 < bi) tile_8(s8 + bi8 * ls * 8, ls, d8 + bi8 * 8, ld, bi - bi8, bj8, 0);
}

/* Staged AVX2 kernel for 4 B (the AVX2 default, run from the scratch layout): 8x8 register
 * transposes, but the 8 dst rows of each 8-column half of a strip are first assembled in an L1
 * staging tile of up to GP_STAGE_ROWS elements each, then each dst row is written as one
 * contiguous run of n * 4 bytes (256-512 B). Eight dst rows per pass, not the strip's sixteen:
 * 12.2-12.6 against 9.6-10.7 GB/s for four 8x8 (a 16x16) per step, one thread, 8192^2 f32, six
 * interleaved rounds (bench/NOTES.md, 2026-12-02, eighth session). On Zen 3 (no AVX-512,
 * 512 KiB L2) streaming stores reach the sequential rate only
 * for runs >= 256 B (128 B: 12.3 against 21.4 GB/s), and a band that reads enough rows for such
 * runs reads too many streams at once (64 rows: 6.3 GB/s r+w): bench/NOTES.md, 2026-12-02. */
#define GP_STAGE_ROWS 128
#define AVX2_ST4(KIND)                                                                              \
    for (size_t j = 0; j < bj16; j += 8)                                                            \
        for (size_t c0 = 0; c0 < bi16; c0 += GP_STAGE_ROWS) {                                       \
            const size_t n = min_sz(GP_STAGE_ROWS, bi16 - c0);                                      \
            for (size_t i = 0; i < n; i += 8) {                                                     \
                __m256 o[8];                                                                        \
                t8x8_f32(s + (c0 + i) * ls + j, ls, o);                                             \
                for (int k = 0; k < 8; k++) _mm256_store_ps(st + k * n + i, o[k]);                 \
            }                                                                                       \
            for (size_t k = 0; k < 8; k++) {                                                        \
                float *dp = d + (j + k) * ld + c0;                                                  \
                for (size_t q = 0; q < n; q += 8) put8(dp + q, _mm256_load_ps(st + k * n + q), KIND); \
            }                                                                                       \
        }

GP_AVX2_FN static void tile4_avx2_st(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const float *s = (const float *)s8;
    float *d = (float *)d8;
    float st[8 * GP_STAGE_ROWS] __attribute__((aligned(64)));
    size_t bi16 = bi & ~(size_t)15, bj16 = bj & ~(size_t)15;
    if (nt) { AVX2_ST4(ST_NT) } else { AVX2_ST4(ST_U) }
    if (bj16 < bj) tile_4(s8 + bj16 * 4, ls, d8 + bj16 * ld * 4, ld, bi, bj - bj16, 0);
    if (bi16 < bi) tile_4(s8 + bi16 * ls * 4, ls, d8 + bi16 * 4, ld, bi - bi16, bj16, 0);
}

/* 1- and 2-byte elements: 16x16 bytes (8x8 of 2 B) per 128-bit lane, transposed by a butterfly
 * of unpacks (4 stages of 16 for bytes, 3 of 8 for 2 B): after them register k holds column
 * bitreverse(k) of the lane's tile. AVX2 puts two side-by-side tiles in the two lanes (one
 * 32-byte load per src row); the scratch layout (padded pitch) keeps the rows' lines in L1. */
#define U8_STAGE(V, UNP_LO, UNP_HI, N, D)                                                           \
    for (int k = 0; k < (N); k++)                                                                   \
        if (!(k & (D))) {                                                                           \
            V a_ = r[k], b_ = r[k + (D)];                                                           \
            r[k] = UNP_LO(a_, b_);                                                                  \
            r[k + (D)] = UNP_HI(a_, b_);                                                            \
        }
static const unsigned char brev4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
static const unsigned char brev3[8] = {0, 4, 2, 6, 1, 5, 3, 7};

/* es = 1 or 2 (a constant in each caller): R = 16 / es rows of 16 bytes per lane, columns in
 * steps of two lanes (32 bytes), the unpack stage of unit u bytes pairing registers u / es apart. */
GP_AVX2_FN static inline void tile12_avx2(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj,
                                          const size_t es)
{
    const size_t R = 16 / es;
    const unsigned char *brev = es == 1 ? brev4 : brev3;
    const size_t biR = bi / R * R, bjW = bj / (2 * R) * (2 * R);
    for (size_t j = 0; j < bjW; j += 2 * R)
        for (size_t i = 0; i < biR; i += R) {
            __m256i r[16];
            for (size_t k = 0; k < R; k++) r[k] = _mm256_loadu_si256((const __m256i *)(s + ((i + k) * ls + j) * es));
            if (es == 1) U8_STAGE(__m256i, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8, 16, 1)
            U8_STAGE(__m256i, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16, (int)R, (int)(2 / es))
            U8_STAGE(__m256i, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32, (int)R, (int)(4 / es))
            U8_STAGE(__m256i, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64, (int)R, (int)(8 / es))
            for (size_t k = 0; k < R; k++) {
                u8 *dp = d + ((j + brev[k]) * ld + i) * es;
                _mm_storeu_si128((__m128i *)dp, _mm256_castsi256_si128(r[k]));
                _mm_storeu_si128((__m128i *)(dp + R * ld * es), _mm256_extracti128_si256(r[k], 1));
            }
        }
    tile_fn rest = es == 1 ? tile_1 : tile_2;
    if (bjW < bj) rest(s + bjW * es, ls, d + bjW * ld * es, ld, bi, bj - bjW, 0);
    if (biR < bi) rest(s + biR * ls * es, ls, d + biR * es, ld, bi - biR, bjW, 0);
}
GP_AVX2_FN static void tile1_avx2(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)
{
    (void)nt;
    tile12_avx2(s, ls, d, ld, bi, bj, 1);
}
GP_AVX2_FN static void tile2_avx2(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)
{
    (void)nt;
    tile12_avx2(s, ls, d, ld, bi, bj, 2);
}
#endif /* GP_HAVE_AVX2 */

/* ------------------------------------------------------------------------------------------ */
/* AVX-512 micro kernels: a 64-byte line is one zmm register, so a 16x16 tile of 4 B (8x8 of   */
/* 8 B) is 16 (8) line loads, an in-register transpose and 16 (8) whole-line stores: each        */
/* streaming store fills one write-combining buffer completely in one instruction.              */
/* ------------------------------------------------------------------------------------------ */
#if GP_HAVE_AVX512
/* 16x16 of 4-byte elements at s (pitch ss): r[k] = column k (4 shuffle stages, 64 shuffles). */
GP_AVX512_FN static inline void t16x16_f32(const float *s, size_t ss, __m512 *r)
{
    __m512 t[16];
    for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_ps(s + (size_t)k * ss);
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
        r[k] = _mm512_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm512_shuffle_ps(t[k], t[k + 2], 0xEE);
        r[k + 2] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
    }
    /* r[4q + c] holds, in 128-bit lane l, rows 4q..4q+3 of column 4l + c */
    for (int k = 0; k < 4; k++) {
        t[k] = _mm512_shuffle_f32x4(r[k], r[k + 4], 0x88);
        t[k + 4] = _mm512_shuffle_f32x4(r[k], r[k + 4], 0xDD);
        t[k + 8] = _mm512_shuffle_f32x4(r[k + 8], r[k + 12], 0x88);
        t[k + 12] = _mm512_shuffle_f32x4(r[k + 8], r[k + 12], 0xDD);
    }
    for (int k = 0; k < 8; k++) {
        r[k] = _mm512_shuffle_f32x4(t[k], t[k + 8], 0x88);
        r[k + 8] = _mm512_shuffle_f32x4(t[k], t[k + 8], 0xDD);
    }
}

/* 8x8 of 8-byte elements: o[k] = column k (3 stages, 24 shuffles). */
GP_AVX512_FN static inline void t8x8_f64(const double *s, size_t ss, __m512d *o)
{
    __m512d r[8], t[8];
    for (int k = 0; k < 8; k++) r[k] = _mm512_loadu_pd(s + (size_t)k * ss);
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_pd(r[k], r[k + 1]);     /* even columns of rows k, k+1 */
        t[k + 1] = _mm512_unpackhi_pd(r[k], r[k + 1]); /* odd columns */
    }
    for (int k = 0; k < 2; k++) {
        r[k] = _mm512_shuffle_f64x2(t[k], t[k + 2], 0x88);         /* rows 0-3, cols k, 4+k */
        r[k + 2] = _mm512_shuffle_f64x2(t[k], t[k + 2], 0xDD);     /* rows 0-3, cols 2+k, 6+k */
        r[k + 4] = _mm512_shuffle_f64x2(t[k + 4], t[k + 6], 0x88); /* rows 4-7 */
        r[k + 6] = _mm512_shuffle_f64x2(t[k + 4], t[k + 6], 0xDD);
    }
    for (int k = 0; k < 2; k++) {
        o[k] = _mm512_shuffle_f64x2(r[k], r[k + 4], 0x88);
        o[k + 4] = _mm512_shuffle_f64x2(r[k], r[k + 4], 0xDD);
        o[k + 2] = _mm512_shuffle_f64x2(r[k + 2], r[k + 6], 0x88);
        o[k + 6] = _mm512_shuffle_f64x2(r[k + 2], r[k + 6], 0xDD);
    }
}

#define AVX512_T4(STORE)                                                                            \
    for (size_t j = 0; j < bj16; j += 16)                                                           \
        for (size_t i = 0; i < bi16; i += 16) {                                                     \
            __m512 c[16];                                                                           \
            t16x16_f32(s + i * ls + j, ls, c);                                                      \
            float *dp = d + j * ld + i;                                                             \
            for (int k = 0; k < 16; k++) STORE(dp + (size_t)k * ld, c[k]);                          \
        }

GP_AVX512_FN static void tile4_avx512(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const float *s = (const float *)s8;
    float *d = (float *)d8;
    size_t bi16 = bi & ~(size_t)15, bj16 = bj & ~(size_t)15;
    if (nt) { AVX512_T4(_mm512_stream_ps) } else { AVX512_T4(_mm512_storeu_ps) }
    if (bj16 < bj) tile_4(s8 + bj16 * 4, ls, d8 + bj16 * ld * 4, ld, bi, bj - bj16, 0);
    if (bi16 < bi) tile_4(s8 + bi16 * ls * 4, ls, d8 + bi16 * 4, ld, bi - bi16, bj16, 0);
}

#define AVX512_T8(STORE)                                                                            \
    for (size_t j = 0; j < bj8; j += 8)                                                             \
        for (size_t i = 0; i < bi8; i += 8) {                                                       \
            __m512d c[8];                                                                           \
            t8x8_f64(s + i * ls + j, ls, c);                                                        \
            double *dp = d + j * ld + i;                                                            \
            for (int k = 0; k < 8; k++) STORE(dp + (size_t)k * ld, c[k]);                           \
        }

GP_AVX512_FN static void tile8_avx512(const u8 *s8, size_t ls, u8 *d8, size_t ld, size_t bi, size_t bj, int nt)
{
    const double *s = (const double *)s8;
    double *d = (double *)d8;
    size_t bi8 = bi & ~(size_t)7, bj8 = bj & ~(size_t)7;
    if (nt) { AVX512_T8(_mm512_stream_pd) } else { AVX512_T8(_mm512_storeu_pd) }
    if (bj8 < bj) tile_8(s8 + bj8 * 8, ls, d8 + bj8 * ld * 8, ld, bi, bj - bj8, 0);
    if (bi8 < bi) tile_8(s8 + bi8 * ls * 8, ls, d8 + bi8 * 8, ld, bi - bi8, bj8, 0);
}

/* 1- and 2-byte elements with AVX-512BW: the four 128-bit lanes of a zmm hold four row groups
 * (16 rows of 16 bytes, or 8 rows of 8 x 2 B) of the same columns, so after the butterfly of
 * unpacks (U8_STAGE) register k is 64 contiguous bytes of dst row j + bitreverse(k): one
 * whole-line (streaming) store per dst line. 64 (32) rows per step; run from the scratch layout,
 * whose padded pitch keeps the 64 rows' src lines in L1 across the four column steps. */
#define GP_AVX512BW_FN __attribute__((target("avx512f,avx512bw")))
GP_AVX512BW_FN static inline __m512i ld4x16(const u8 *p, size_t step)
{
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)p));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(p + step)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(p + 2 * step)), 2);
    return _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(p + 3 * step)), 3);
}

/* es = 1 or 2: 4R rows (R = 16 / es) and R columns per step, lane L = rows i + RL .. + R-1. */
#define AVX512_T12(STORE)                                                                           \
    for (size_t j = 0; j < bjR; j += R)                                                             \
        for (size_t i = 0; i < bi4R; i += 4 * R) {                                                  \
            __m512i r[16];                                                                          \
            for (size_t k = 0; k < R; k++) r[k] = ld4x16(s + ((i + k) * ls + j) * es, R * ls * es); \
            if (es == 1) U8_STAGE(__m512i, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8, 16, 1)       \
            U8_STAGE(__m512i, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16, (int)R, (int)(2 / es))  \
            U8_STAGE(__m512i, _mm512_unpacklo_epi32, _mm512_unpackhi_epi32, (int)R, (int)(4 / es))  \
            U8_STAGE(__m512i, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64, (int)R, (int)(8 / es))  \
            for (size_t k = 0; k < R; k++) STORE((__m512i *)(d + ((j + brev[k]) * ld + i) * es), r[k]); \
        }

GP_AVX512BW_FN static inline void tile12_avx512(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj,
                                                int nt, const size_t es)
{
    const size_t R = 16 / es;
    const unsigned char *brev = es == 1 ? brev4 : brev3;
    const size_t bi4R = bi / (4 * R) * (4 * R), bjR = bj / R * R;
    if (nt) { AVX512_T12(_mm512_stream_si512) } else { AVX512_T12(_mm512_storeu_si512) }
    if (bjR < bj) (es == 1 ? tile_1 : tile_2)(s + bjR * es, ls, d + bjR * ld * es, ld, bi, bj - bjR, 0);
    if (bi4R < bi) tile12_avx2(s + bi4R * ls * es, ls, d + bi4R * es, ld, bi - bi4R, bjR, es);
}
GP_AVX512BW_FN static void tile1_avx512(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)
{
    tile12_avx512(s, ls, d, ld, bi, bj, nt, 1);
}
GP_AVX512BW_FN static void tile2_avx512(const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi, size_t bj, int nt)
{
    tile12_avx512(s, ls, d, ld, bi, bj, nt, 2);
}
#endif /* GP_HAVE_AVX512 */

/* ------------------------------------------------------------------------------------------ */
/* Scratch buffers (two per thread, grown on demand, kept for the life of the thread and freed  */
/* when it exits: a key's destructor, since the pipeline's worker threads come and go)          */
/* ------------------------------------------------------------------------------------------ */
static _Thread_local u8 *t_scratch;
static _Thread_local size_t t_scratch_bytes;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ok;

static void scratch_key_make(void)
{
    scratch_key_ok = pthread_key_create(&scratch_key, free) == 0;
}

/* The main thread's buffer: key destructors do not run when the process exits. */
static pthread_t main_thread;
__attribute__((constructor)) static void scratch_note_main(void)
{
    main_thread = pthread_self();   /* constructors run on the main thread */
}

static void scratch_free_main(void)
{
    free(t_scratch);
    t_scratch = NULL;
    t_scratch_bytes = 0;
}

static u8 *scratch(size_t bytes)
{
    if (bytes <= t_scratch_bytes) return t_scratch;
    pthread_once(&scratch_once, scratch_key_make);
    void *p = NULL;
    if (!scratch_key_ok || posix_memalign(&p, 64, bytes) != 0) return NULL;
    if (!t_scratch && pthread_equal(pthread_self(), main_thread)) atexit(scratch_free_main);
    free(t_scratch);
    t_scratch = p;
    t_scratch_bytes = bytes;
    pthread_setspecific(scratch_key, p);   /* freed by the key's destructor at thread exit */
    return t_scratch;
}

/* ------------------------------------------------------------------------------------------ */
/* Driver                                                                                       */
/* ------------------------------------------------------------------------------------------ */
static size_t round_down(size_t v, size_t m) { return v >= m ? v - v % m : v; }

static inline void call_tile(tile_fn fn, const u8 *s, size_t ls, u8 *d, size_t ld, size_t bi,
                             size_t bj, size_t es, int nt)
{
    if (fn) fn(s, ls, d, ld, bi, bj, nt);
    else tile_generic_es(s, ls, d, ld, bi, bj, es);
}

/* Copy bytes [from,to) of a block of rows (rowbytes each, src pitch sstride) into buf (pitch
 * bytes per row), in row order: the reads are one long sequential stream per row piece. */
static void copy_range(u8 *buf, size_t pitch, const u8 *sp, size_t sstride, size_t rowbytes,
                       size_t from, size_t to)
{
    while (from < to) {
        size_t r = from / rowbytes, o = from % rowbytes;
        size_t n = min_sz(rowbytes - o, to - from);
        memcpy(buf + r * pitch + o, sp + r * sstride + o, n);
        from += n;
    }
}

/* fn == NULL: generic element size, copied by tile_generic_es. */
static void run_blocks(const u8 *s, size_t ls, u8 *d, size_t ld, size_t rows, size_t cols, size_t es,
                       tile_fn fn, int nt, int fullline, size_t cstep)
{
    const size_t sstride = ls * es;
    /* strips: the kernel is called on bi x w sub-blocks, w columns = one 64-byte src line */
    size_t w = es >= 64 ? 1 : 64 / es;
    if (w < 16 && es <= 4) w = 16;

    /* prefetch distance in strips: 2 for 4-byte bands (32-row bands: 0.785 -> 0.815x memcpy,
     * median of 6 interleaved runs; 8-byte bands lose 0.04 with 2), else 1 */
    const size_t pf = g_pf != (size_t)-1 ? g_pf : fullline && es == 4 ? 2 : 1;
    /* 4-byte bands prefetch into L2, not L1: a band's 32 src lines of one strip share one L1 set
     * when the row pitch is a multiple of 4 KiB (8 ways: 32 KiB L1d on Zen 4), so lines prefetched into L1
     * two strips ahead evicted each other before use (8192^2 f32: 0.72-0.78 -> 0.84-0.93x
     * memcpy, 5 interleaved rounds; 8 B bands, 16 lines at distance 1, do not gain) */
    const int pf_l2 = es == 4;
    if (rows * cols * es <= g_direct) { /* small: cache-resident, no scratch */
        call_tile(fn, s, ls, d, ld, rows, cols, es, nt);
        goto done;
    }

    if (fullline) { /* bands of full rows, straight from src (see the header comment) */
        size_t band = g_band ? g_band : 128 / es; /* 128-byte dst runs: measured best */
        for (size_t i0 = 0; i0 < rows; i0 += band) {
            size_t ni = min_sz(rows - i0, band);
            const u8 *sb = s + i0 * sstride;
            u8 *db = d + i0 * es;
            for (size_t jj = 0; jj < cols; jj += w) {
#if defined(__GNUC__)
                if (pf && jj + pf * w < cols) {
                    const u8 *p = sb + (jj + pf * w) * es;
                    if (pf_l2) /* into L2 only (prefetcht1) */
                        for (size_t r = 0; r < ni; r++) __builtin_prefetch(p + r * sstride, 0, 2);
                    else
                        for (size_t r = 0; r < ni; r++) __builtin_prefetch(p + r * sstride, 0, 3);
                }
#endif
                call_tile(fn, sb + jj * es, ls, db + jj * ld * es, ld, ni, min_sz(w, cols - jj), es, nt);
            }
        }
        goto done;
    }

    /* block: bj columns (row pieces of ~g_run bytes: long sequential reads), bi rows (so that
     * a block is ~g_block bytes and its dst pieces are whole 64-byte lines) */
    size_t bj = g_run / es, bi;
    if (bj < 1) bj = 1;
    bj = round_down(bj, 16);
    if (bj >= cols) bj = cols;
    bi = g_block / (bj * es);
    if (bi < 1) bi = 1;
    size_t g = 64; /* bi * es a multiple of 64 (whole dst lines) and bi a multiple of 16 */
    while (es % g) g >>= 1;
    bi = round_down(bi, 64 / g > 16 ? 64 / g : 16);
    if (bi >= rows) bi = rows;
    /* nt needs every block's dst piece to start on a line: bi * es multiple of 64 */
    if (nt && (bi * es) % 64 != 0 && bi != rows) nt = 0;

    const size_t pitch = (bj + (64 + es - 1) / es) * es; /* one line of padding per row */
    u8 *buf = scratch(2 * bi * pitch);
    if (!buf) { /* no scratch: straight from src (slower, still correct) */
        for (size_t i0 = 0; i0 < rows; i0 += bi)
            for (size_t j0 = 0; j0 < cols; j0 += bj)
                call_tile(fn, s + i0 * sstride + j0 * es, ls, d + (j0 * ld + i0) * es, ld,
                          min_sz(rows - i0, bi), min_sz(cols - j0, bj), es, nt);
        goto done;
    }
    u8 *cur = buf, *nxt = buf + bi * pitch;

    /* Blocks in src order (i0 outer, j0 inner). While block k is transposed out of one scratch
     * buffer, block k+1 is copied into the other, a slice after each strip: the sequential reads
     * from memory overlap the streaming writes. */
    size_t i0 = 0, j0 = 0;
    {
        size_t rb = min_sz(cols, bj) * es;
        copy_range(cur, pitch, s, sstride, rb, 0, min_sz(rows, bi) * rb);
    }
    for (;;) {
        size_t ni = min_sz(rows - i0, bi), nj = min_sz(cols - j0, bj);
        size_t i1 = i0, j1 = j0 + bj; /* next block */
        if (j1 >= cols) { j1 = 0; i1 = i0 + bi; }
        const int more = i1 < rows;
        size_t total = 0, rb1 = 0;
        const u8 *sp1 = NULL;
        if (more) {
            rb1 = min_sz(cols - j1, bj) * es;
            total = min_sz(rows - i1, bi) * rb1;
            sp1 = s + i1 * sstride + j1 * es;
        }
        size_t nstrips = (nj + w - 1) / w;
        size_t per = (total + nstrips - 1) / nstrips; /* bytes of the next block per strip */
        per = (per + 63) & ~(size_t)63;
        u8 *dblk = d + (j0 * ld + i0) * es;
        size_t from = 0;
        for (size_t jj = 0; jj < nj; jj += w) {
#if defined(__GNUC__)
            if (pf && jj + pf * w < nj) /* next strips' scratch lines (they may be in L3) */
                for (size_t r = 0; r < ni; r++) __builtin_prefetch(cur + r * pitch + (jj + pf * w) * es, 0, 3);
#endif
            call_tile(fn, cur + jj * es, pitch / es, dblk + jj * ld * es, ld, ni, min_sz(w, nj - jj), es, nt);
            if (from < total && ((jj / w + 1) % cstep == 0 || jj + w >= nj)) {
                size_t to = min_sz(from + per * cstep, total);
                copy_range(nxt, pitch, sp1, sstride, rb1, from, to);
                from = to;
            }
        }
        if (!more) break;
        u8 *tmp = cur; cur = nxt; nxt = tmp;
        i0 = i1;
        j0 = j1;
    }
done:
#if GP_HAVE_SSE2
    if (nt) _mm_sfence();
#endif
    return;
}

/* Dense: src rows x cols, dst cols x rows. */
void gp_cpu_transpose(const void *src, void *dst, size_t rows, size_t cols, size_t esize)
{
    gp_cpu_transpose_pitched(src, cols, dst, rows, rows, cols, esize);
}

/* One thread's transpose (the whole matrix, or one part of it for the pool below). */
static void transpose_one(const void *src, size_t ls, void *dst, size_t ld, size_t rows, size_t cols, size_t esize)
{
    const u8 *s = (const u8 *)src;
    u8 *d = (u8 *)dst;
    if (rows == 1 || cols == 1) { /* a vector: its transpose has the same bytes */
        if ((rows == 1 && ld == 1) || (cols == 1 && ls == 1)) {
            memcpy(d, s, rows * cols * esize);
        } else if (rows == 1) {
            for (size_t j = 0; j < cols; j++) memcpy(d + j * ld * esize, s + j * esize, esize);
        } else {
            for (size_t i = 0; i < rows; i++) memcpy(d + i * esize, s + i * ls * esize, esize);
        }
        return;
    }
    gp_cpu_init();
    const size_t bytes = rows * cols * esize;
    int nt = g_nt >= 0 ? g_nt : bytes >= GP_NT_THRESHOLD;
    /* whole aligned lines only: every dst row starts on a line and the tiles fill whole lines */
    if ((uintptr_t)d % 64 != 0 || (ld * esize) % 64 != 0 || (rows * esize) % 64 != 0) nt = 0;
    if (g_isa < ISA_SSE2) nt = 0;
    const int nt0 = nt;

    tile_fn fn = NULL;
    switch (esize) {
    case 1: fn = tile_1; break;
    case 2: fn = tile_2; break;
    case 3: fn = tile_3; break;
    case 4: fn = tile_4; break;
    case 6: fn = tile_6; break;
    case 8: fn = tile_8; break;
    case 12: fn = tile_12; break;
    case 16: fn = tile_16; break;
    case 24: fn = tile_24; break;
    case 32: fn = tile_32; break;
    default: fn = NULL; break;
    }
#if GP_HAVE_SSE2
    if (g_isa >= ISA_SSE2) {
        if (esize == 4) fn = tile4_sse2;
        if (esize == 8) fn = tile8_sse2;
        if (esize == 16) fn = tile16_sse2;
    }
#endif
#if GP_HAVE_AVX2
    if (g_isa >= ISA_AVX2) {
        /* 4 B: the staged kernel from the scratch layout unless GP_CPU_LAYOUT=band (the bands
         * below); 8 B keeps the bands (staged: 0.43-0.55x memcpy against 0.42-0.56, no gain) */
        if (esize == 4) fn = g_layout == 0 ? tile4_avx2 : tile4_avx2_st;
        if (esize == 8) fn = tile8_avx2;
        if (esize == 1) fn = tile1_avx2;
        if (esize == 2) fn = tile2_avx2;
    }
#endif
#if GP_HAVE_AVX512
    if (g_isa >= ISA_AVX512) {
        if (esize == 4) fn = tile4_avx512;
        if (esize == 8) fn = tile8_avx512;
        if (g_bw && esize == 1) fn = tile1_avx512;
        if (g_bw && esize == 2) fn = tile2_avx512;
    }
#endif
    /* scalar kernels use plain stores */
    if (fn == NULL || !(esize == 4 || esize == 8 || esize == 16)) nt = 0;
#if GP_HAVE_AVX512
    if (fn == tile1_avx512 || fn == tile2_avx512) nt = nt0; /* whole-line stores */
#endif
    /* kernels that read and write whole lines run over bands of rows; the others need the
     * padded scratch to keep the src lines they reuse in cache */
    int fullline = 0;
#if GP_HAVE_SSE2
    fullline = (fn == tile16_sse2);
#endif
#if GP_HAVE_AVX2
    fullline = fullline || fn == tile4_avx2 || fn == tile8_avx2;
#endif
#if GP_HAVE_AVX512
    fullline = fullline || fn == tile4_avx512 || fn == tile8_avx512;
#endif
    if (g_layout == 1) fullline = 0;
    /* strips between slices of the next block's copy: the staged kernels copy after every 16th
     * strip (Zen 3, 8192^2, 4 interleaved rounds: f32 0.39-0.44x memcpy against 0.38-0.42 after
     * every 4th and 0.36 after each; the AVX2 bands 0.32-0.37), the others after each */
    size_t cstep = 1;
#if GP_HAVE_AVX2
    if (fn == tile4_avx2_st) cstep = 16;
#endif
    if (g_cstep) cstep = g_cstep;
    run_blocks(s, ls, d, ld, rows, cols, esize, fn, nt, fullline, cstep);
}

/* ------------------------------------------------------------------------------------------ */
/* Threads: a call of >= GP_PAR_MIN_BYTES is cut into parts, one per thread, each a transpose   */
/* of its own rows (or, for matrices wider than tall, its own columns) of src, so every part is  */
/* the single-threaded kernel on a sub-matrix with the same pitches. Parts start on multiples of */
/* 64 elements: their dst pieces start on whole lines wherever the whole call's do. One core of  */
/* a Zen 3 reaches ~0.45x memcpy with its load and store streams alone (latency-bound), while    */
/* one memcpy already saturates the memory: two threads reach 0.72-0.77x of it; 16 threads of a  */
/* 16-core Xeon 1.15x a 16-thread memcpy (f32; bench/NOTES.md, 2026-12-02, eighth session).      */
/* ------------------------------------------------------------------------------------------ */
#define GP_PAR_MIN_BYTES ((size_t)4 << 20)

typedef struct {
    const u8 *s;
    u8 *d;
    size_t ls, ld, rows, cols, es;
} part_job;

static pthread_mutex_t pool_call = PTHREAD_MUTEX_INITIALIZER; /* one threaded call at a time */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_go = PTHREAD_COND_INITIALIZER, pool_done = PTHREAD_COND_INITIALIZER;
static part_job pool_job[GP_CPU_MAX_THREADS];
static int pool_started = 0;      /* helper threads running (each waits for its part) */
static int pool_active = 0;       /* parts of the current call, helpers 1..pool_active-1 */
static int pool_left = 0;         /* helper parts not yet finished */
static unsigned long pool_gen = 0;
static int g_threads = 0;         /* 0: not set (GP_CPU_THREADS, else 1) */

static void *pool_main(void *arg)
{
    const int me = (int)(intptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool_mu);
        while (pool_gen == seen) pthread_cond_wait(&pool_go, &pool_mu);
        seen = pool_gen;
        const int mine = me < pool_active;
        part_job j = pool_job[me];
        pthread_mutex_unlock(&pool_mu);
        if (!mine) continue;
        transpose_one(j.s, j.ls, j.d, j.ld, j.rows, j.cols, j.es);
        pthread_mutex_lock(&pool_mu);
        if (--pool_left == 0) pthread_cond_signal(&pool_done);
        pthread_mutex_unlock(&pool_mu);
    }
    return NULL;
}

void gp_cpu_set_threads(int n)
{
    g_threads = n < 1 ? 1 : n > GP_CPU_MAX_THREADS ? GP_CPU_MAX_THREADS : n;
}

static int env_threads = 1;         /* GP_CPU_THREADS, read once */
static pthread_once_t env_threads_once = PTHREAD_ONCE_INIT;

static void read_env_threads(void)
{
    env_threads = (int)env_size("GP_CPU_THREADS", 1, 1, GP_CPU_MAX_THREADS);
}

int gp_cpu_threads(void)
{
    if (g_threads) return g_threads;
    pthread_once(&env_threads_once, read_env_threads);
    return env_threads;
}

/* Cuts the call into np <= nt parts of >= 64 elements along its longer side; returns np. */
static int cut_parts(part_job *jobs, int nt, const u8 *src, size_t ls, u8 *dst, size_t ld, size_t rows, size_t cols,
                     size_t esize)
{
    const int by_rows = rows >= cols;
    const size_t len = by_rows ? rows : cols;
    const size_t per = ((len + (size_t)nt - 1) / (size_t)nt + 63) & ~(size_t)63;
    int np = 0;
    for (size_t a = 0; a < len && np < nt; a += per, np++) {
        const size_t n = min_sz(per, len - a);
        part_job *j = &jobs[np];
        j->ls = ls;
        j->ld = ld;
        j->es = esize;
        if (by_rows) {   /* src rows [a, a+n): dst columns [a, a+n) */
            j->s = src + a * ls * esize;
            j->d = dst + a * esize;
            j->rows = n;
            j->cols = cols;
        } else {         /* src columns [a, a+n): dst rows [a, a+n) */
            j->s = src + a * esize;
            j->d = dst + a * ld * esize;
            j->rows = rows;
            j->cols = n;
        }
    }
    return np;
}

void gp_cpu_transpose_pitched(const void *src, size_t ls, void *dst, size_t ld, size_t rows, size_t cols,
                              size_t esize)
{
    if (rows == 0 || cols == 0 || esize == 0) return;
    int nt = gp_cpu_threads();
    const size_t len = rows >= cols ? rows : cols;
    if (nt > 1 && (size_t)nt > len / 64) nt = (int)(len / 64);   /* >= 64 elements per part */
    if (nt <= 1 || rows * cols * esize < GP_PAR_MIN_BYTES || pthread_mutex_trylock(&pool_call) != 0) {
        transpose_one(src, ls, dst, ld, rows, cols, esize);   /* also while another call holds the pool */
        return;
    }
    pthread_mutex_lock(&pool_mu);
    while (pool_started < nt - 1) {   /* helpers are started once and kept */
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        const int rc = pthread_create(&t, &at, pool_main, (void *)(intptr_t)(pool_started + 1));
        pthread_attr_destroy(&at);
        if (rc != 0) break;   /* fewer threads: fewer, larger parts */
        pool_started++;
    }
    if (nt > pool_started + 1) nt = pool_started + 1;
    part_job jobs[GP_CPU_MAX_THREADS];
    const int np = nt > 1 ? cut_parts(jobs, nt, (const u8 *)src, ls, (u8 *)dst, ld, rows, cols, esize) : 0;
    if (np < 2) {
        pthread_mutex_unlock(&pool_mu);
        pthread_mutex_unlock(&pool_call);
        transpose_one(src, ls, dst, ld, rows, cols, esize);
        return;
    }
    for (int i = 1; i < np; i++) pool_job[i] = jobs[i];
    pool_active = np;
    pool_left = np - 1;
    pool_gen++;
    pthread_cond_broadcast(&pool_go);
    pthread_mutex_unlock(&pool_mu);
    transpose_one(jobs[0].s, ls, jobs[0].d, ld, jobs[0].rows, jobs[0].cols, esize);
    pthread_mutex_lock(&pool_mu);
    while (pool_left > 0) pthread_cond_wait(&pool_done, &pool_mu);
    pthread_mutex_unlock(&pool_mu);
    pthread_mutex_unlock(&pool_call);
}
