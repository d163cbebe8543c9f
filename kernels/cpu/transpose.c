/* kernels/cpu/transpose.c — cache-blocked out-of-place transpose of a dense row-major matrix.
 *
 * dst (cols x rows) = transpose of src (rows x cols), elements of esize bytes moved exactly.
 *
 * Layout of the work (every path):
 *   - src is walked in horizontal bands of BAND rows; inside a band the columns are walked left to
 *     right in groups that fill one 64-byte line of src per row, so each src line is fetched once
 *     and consumed while it is still in L1 (BAND lines x 64 B = 8-16 KiB);
 *   - each group writes, for each of its columns, BAND contiguous elements of one dst row: long
 *     enough runs that whole 64-byte dst lines are written back to back, which is what lets
 *     non-temporal stores (large outputs) bypass the cache without partial-line penalties.
 *   - the micro kernels are fixed-size element copies (1, 2, 4, 8, 16 B and a few odd sizes
 *     through fixed-size memcpy, which the compiler turns into register moves), SSE2 4x4 (4 B) and
 *     2x2 (8 B) register transposes, and AVX2 8x8 (4 B) / 4x4 (8 B) ones chosen at run time
 *     with __builtin_cpu_supports("avx2"); every other size goes through a generic memcpy path.
 *
 * Environment (read once):
 *   GP_CPU_NT=0|1   force non-temporal stores off/on (default: on when the output is larger than
 *                   GP_NT_THRESHOLD bytes and dst rows are 16/32-byte aligned).
 *   GP_CPU_ISA=scalar|sse2|avx2   cap the instruction set used (tests and benchmarks).
 * Single-threaded: one MPI rank is one process; parallelism comes from ranks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define GP_X86 1
#include <immintrin.h>
#else
#define GP_X86 0
#endif

#if GP_X86 && defined(__GNUC__) && !defined(__AVX2__)
#define GP_HAVE_AVX2_TARGET 1 /* compile AVX2 kernels with a target attribute, dispatch at run time */
#define GP_AVX2_FN __attribute__((target("avx2")))
#elif GP_X86 && defined(__AVX2__)
#define GP_HAVE_AVX2_TARGET 1
#define GP_AVX2_FN
#else
#define GP_HAVE_AVX2_TARGET 0
#endif

/* Output size above which stores bypass the cache (the result does not fit in L2/L3 anyway). */
#define GP_NT_THRESHOLD ((size_t)8 << 20)
/* Rows of src per band: band lines stay in L1 while a 64-byte line of each row is consumed. */
#define BAND 128

typedef unsigned char u8;

/* ------------------------------------------------------------------------------------------ */
/* Configuration                                                                               */
/* ------------------------------------------------------------------------------------------ */
enum { ISA_SCALAR = 0, ISA_SSE2 = 1, ISA_AVX2 = 2 };

static int g_isa = -1; /* detected and capped ISA */
static int g_nt = -1;  /* -1 auto, 0 off, 1 on */
static size_t g_band = BAND; /* experiment knob: GP_CPU_BAND (multiple of 16) */

static void gp_cpu_init(void)
{
    if (g_isa >= 0) return;
    int isa = ISA_SCALAR, nt = -1;
#if GP_X86 && defined(__SSE2__)
    isa = ISA_SSE2;
#endif
#if GP_HAVE_AVX2_TARGET
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) isa = ISA_AVX2;
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
    if (e && (e[0] == '0' || e[0] == '1')) nt = e[0] - '0';
    g_nt = nt;
    e = getenv("GP_CPU_BAND");
    if (e && atoi(e) >= 16) g_band = (size_t)atoi(e) & ~(size_t)15;
    g_isa = isa; /* idempotent: concurrent first calls compute the same values */
}

const char *gp_cpu_isa_name(void)
{
    gp_cpu_init();
    return g_isa == ISA_AVX2 ? "avx2" : g_isa == ISA_SSE2 ? "sse2" : "scalar";
}

/* ------------------------------------------------------------------------------------------ */
/* Scalar paths: fixed-size element copies, blocked                                            */
/* ------------------------------------------------------------------------------------------ */
/* Copy rows [i0,i1) x cols [j0,j1) of the element grid, dst-row order (j outer, i inner). */
#define DEF_SCALAR_RECT(N)                                                                          \
    static inline void rect_##N(const u8 *restrict s, u8 *restrict d, size_t rows, size_t cols,     \
                                size_t i0, size_t i1, size_t j0, size_t j1)                        \
    {                                                                                               \
        for (size_t j = j0; j < j1; j++) {                                                          \
            u8 *dr = d + (j * rows) * (N);                                                          \
            const u8 *sc = s + j * (N);                                                             \
            for (size_t i = i0; i < i1; i++) memcpy(dr + i * (N), sc + i * cols * (N), (N));        \
        }                                                                                           \
    }                                                                                               \
    static void scalar_##N(const u8 *restrict s, u8 *restrict d, size_t rows, size_t cols)         \
    {                                                                                               \
        /* columns per group: one 64-byte src line (at least 1 element) */                          \
        const size_t cg = (N) >= 64 ? 1 : 64 / (N);                                                 \
        const size_t band = (N) >= 32 ? 32 : BAND;                                                  \
        for (size_t i0 = 0; i0 < rows; i0 += band) {                                                \
            size_t i1 = i0 + band < rows ? i0 + band : rows;                                        \
            for (size_t j0 = 0; j0 < cols; j0 += cg) {                                              \
                size_t j1 = j0 + cg < cols ? j0 + cg : cols;                                        \
                rect_##N(s, d, rows, cols, i0, i1, j0, j1);                                         \
            }                                                                                       \
        }                                                                                           \
    }

DEF_SCALAR_RECT(1)
DEF_SCALAR_RECT(2)
DEF_SCALAR_RECT(3)
DEF_SCALAR_RECT(4)
DEF_SCALAR_RECT(6)
DEF_SCALAR_RECT(8)
DEF_SCALAR_RECT(12)
DEF_SCALAR_RECT(16)
DEF_SCALAR_RECT(24)
DEF_SCALAR_RECT(32)

/* Any element size: memcpy of esize bytes per element, same blocking. */
static void scalar_generic(const u8 *restrict s, u8 *restrict d, size_t rows, size_t cols, size_t es)
{
    const size_t cg = es >= 64 ? 1 : 64 / es;
    const size_t band = es >= 32 ? 32 : BAND;
    const size_t sstride = cols * es;
    for (size_t i0 = 0; i0 < rows; i0 += band) {
        size_t i1 = i0 + band < rows ? i0 + band : rows;
        for (size_t j0 = 0; j0 < cols; j0 += cg) {
            size_t j1 = j0 + cg < cols ? j0 + cg : cols;
            for (size_t j = j0; j < j1; j++) {
                u8 *dr = d + j * rows * es;
                const u8 *sc = s + j * es;
                for (size_t i = i0; i < i1; i++) memcpy(dr + i * es, sc + i * sstride, es);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* AVX2 kernels (4 and 8 bytes)                                                                */
/* ------------------------------------------------------------------------------------------ */
#if GP_HAVE_AVX2_TARGET

/* 8x8 transpose of 4-byte elements: s points at (i,j), ss/ds strides in elements. */
GP_AVX2_FN static inline void t8x8_f32(const float *s, size_t ss, __m256 *o)
{
    /* rows k and k+4 share a register: lane 0 = row k, lane 1 = row k+4 */
    __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 0 * ss)), _mm_loadu_ps(s + 4 * ss), 1);
    __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 1 * ss)), _mm_loadu_ps(s + 5 * ss), 1);
    __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 2 * ss)), _mm_loadu_ps(s + 6 * ss), 1);
    __m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 3 * ss)), _mm_loadu_ps(s + 7 * ss), 1);
    __m256 r4 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 0 * ss + 4)), _mm_loadu_ps(s + 4 * ss + 4), 1);
    __m256 r5 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 1 * ss + 4)), _mm_loadu_ps(s + 5 * ss + 4), 1);
    __m256 r6 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 2 * ss + 4)), _mm_loadu_ps(s + 6 * ss + 4), 1);
    __m256 r7 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 3 * ss + 4)), _mm_loadu_ps(s + 7 * ss + 4), 1);
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
    __m256d r0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(s + 0 * ss)), _mm_loadu_pd(s + 2 * ss), 1);
    __m256d r1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(s + 1 * ss)), _mm_loadu_pd(s + 3 * ss), 1);
    __m256d r2 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(s + 0 * ss + 2)), _mm_loadu_pd(s + 2 * ss + 2), 1);
    __m256d r3 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(s + 1 * ss + 2)), _mm_loadu_pd(s + 3 * ss + 2), 1);
    o[0] = _mm256_unpacklo_pd(r0, r1);
    o[1] = _mm256_unpackhi_pd(r0, r1);
    o[2] = _mm256_unpacklo_pd(r2, r3);
    o[3] = _mm256_unpackhi_pd(r2, r3);
}

/* 16x16 block of 4-byte elements: 16 whole 64-byte src lines in (8 at a time, so that a power-of-two
 * row stride, which maps every row to the same L1 set, never evicts a line before it is used up),
 * 16 whole 64-byte dst lines out. */
#define AVX2_K16(STORE)                                                                             \
    do {                                                                                            \
        __m256 a0[8], a1[8], b0[8], b1[8];                                                          \
        t8x8_f32(sp, cols, a0);               /* rows 0-7,  cols 0-7  */                            \
        t8x8_f32(sp + 8, cols, a1);           /* rows 0-7,  cols 8-15 */                            \
        t8x8_f32(sp + 8 * cols, cols, b0);    /* rows 8-15, cols 0-7  */                            \
        t8x8_f32(sp + 8 * cols + 8, cols, b1);/* rows 8-15, cols 8-15 */                            \
        for (int k = 0; k < 8; k++) {                                                               \
            STORE(dp + k * rows, a0[k]);                                                            \
            STORE(dp + k * rows + 8, b0[k]);                                                        \
        }                                                                                           \
        for (int k = 0; k < 8; k++) {                                                               \
            STORE(dp + (8 + k) * rows, a1[k]);                                                      \
            STORE(dp + (8 + k) * rows + 8, b1[k]);                                                  \
        }                                                                                           \
    } while (0)

GP_AVX2_FN static void avx2_4(const float *restrict s, float *restrict d, size_t rows, size_t cols, int nt)
{
    const size_t rfull = rows & ~(size_t)15, cfull = cols & ~(size_t)15;
    const size_t band = g_band;
    for (size_t i0 = 0; i0 < rfull; i0 += band) {
        size_t i1 = rfull - i0 < band ? rfull : i0 + band;
        for (size_t j = 0; j < cfull; j += 16)
            for (size_t i = i0; i < i1; i += 16) {
                const float *sp = s + i * cols + j;
                float *dp = d + j * rows + i;
                if (nt) AVX2_K16(_mm256_stream_ps);
                else AVX2_K16(_mm256_storeu_ps);
            }
    }
    if (nt) _mm_sfence();
    if (cfull < cols) rect_4((const u8 *)s, (u8 *)d, rows, cols, 0, rfull, cfull, cols);
    if (rfull < rows) rect_4((const u8 *)s, (u8 *)d, rows, cols, rfull, rows, 0, cols);
}

/* 8x8 block of 8-byte elements: 8 whole src lines in (4 at a time), 8 whole dst lines out. */
#define AVX2_K8(STORE)                                                                              \
    do {                                                                                            \
        __m256d a0[4], a1[4], b0[4], b1[4];                                                         \
        t4x4_f64(sp, cols, a0);                                                                     \
        t4x4_f64(sp + 4, cols, a1);                                                                 \
        t4x4_f64(sp + 4 * cols, cols, b0);                                                          \
        t4x4_f64(sp + 4 * cols + 4, cols, b1);                                                      \
        for (int k = 0; k < 4; k++) {                                                               \
            STORE(dp + k * rows, a0[k]);                                                            \
            STORE(dp + k * rows + 4, b0[k]);                                                        \
        }                                                                                           \
        for (int k = 0; k < 4; k++) {                                                               \
            STORE(dp + (4 + k) * rows, a1[k]);                                                      \
            STORE(dp + (4 + k) * rows + 4, b1[k]);                                                  \
        }                                                                                           \
    } while (0)

GP_AVX2_FN static void avx2_8(const double *restrict s, double *restrict d, size_t rows, size_t cols, int nt)
{
    const size_t rfull = rows & ~(size_t)7, cfull = cols & ~(size_t)7;
    const size_t band = g_band;
    for (size_t i0 = 0; i0 < rfull; i0 += band) {
        size_t i1 = rfull - i0 < band ? rfull : i0 + band;
        for (size_t j = 0; j < cfull; j += 8)
            for (size_t i = i0; i < i1; i += 8) {
                const double *sp = s + i * cols + j;
                double *dp = d + j * rows + i;
                if (nt) AVX2_K8(_mm256_stream_pd);
                else AVX2_K8(_mm256_storeu_pd);
            }
    }
    if (nt) _mm_sfence();
    if (cfull < cols) rect_8((const u8 *)s, (u8 *)d, rows, cols, 0, rfull, cfull, cols);
    if (rfull < rows) rect_8((const u8 *)s, (u8 *)d, rows, cols, rfull, rows, 0, cols);
}
#endif /* GP_HAVE_AVX2_TARGET */

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                  */
/* ------------------------------------------------------------------------------------------ */
void gp_cpu_transpose(const void *src, void *dst, size_t rows, size_t cols, size_t esize)
{
    if (rows == 0 || cols == 0 || esize == 0) return;
    const u8 *s = (const u8 *)src;
    u8 *d = (u8 *)dst;
    if (rows == 1 || cols == 1) { /* a vector: its transpose has the same bytes */
        memcpy(d, s, rows * cols * esize);
        return;
    }
    gp_cpu_init();
    const size_t bytes = rows * cols * esize;
    int nt = g_nt >= 0 ? g_nt : bytes >= GP_NT_THRESHOLD;

#if GP_HAVE_AVX2_TARGET
    if (g_isa >= ISA_AVX2) {
        /* streaming stores: whole 64-byte lines only */
        int al = ((uintptr_t)d % 64 == 0) && ((rows * esize) % 64 == 0);
        if (esize == 4) { avx2_4((const float *)s, (float *)d, rows, cols, nt && al); return; }
        if (esize == 8) { avx2_8((const double *)s, (double *)d, rows, cols, nt && al); return; }
    }
#endif
    switch (esize) {
    case 1: scalar_1(s, d, rows, cols); return;
    case 2: scalar_2(s, d, rows, cols); return;
    case 3: scalar_3(s, d, rows, cols); return;
    case 4: scalar_4(s, d, rows, cols); return;
    case 6: scalar_6(s, d, rows, cols); return;
    case 8: scalar_8(s, d, rows, cols); return;
    case 12: scalar_12(s, d, rows, cols); return;
    case 16: scalar_16(s, d, rows, cols); return;
    case 24: scalar_24(s, d, rows, cols); return;
    case 32: scalar_32(s, d, rows, cols); return;
    default: scalar_generic(s, d, rows, cols, esize); return;
    }
}
