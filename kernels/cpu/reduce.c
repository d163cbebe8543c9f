/* kernels/cpu/reduce.c — CPU panel kernels of `gpipe reduce` and `gpipe stats`: exact sums
 * (two-term TwoSum expansions in front of the pipeline/xacc.h superaccumulator, 128-bit partial
 * sums for integers), extrema over a total order, and the one-pass stats. Same contracts and
 * bits as kernels/cuda/reduce.cu. Without CUDA this file also provides the gp_cuda_r* stubs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL   /* gp_rhash (element sizes other than 1, 2, 4, 8) without a library call */
#include <xxhash.h>
#if defined(__SSE2__) && !defined(GP_NO_SSE2)   /* GP_NO_SSE2: the portable path, for its test */
#include <emmintrin.h>
#endif
#include "pipeline/reduce.h"
#include "pipeline/rhash.h"
#include "pipeline/status.h"

/* ---- names and formats -------------------------------------------------------------------- */
static const char *op_names[GP_OP_N] = {"sum", "mean", "sumsq", "norm2", "min", "max", "absmax", "argmin", "argmax"};
static const char *type_names[GP_RT_N] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
static const size_t type_sizes[GP_RT_N] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

const char *gp_rop_name(gp_rop op) { return op < GP_OP_N ? op_names[op] : "?"; }
const char *gp_rtype_name(gp_rtype t) { return t < GP_RT_N ? type_names[t] : "?"; }
size_t gp_rtype_size(gp_rtype t) { return t < GP_RT_N ? type_sizes[t] : 0; }
int gp_rtype_is_float(gp_rtype t) { return t == GP_RT_F32 || t == GP_RT_F64; }
int gp_rtype_is_unsigned(gp_rtype t) { return t >= GP_RT_U8 && t <= GP_RT_U64; }

gp_rkind gp_rop_kind(gp_rop op)
{
    switch (op) {
    case GP_OP_SUM: case GP_OP_MEAN: return GP_RK_SUM;
    case GP_OP_SUMSQ: case GP_OP_NORM2: return GP_RK_SQ;
    case GP_OP_MIN: return GP_RK_MIN;
    case GP_OP_MAX: return GP_RK_MAX;
    case GP_OP_ARGMIN: return GP_RK_ARGMIN;
    case GP_OP_ARGMAX: return GP_RK_ARGMAX;
    default: return GP_RK_ABSMAX;
    }
}

gp_xfmt gp_rfmt(gp_rtype t, gp_rkind k)
{
    if (t == GP_RT_F64) return GP_XFMT_F64;
    if (t == GP_RT_F32) return k == GP_RK_SQ ? GP_XFMT_F32SQ : GP_XFMT_F32;
    return k == GP_RK_SQ ? GP_XFMT_INTSQ : GP_XFMT_INT;
}

/* ---- helpers -------------------------------------------------------------------------------- */
#define CHUNK ((size_t)1 << 24)   /* elements (or rows) between normalisations: << 2^30 deposits */

/* Counts a NaN or infinity into sp (NaN, +Inf, -Inf); returns 1 when d is not finite. */
static inline int special(double d, int sq, int64_t *sp)
{
    uint64_t b = gp_dbits(d);
    if ((b & 0x7FF0000000000000ull) != 0x7FF0000000000000ull) return 0;
    if (b & 0xFFFFFFFFFFFFFull) sp[0]++;
    else if ((b >> 63) && !sq) sp[2]++;
    else sp[1]++;
    return 1;
}

/* One finite-or-not value into an expansion a (and the accumulator acc on spills). */
static inline void add_val(double d, int sq, double *a, int64_t *acc, gp_xfmt f)
{
    if (special(d, sq, acc + f.nl)) return;
    if (sq) {
        d = gp_mul_rn(d, d);
        if (special(d, 1, acc + f.nl)) return;   /* |x| > 2^512: x^2 overflows to +Inf */
    }
    gp_xexp_add(a, d, acc, f.lo);
}

static void dep128(int64_t *limb, __int128 v)
{
    int neg = v < 0;
    unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    gp_xdep_m(limb, 0, (uint64_t)m, neg);
    gp_xdep_m(limb, 64, (uint64_t)(m >> 64), neg);
}
static void depu192(int64_t *limb, unsigned __int128 lo, uint64_t carry)
{
    gp_xdep_m(limb, 0, (uint64_t)lo, 0);
    gp_xdep_m(limb, 64, (uint64_t)(lo >> 64), 0);
    gp_xdep_m(limb, 128, carry, 0);
}

/* ---- exact sums: floats in lanes of expansions ---------------------------------------------------- */
/* f64 sums and the sums of squares go into many two-term expansions side by side ("lanes", a
 * loop the compiler vectorises) instead of four scalar ones: value i of a block goes into lane
 * i % L by the two TwoSums of gp_xexp_add, and a non-zero second error is deposited. The sum is
 * exact either way, so the bits are those of the element-by-element path. TwoSum is error-free
 * for finite doubles as long as nothing overflows: a block enters the lanes only if all of its
 * values are below LIM = 2^990 (else, and for a NaN or an Inf, it goes element by element, which
 * counts them), and the lanes are deposited at the end of every CHUNK, so a lane holds at most
 * 2^24 values (|sum| < 2^1014).
 * A square is rounded once (d * d, never fused with the add after it: fp-contract off). */
#define LANES 32      /* lanes of the whole-panel and row sums */
#define VB 256        /* values per lanes call at most */
#define LIM 0x1p990
#define CT 256       /* columns per lanes call */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GP_NO_SSE2)
#define GP_LANES __attribute__((target_clones("avx2", "default"), optimize("fp-contract=off")))
#elif defined(__GNUC__) && !defined(__clang__)
#define GP_LANES __attribute__((optimize("fp-contract=off")))
#else
#define GP_LANES   /* clang contracts only within one expression */
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GP_NO_SSE2)
#define GP_WIDE __attribute__((target_clones("avx2", "default")))   /* 32-byte vectors where the CPU has them */
#else
#define GP_WIDE
#endif
/* The n values of p (n <= VB, a multiple of L; squared when sq) into lanes a0, a1 (value i into
 * lane i % L), their second errors into sp[0..n), if every one of them is below LIM. Returns 0
 * (nothing added) when one is not or is a NaN, else 1, or 3 when a second error is not zero. */
#define LANES_BLOCK(NAME, T)                                                                            \
    GP_LANES static int NAME##_lanes(const T *restrict p, size_t n, size_t L, int sq, double *restrict a0, \
                                     double *restrict a1, double *restrict sp)                      \
    {                                                                                               \
        double v[VB];                                                                               \
        int ok = 1;                                                                                 \
        if (sq)                                                                                     \
            for (size_t i = 0; i < n; i++) {                                                        \
                const double d = (double)p[i];                                                      \
                v[i] = d * d;                                                                       \
                ok &= v[i] < LIM;                                                                   \
            }                                                                                       \
        else                                                                                        \
            for (size_t i = 0; i < n; i++) {                                                        \
                v[i] = (double)p[i];                                                                \
                ok &= fabs(v[i]) < LIM;                                                             \
            }                                                                                       \
        if (!ok) return 0;                                                                          \
        double nz = 0;                                                                              \
        for (size_t j = 0; j < n; j += L)                                                           \
            for (size_t l = 0; l < L; l++) {                                                        \
                const double x = v[j + l], s = a0[l] + x, bp = s - a0[l];                           \
                const double e = (a0[l] - (s - bp)) + (x - bp);                                     \
                const double s2 = a1[l] + e, bp2 = s2 - a1[l];                                      \
                const double e2 = (a1[l] - (s2 - bp2)) + (e - bp2);                                 \
                a0[l] = s;                                                                          \
                a1[l] = s2;                                                                         \
                sp[j + l] = e2;                                                                     \
                nz = e2 != 0 ? 1 : nz;                                                              \
            }                                                                                       \
        return nz != 0 ? 3 : 1;                                                                     \
    }
LANES_BLOCK(f32, float)
LANES_BLOCK(f64, double)

/* Deposits lanes 0 .. L - 1 (lane l into the accumulator of column l % cols: acc + (l % cols) *
 * w) and clears them. */
static void lanes_out(double *a0, double *a1, size_t L, size_t cols, size_t w, int64_t *acc, int lo)
{
    for (size_t l = 0; l < L; l++) {
        int64_t *ac = acc + (l % cols) * w;
        if (a0[l] != 0) gp_xdep_d(ac, lo, a0[l]);
        if (a1[l] != 0) gp_xdep_d(ac, lo, a1[l]);
        a0[l] = a1[l] = 0;
    }
}
/* The second errors sp[0..n) of a lanes call, value i's into column (c0 + i) % cols. */
static void spills_out(const double *sp, size_t n, size_t c0, size_t cols, size_t w, int64_t *acc, int lo)
{
    for (size_t i = 0; i < n; i++)
        if (sp[i] != 0) gp_xdep_d(acc + ((c0 + i) % cols) * w, lo, sp[i]);
}

#define FSUM_KERNELS(NAME, T)                                                                           \
    static void NAME##_all(const T *x, size_t n, int sq, gp_xfmt f, int64_t *acc)                     \
    {                                                                                               \
        double a[4][GP_XK], a0[LANES] = {0}, a1[LANES] = {0}, sp[VB];                               \
        memset(a, 0, sizeof a);                                                                     \
        for (size_t done = 0; done < n;) {                                                          \
            size_t m = n - done < CHUNK ? n - done : CHUNK, i = 0;                                  \
            const T *p = x + done;                                                                  \
            for (; i + VB <= m; i += VB) {                                                          \
                const int r = NAME##_lanes(p + i, VB, LANES, sq, a0, a1, sp);                       \
                if (!r)                                                                             \
                    for (size_t j = 0; j < VB; j++) add_val((double)p[i + j], sq, a[j & 3], acc, f); \
                if (r == 3) spills_out(sp, VB, 0, 1, 0, acc, f.lo);                                 \
            }                                                                                       \
            for (; i < m; i++) add_val((double)p[i], sq, a[i & 3], acc, f);                         \
            for (int j = 0; j < 4; j++) gp_xexp_flush(a[j], acc, f.lo);                             \
            lanes_out(a0, a1, LANES, 1, 0, acc, f.lo);                                              \
            gp_xnorm(acc, f.nl);                                                                    \
            done += m;                                                                              \
        }                                                                                           \
    }                                                                                               \
    static void NAME##_rows(const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, int64_t *acc)    \
    {                                                                                               \
        size_t w = gp_rwords(f);                                                                    \
        for (size_t r = 0; r < rows; r++) NAME##_all(x + r * cols, cols, sq, f, acc + r * w);        \
    }                                                                                               \
    /* Columns: the lanes are columns (CT at a time), or, in a panel narrower than 32 columns, the \
     * lanes of k rows side by side (lane l is column l % cols). */                                 \
    static void NAME##_cols(const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, int64_t *acc)    \
    {                                                                                               \
        const size_t w = gp_rwords(f);                                                              \
        size_t k = 1;                                                                               \
        while (cols && cols * k < 32) k *= 2;                                                       \
        const size_t nl = cols * k;                                                                 \
        double *ex = calloc(cols ? cols * GP_XK : 1, sizeof *ex);                                   \
        double *a0 = calloc(nl ? nl : 1, sizeof *a0), *a1 = calloc(nl ? nl : 1, sizeof *a1);        \
        if (!ex || !a0 || !a1) abort();                                                             \
        double sp[VB];                                                                              \
        for (size_t r0 = 0; r0 < rows; r0 += CHUNK) {                                               \
            const size_t r1 = rows - r0 < CHUNK ? rows : r0 + CHUNK;                                \
            for (size_t r = r0; r < r1;) {                                                          \
                const size_t kk = k > 1 && r + k <= r1 ? k : 1;   /* rows this step */              \
                const T *p = x + r * cols;                                                          \
                for (size_t c0 = 0; c0 < cols * kk; c0 += CT) {                                     \
                    const size_t nc = cols * kk - c0 < CT ? cols * kk - c0 : CT;                    \
                    const int rr = NAME##_lanes(p + c0, nc, nc, sq, a0 + c0, a1 + c0, sp);          \
                    if (!rr)                                                                        \
                        for (size_t j = 0; j < nc; j++) {                                           \
                            const size_t c = (c0 + j) % cols;                                       \
                            add_val((double)p[c0 + j], sq, ex + c * GP_XK, acc + c * w, f);         \
                        }                                                                           \
                    if (rr == 3) spills_out(sp, nc, c0, cols, w, acc, f.lo);                        \
                }                                                                                   \
                r += kk;                                                                            \
            }                                                                                       \
            lanes_out(a0, a1, nl, cols, w, acc, f.lo);                                              \
            for (size_t c = 0; c < cols; c++) {                                                     \
                gp_xexp_flush(ex + c * GP_XK, acc + c * w, f.lo);                                   \
                gp_xnorm(acc + c * w, f.nl);                                                        \
            }                                                                                       \
        }                                                                                           \
        free(ex);                                                                                   \
        free(a0);                                                                                   \
        free(a1);                                                                                   \
    }
FSUM_KERNELS(f32, float)
FSUM_KERNELS(f64, double)

/* f32 sums over a row or the whole panel in runs, as the CUDA kernels do (batch=2; docs/
 * reductions.md): a block of RB floats whose non-zero magnitudes lie within 29 - log2(n) binades
 * of each other (and are finite) has every partial sum exact in double, so it is summed in plain
 * double in any order (block_f32: SSE2, four 2-lane accumulators); consecutive blocks join a
 * run while the test holds for all of the run's elements together, and a run goes into the
 * exact expansion by one TwoSum when it ends. A block that fails alone (wide data, NaN, Inf)
 * takes the element-by-element path. The sum is exact either way, so the bits are the same. */
#define RB 64
/* The test on the largest magnitude mx and the smallest non-zero one mn (+Inf: none) of n >= 2
 * finite floats, as span_ok in kernels/cuda/reduce.cu. */
static inline int span_ok32(float mx, float mn, uint64_t n)
{
    if (n < 2) return 1;                                           /* one finite float: exact */
    uint32_t bx, bn;
    memcpy(&bx, &mx, 4);
    memcpy(&bn, &mn, 4);
    int emax = (int)(bx >> 23), emin = (int)(bn >> 23);
    if (emin < 1) emin = 1;                                        /* subnormals: multiples of 2^-149 */
    const int lg = 64 - __builtin_clzll(n - 1);                    /* ceil(log2 n) */
    return emax - emin + lg <= 29;
}
/* n floats (a multiple of 8) in 8 lanes, lane l taking the elements j with j % 8 == l: each lane's
 * largest magnitude, smallest non-zero one (+Inf: none) and sum in double. The SSE2 form keeps
 * them in registers (two 4-float vectors, four 2-double accumulators: lanes 0-1, 2-3, 4-5, 6-7)
 * for the caller to fold or store. */
#if defined(__SSE2__) && !defined(GP_NO_SSE2)   /* GP_NO_SSE2: the portable path, for its test */
typedef struct {
    __m128 x0, x1, n0, n1;
    __m128d s0, s1, s2, s3;
} lanes8;
static inline lanes8 f32_lanes8(const float *p, int n)
{
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), inf = _mm_set1_ps(INFINITY);
    const __m128 zero = _mm_setzero_ps();
    lanes8 L = {zero, zero, inf, inf, _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
    for (int j = 0; j < n; j += 8) {
        const __m128 v0 = _mm_loadu_ps(p + j), v1 = _mm_loadu_ps(p + j + 4);
        const __m128 a0 = _mm_and_ps(v0, absm), a1 = _mm_and_ps(v1, absm);
        const __m128 z0 = _mm_cmpeq_ps(a0, zero), z1 = _mm_cmpeq_ps(a1, zero);
        L.x0 = _mm_max_ps(L.x0, a0);
        L.x1 = _mm_max_ps(L.x1, a1);
        L.n0 = _mm_min_ps(L.n0, _mm_or_ps(_mm_and_ps(z0, inf), _mm_andnot_ps(z0, a0)));
        L.n1 = _mm_min_ps(L.n1, _mm_or_ps(_mm_and_ps(z1, inf), _mm_andnot_ps(z1, a1)));
        L.s0 = _mm_add_pd(L.s0, _mm_cvtps_pd(v0));
        L.s1 = _mm_add_pd(L.s1, _mm_cvtps_pd(_mm_movehl_ps(v0, v0)));
        L.s2 = _mm_add_pd(L.s2, _mm_cvtps_pd(v1));
        L.s3 = _mm_add_pd(L.s3, _mm_cvtps_pd(_mm_movehl_ps(v1, v1)));
    }
    return L;
}
#else
static inline void f32_lanes8(const float *p, int n, float *mx, float *mn, double *t)
{
    for (int l = 0; l < 8; l++) {
        mx[l] = 0;
        mn[l] = INFINITY;
        t[l] = 0;
    }
    for (int j = 0; j < n; j++) {
        const int l = j & 7;
        const float av = fabsf(p[j]);
        mx[l] = av > mx[l] ? av : mx[l];
        if (av != 0 && av < mn[l]) mn[l] = av;
        t[l] += (double)p[j];
    }
}
#endif
/* One block of RB floats: the largest magnitude, the smallest non-zero one (+Inf: none) and the
 * sum in double (the 8 lanes folded; exact whenever span_ok32 passes, so the order does not
 * matter). A NaN or Inf makes *t non-finite (64 finite floats cannot overflow a double). */
static inline void block_f32(const float *p, float *mx, float *mn, double *t)
{
    float lx[8], ln[8];
    double sd[8];
#if defined(__SSE2__) && !defined(GP_NO_SSE2)
    const lanes8 L = f32_lanes8(p, RB);
    _mm_storeu_ps(lx, _mm_max_ps(L.x0, L.x1));
    _mm_storeu_ps(ln, _mm_min_ps(L.n0, L.n1));
    _mm_storeu_pd(sd, _mm_add_pd(_mm_add_pd(L.s0, L.s1), _mm_add_pd(L.s2, L.s3)));
    const int nl = 4;
    *t = sd[0] + sd[1];
#else
    f32_lanes8(p, RB, lx, ln, sd);
    const int nl = 8;
    *t = ((sd[0] + sd[1]) + (sd[2] + sd[3])) + ((sd[4] + sd[5]) + (sd[6] + sd[7]));
#endif
    *mx = lx[0];
    *mn = ln[0];
    for (int l = 1; l < nl; l++) {
        *mx = lx[l] > *mx ? lx[l] : *mx;
        *mn = ln[l] < *mn ? ln[l] : *mn;
    }
}
/* A run: block sums of finite floats added in plain double while span_ok32 holds for all of its
 * n elements together (magnitudes within [mn, mx]); it goes into the expansion when a block
 * cannot join and at the end. */
typedef struct {
    double s;
    float mx, mn;
    uint64_t n;
} f32run;
static inline void run_reset(f32run *r)
{
    r->s = 0;
    r->mx = 0;
    r->mn = INFINITY;
    r->n = 0;
}
static inline void run_flush(f32run *r, double *a, int64_t *acc, int lo)
{
    if (r->s != 0) gp_xexp_add(a, r->s, acc, lo);
    run_reset(r);
}
/* A block of nb floats that is exact alone (sum t, magnitudes mx, mn) joins the run, or starts
 * the next one after the run went into a. */
static inline void run_block(f32run *r, double t, float mx, float mn, uint64_t nb, double *a,
                             int64_t *acc, int lo)
{
    const float mx2 = mx > r->mx ? mx : r->mx, mn2 = mn < r->mn ? mn : r->mn;
    if (span_ok32(mx2, mn2, r->n + nb)) {
        r->s += t;
        r->mx = mx2;
        r->mn = mn2;
        r->n += nb;
        return;
    }
    run_flush(r, a, acc, lo);
    r->s = t;
    r->mx = mx;
    r->mn = mn;
    r->n = nb;
}

static void f32_all_runs(const float *x, size_t n, gp_xfmt f, int64_t *acc)
{
    double a[4][GP_XK];
    memset(a, 0, sizeof a);
    f32run run;
    for (size_t done = 0; done < n;) {
        size_t m = n - done < CHUNK ? n - done : CHUNK, i = 0;
        const float *p = x + done;
        run_reset(&run);
        for (; i + RB <= m; i += RB) {
            float mx, mn;
            double t;
            block_f32(p + i, &mx, &mn, &t);
            /* 64 finite floats cannot overflow a double: t is finite iff every element is */
            if (!isfinite(t) || !span_ok32(mx, mn, RB)) {
                for (int j = 0; j < RB; j++) add_val((double)p[i + j], 0, a[j & 3], acc, f);
                continue;
            }
            run_block(&run, t, mx, mn, RB, a[0], acc, f.lo);
        }
        run_flush(&run, a[0], acc, f.lo);
        for (; i < m; i++) add_val((double)p[i], 0, a[i & 3], acc, f);
        for (int j = 0; j < 4; j++) gp_xexp_flush(a[j], acc, f.lo);
        gp_xnorm(acc, f.nl);
        done += m;
    }
}

/* f32 column sums in runs: per column, blocks of RB rows (their sums and magnitudes for CT
 * columns at a time, a loop over contiguous floats that the compiler vectorises) join the
 * column's run as in f32_all_runs; a block that fails alone goes element by element into the
 * column's expansion. Exact either way, so the bits are those of the element-by-element path. */
GP_WIDE static void block_cols_f32(const float *p, size_t pitch, size_t nb, size_t nc, double *bs,
                           float *bx, float *bn)
{
    for (size_t j = 0; j < nc; j++) {
        bs[j] = 0;
        bx[j] = 0;
        bn[j] = INFINITY;
    }
    size_t r = 0;
    /* a contiguous block (the narrow panels' folded rows): four rows a pass, a quarter of the
     * state traffic (7 columns: 2.3 -> 3.1 GB/s); rows of a wide panel one at a time (four
     * strided rows a pass: 4.2 -> 3.5 GB/s at 4096 columns; bench_reduce, 2026-12-04) */
    if (pitch == nc) {
        for (; r + 4 <= nb; r += 4, p += 4 * pitch)
            for (size_t j = 0; j < nc; j++) {
                const float v0 = p[j], v1 = p[j + pitch], v2 = p[j + 2 * pitch], v3 = p[j + 3 * pitch];
                const float a0 = fabsf(v0), a1 = fabsf(v1), a2 = fabsf(v2), a3 = fabsf(v3);
                const float n0 = a0 != 0 ? a0 : INFINITY, n1 = a1 != 0 ? a1 : INFINITY;
                const float n2 = a2 != 0 ? a2 : INFINITY, n3 = a3 != 0 ? a3 : INFINITY;
                const float x01 = a0 > a1 ? a0 : a1, x23 = a2 > a3 ? a2 : a3;
                const float m01 = n0 < n1 ? n0 : n1, m23 = n2 < n3 ? n2 : n3;
                const float x = x01 > x23 ? x01 : x23, mn = m01 < m23 ? m01 : m23;
                bx[j] = x > bx[j] ? x : bx[j];   /* a NaN may be dropped here; the sum shows it */
                bn[j] = mn < bn[j] ? mn : bn[j];
                bs[j] += ((double)v0 + (double)v1) + ((double)v2 + (double)v3);
            }
    }
    for (; r < nb; r++, p += pitch)
        for (size_t j = 0; j < nc; j++) {
            const float v = p[j], av = fabsf(v), nz = av != 0 ? av : INFINITY;
            bx[j] = av > bx[j] ? av : bx[j];
            bn[j] = nz < bn[j] ? nz : bn[j];
            bs[j] += (double)v;
        }
}
/* The blocks of rows rb .. rb + nb - 1 of columns c0 .. c0 + nc - 1 (their sums and magnitudes
 * in bs, bx, bn) into the columns' runs or, one that fails alone, element by element into the
 * column's expansion. */
static void cols_take(const float *x, size_t cols, size_t rb, size_t nb, size_t c0, size_t nc,
                      const double *bs, const float *bx, const float *bn, double *ex, f32run *run,
                      int64_t *acc, gp_xfmt f)
{
    const size_t w = gp_rwords(f);
    for (size_t j = 0; j < nc; j++) {
        const size_t c = c0 + j;
        double *a = ex + c * GP_XK;
        int64_t *ac = acc + c * w;
        if (!isfinite(bs[j]) || !span_ok32(bx[j], bn[j], nb)) {
            for (size_t r = rb; r < rb + nb; r++) add_val((double)x[r * cols + c], 0, a, ac, f);
            continue;
        }
        run_block(run + c, bs[j], bx[j], bn[j], nb, a, ac, f.lo);
    }
}
static void f32_cols_runs(const float *x, size_t rows, size_t cols, gp_xfmt f, int64_t *acc)
{
    const size_t w = gp_rwords(f);
    double *ex = calloc(cols ? cols * GP_XK : 1, sizeof *ex);
    f32run *run = malloc((cols ? cols : 1) * sizeof *run);
    if (!ex || !run) abort();
    for (size_t c = 0; c < cols; c++) run_reset(run + c);
    double bs[CT];
    float bx[CT], bn[CT];
    /* narrow panels: m rows side by side as one row of cols * m >= 32 lanes (lane l is column
     * l % cols), so that the block loop still runs over enough contiguous floats; the lanes of
     * a column are folded before the test (partial sums of a block that passes are exact) */
    size_t m = 1;
    while (cols && cols * m < 32 && m < RB) m *= 2;
    for (size_t r0 = 0; r0 < rows; r0 += CHUNK) {
        const size_t r1 = rows - r0 < CHUNK ? rows : r0 + CHUNK;
        for (size_t rb = r0; rb < r1; rb += RB) {
            const size_t nb = r1 - rb < RB ? r1 - rb : RB;
            if (m > 1 && nb % m == 0) {
                block_cols_f32(x + rb * cols, cols * m, nb / m, cols * m, bs, bx, bn);
                for (size_t l = cols; l < cols * m; l++) {
                    const size_t c = l % cols;
                    bs[c] += bs[l];
                    bx[c] = bx[l] > bx[c] ? bx[l] : bx[c];
                    bn[c] = bn[l] < bn[c] ? bn[l] : bn[c];
                }
                cols_take(x, cols, rb, nb, 0, cols, bs, bx, bn, ex, run, acc, f);
                continue;
            }
            for (size_t c0 = 0; c0 < cols; c0 += CT) {
                const size_t nc = cols - c0 < CT ? cols - c0 : CT;
                block_cols_f32(x + rb * cols + c0, cols, nb, nc, bs, bx, bn);
                cols_take(x, cols, rb, nb, c0, nc, bs, bx, bn, ex, run, acc, f);
            }
        }
        for (size_t c = 0; c < cols; c++) {
            run_flush(run + c, ex + c * GP_XK, acc + c * w, f.lo);
            gp_xexp_flush(ex + c * GP_XK, acc + c * w, f.lo);
            gp_xnorm(acc + c * w, f.nl);
        }
    }
    free(ex);
    free(run);
}

/* f32 column sums of 1, 2, 4 or 8 columns: the panel as one flat array whose groups of 8 floats
 * hold 8 / cols rows (lane l is column l % cols), in blocks of RB8 floats reduced per lane in
 * registers (block_lanes8: f32_lanes8, as block_f32 but without its fold), then folded per
 * column and taken into the column's run as f32_cols_runs does; the generic narrow path folds 32
 * lanes through memory (4 columns: 2.8-4.0 -> 8.0-11.7 GB/s on one core, bench/NOTES.md,
 * twenty-sixth session). */
#define RB8 256
static inline void block_lanes8(const float *p, float *mx, float *mn, double *t)
{
#if defined(__SSE2__) && !defined(GP_NO_SSE2)
    const lanes8 L = f32_lanes8(p, RB8);
    _mm_storeu_ps(mx, L.x0);
    _mm_storeu_ps(mx + 4, L.x1);
    _mm_storeu_ps(mn, L.n0);
    _mm_storeu_ps(mn + 4, L.n1);
    _mm_storeu_pd(t, L.s0);
    _mm_storeu_pd(t + 2, L.s1);
    _mm_storeu_pd(t + 4, L.s2);
    _mm_storeu_pd(t + 6, L.s3);
#else
    f32_lanes8(p, RB8, mx, mn, t);
#endif
}
static void f32_cols8_runs(const float *x, size_t rows, size_t cols, gp_xfmt f, int64_t *acc)
{
    const size_t w = gp_rwords(f), rpb = RB8 / cols;   /* rows per block */
    double ex[8][GP_XK];
    f32run run[8];
    memset(ex, 0, sizeof ex);
    for (size_t c = 0; c < cols; c++) run_reset(run + c);
    for (size_t r0 = 0; r0 < rows; r0 += CHUNK) {
        const size_t r1 = rows - r0 < CHUNK ? rows : r0 + CHUNK;
        size_t r = r0;
        for (; r + rpb <= r1; r += rpb) {
            float lx[8], ln[8];
            double ls[8];
            block_lanes8(x + r * cols, lx, ln, ls);
            for (size_t c = 0; c < cols; c++) {
                float bx = lx[c], bn = ln[c];
                double bs = ls[c];
                for (size_t l = c + cols; l < 8; l += cols) {   /* exact when the test below passes */
                    bs += ls[l];
                    bx = lx[l] > bx ? lx[l] : bx;
                    bn = ln[l] < bn ? ln[l] : bn;
                }
                /* RB8 finite floats cannot overflow a double: bs is finite iff every element is */
                if (!isfinite(bs) || !span_ok32(bx, bn, rpb)) {
                    for (size_t i = r; i < r + rpb; i++) add_val((double)x[i * cols + c], 0, ex[c], acc + c * w, f);
                    continue;
                }
                run_block(run + c, bs, bx, bn, rpb, ex[c], acc + c * w, f.lo);
            }
        }
        for (; r < r1; r++)
            for (size_t c = 0; c < cols; c++) add_val((double)x[r * cols + c], 0, ex[c], acc + c * w, f);
        for (size_t c = 0; c < cols; c++) {
            run_flush(run + c, ex[c], acc + c * w, f.lo);
            gp_xexp_flush(ex[c], acc + c * w, f.lo);
            gp_xnorm(acc + c * w, f.nl);
        }
    }
}

/* ---- exact sums: integers (128-bit partial sums, deposited every 2^24 elements) ------------------ */
static inline uint64_t mag_s(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }
static inline uint64_t mag_u(uint64_t v) { return v; }
#define ISUM_KERNELS(NAME, T, WIDE, MAG)                                                                \
    static inline void NAME##_one(T v, int sq, __int128 *s, unsigned __int128 *q, uint64_t *qc)          \
    {                                                                                               \
        if (!sq) { *s += (WIDE)v; return; }                                                         \
        uint64_t m = MAG((WIDE)v);                                                                  \
        unsigned __int128 sqv = (unsigned __int128)m * m;                                          \
        *q += sqv;                                                                                  \
        *qc += *q < sqv;                                                                            \
    }                                                                                               \
    /* values of at most 32 bits summed in 64 (squares of at most 16 bits in unsigned 64): the    \
     * m <= CHUNK = 2^24 of them cannot overflow it, and the loop vectorises (the 128-bit add per  \
     * element did not: i32 2.4 GB/s) */                                                         \
    GP_WIDE static WIDE NAME##_sum64(const T *restrict p, size_t m)                                  \
    {                                                                                               \
        WIDE t = 0;                                                                                 \
        for (size_t i = 0; i < m; i++) t += (WIDE)p[i];                                             \
        return t;                                                                                   \
    }                                                                                               \
    GP_WIDE static void NAME##_cols64(const T *restrict p, size_t rows, size_t cols, WIDE *restrict t) \
    {                                                                                               \
        for (size_t c = 0; c < cols; c++) t[c] = 0;                                                 \
        for (size_t r = 0; r < rows; r++, p += cols)                                                \
            for (size_t c = 0; c < cols; c++) t[c] += (WIDE)p[c];                                   \
    }                                                                                               \
    GP_WIDE static uint64_t NAME##_sq64(const T *restrict p, size_t m)                               \
    {                                                                                               \
        uint64_t t = 0;                                                                             \
        for (size_t i = 0; i < m; i++) t += (uint64_t)((int64_t)p[i] * (int64_t)p[i]);              \
        return t;                                                                                   \
    }                                                                                               \
    static void NAME##_deposit(int sq, __int128 *s, unsigned __int128 *q, uint64_t *qc, int64_t *acc, int nl) \
    {                                                                                               \
        if (sq) depu192(acc, *q, *qc); else dep128(acc, *s);                                        \
        *s = 0; *q = 0; *qc = 0;                                                                    \
        gp_xnorm(acc, nl);                                                                          \
    }                                                                                               \
    static void NAME##_all(const T *x, size_t n, int sq, gp_xfmt f, int64_t *acc)                     \
    {                                                                                               \
        __int128 s = 0; unsigned __int128 q = 0; uint64_t qc = 0;                                   \
        for (size_t done = 0; done < n;) {                                                          \
            size_t m = n - done < CHUNK ? n - done : CHUNK;                                         \
            const T *p = x + done;                                                                  \
            if (!sq && sizeof(T) <= 4) s += NAME##_sum64(p, m);   /* 2^24 values: no overflow */    \
            else if (sq && sizeof(T) <= 2) q += NAME##_sq64(p, m);                                  \
            else if (!sq) { for (size_t i = 0; i < m; i++) s += (WIDE)p[i]; }                       \
            else for (size_t i = 0; i < m; i++) NAME##_one(p[i], 1, &s, &q, &qc);                   \
            NAME##_deposit(sq, &s, &q, &qc, acc, f.nl);                                             \
            done += m;                                                                              \
        }                                                                                           \
    }                                                                                               \
    static void NAME##_rows(const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, int64_t *acc)    \
    {                                                                                               \
        size_t w = gp_rwords(f);                                                                    \
        for (size_t r = 0; r < rows; r++) NAME##_all(x + r * cols, cols, sq, f, acc + r * w);        \
    }                                                                                               \
    static void NAME##_cols(const T *x, size_t rows, size_t cols, int sq, gp_xfmt f, int64_t *acc)    \
    {                                                                                               \
        size_t w = gp_rwords(f);                                                                    \
        __int128 *s = calloc(cols ? cols : 1, sizeof *s);                                           \
        unsigned __int128 *q = calloc(cols ? cols : 1, sizeof *q);                                  \
        uint64_t *qc = calloc(cols ? cols : 1, sizeof *qc);                                         \
        WIDE *t = calloc(cols ? cols : 1, sizeof *t);                                               \
        if (!s || !q || !qc || !t) abort();                                                         \
        for (size_t r0 = 0; r0 < rows; r0 += CHUNK) {                                               \
            size_t r1 = rows - r0 < CHUNK ? rows : r0 + CHUNK;                                      \
            if (!sq && sizeof(T) <= 4) {   /* in 64 bits per chunk of rows, as NAME##_sum64 */      \
                NAME##_cols64(x + r0 * cols, r1 - r0, cols, t);                                     \
                for (size_t c = 0; c < cols; c++) s[c] += (__int128)t[c];                           \
            } else                                                                                  \
                for (size_t r = r0; r < r1; r++) {                                                  \
                    const T *p = x + r * cols;                                                      \
                    if (!sq) { for (size_t c = 0; c < cols; c++) s[c] += (WIDE)p[c]; }               \
                    else for (size_t c = 0; c < cols; c++) NAME##_one(p[c], 1, s + c, q + c, qc + c); \
                }                                                                                   \
            for (size_t c = 0; c < cols; c++) NAME##_deposit(sq, s + c, q + c, qc + c, acc + c * w, f.nl); \
        }                                                                                           \
        free(s); free(q); free(qc); free(t);                                                        \
    }
ISUM_KERNELS(i8, int8_t, int64_t, mag_s)
ISUM_KERNELS(i16, int16_t, int64_t, mag_s)
ISUM_KERNELS(i32, int32_t, int64_t, mag_s)
ISUM_KERNELS(i64, int64_t, int64_t, mag_s)
ISUM_KERNELS(u8, uint8_t, uint64_t, mag_u)
ISUM_KERNELS(u16, uint16_t, uint64_t, mag_u)
ISUM_KERNELS(u32, uint32_t, uint64_t, mag_u)
ISUM_KERNELS(u64, uint64_t, uint64_t, mag_u)

#define DISPATCH_SUM(NAME, T)                                                                            \
    case GP_RT_##NAME:                                                                              \
        if (axis == GP_AXIS_ALL) NAME##_all((const T *)buf, rows * cols, sq, f, acc);                \
        else if (axis == GP_AXIS_ROWS) NAME##_rows((const T *)buf, rows, cols, sq, f, acc);          \
        else NAME##_cols((const T *)buf, rows, cols, sq, f, acc);                                   \
        break;
#define GP_RT_i8 GP_RT_I8
#define GP_RT_i16 GP_RT_I16
#define GP_RT_i32 GP_RT_I32
#define GP_RT_i64 GP_RT_I64
#define GP_RT_u8 GP_RT_U8
#define GP_RT_u16 GP_RT_U16
#define GP_RT_u32 GP_RT_U32
#define GP_RT_u64 GP_RT_U64
#define GP_RT_f32 GP_RT_F32
#define GP_RT_f64 GP_RT_F64

void gp_cpu_rsum(const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                 gp_xfmt f, int64_t *acc)
{
    int sq = k == GP_RK_SQ;
    if (t == GP_RT_F32 && !sq) {   /* f32 sums: runs */
        const size_t w = gp_rwords(f);
        if (axis == GP_AXIS_ALL) f32_all_runs((const float *)buf, rows * cols, f, acc);
        else if (axis == GP_AXIS_COLS && cols && 8 % cols == 0) f32_cols8_runs((const float *)buf, rows, cols, f, acc);
        else if (axis == GP_AXIS_COLS) f32_cols_runs((const float *)buf, rows, cols, f, acc);
        else
            for (size_t r = 0; r < rows; r++) f32_all_runs((const float *)buf + r * cols, cols, f, acc + r * w);
        return;
    }
    switch (t) {
        DISPATCH_SUM(i8, int8_t) DISPATCH_SUM(i16, int16_t) DISPATCH_SUM(i32, int32_t)
        DISPATCH_SUM(i64, int64_t) DISPATCH_SUM(u8, uint8_t) DISPATCH_SUM(u16, uint16_t)
        DISPATCH_SUM(u32, uint32_t) DISPATCH_SUM(u64, uint64_t) DISPATCH_SUM(f32, float)
        DISPATCH_SUM(f64, double)
    default: break;
    }
}

/* ---- extrema ------------------------------------------------------------------------------------ */
static inline uint64_t fold(uint64_t a, uint64_t b, int mn) { return mn ? (b < a ? b : a) : (b > a ? b : a); }

/* Extrema of integers: min or max in the element's own type (absmax of signed values: the
 * largest magnitude in its unsigned type; of unsigned ones it is max), loops the compiler
 * vectorises; the winner of a row, a panel or a column becomes the 64-bit key (gp_key_i for
 * signed types, the value for unsigned ones and magnitudes) once. The loop over keys per element
 * ran at 1-2.3 GB/s. */
#define IEXT_KERNEL(NAME, T, UT, SGN, MAG)                                                               \
    static inline UT NAME##_mag(T v) { return MAG; }                                               \
    static inline uint64_t NAME##_key(T v) { return SGN ? gp_key_i((int64_t)v) : (uint64_t)v; }     \
    /* the smallest (mode 0) or largest (mode 1) of n >= 1 values */                                \
    GP_WIDE static T NAME##_best(const T *restrict p, size_t n, int mode)                           \
    {                                                                                               \
        T b = p[0];                                                                                 \
        if (mode == 0)                                                                              \
            for (size_t i = 1; i < n; i++) b = p[i] < b ? p[i] : b;                                 \
        else                                                                                        \
            for (size_t i = 1; i < n; i++) b = p[i] > b ? p[i] : b;                                 \
        return b;                                                                                   \
    }                                                                                               \
    /* the key of the best of n >= 1 values: mode 0 min, 1 max, 2 largest magnitude */             \
    GP_WIDE static uint64_t NAME##_ext_run(const T *restrict p, size_t n, int mode)                  \
    {                                                                                               \
        if (mode == 2) {                                                                            \
            UT b = 0;                                                                               \
            for (size_t i = 0; i < n; i++) b = NAME##_mag(p[i]) > b ? NAME##_mag(p[i]) : b;          \
            return (uint64_t)b;                                                                     \
        }                                                                                           \
        return NAME##_key(NAME##_best(p, n, mode));                                                 \
    }                                                                                               \
    /* one row into the columns' best values (mode 2: magnitudes, in bm) */                        \
    GP_WIDE static void NAME##_ext_row(const T *restrict p, size_t n, int mode, T *restrict bt, UT *restrict bm) \
    {                                                                                               \
        if (mode == 2)                                                                              \
            for (size_t c = 0; c < n; c++) bm[c] = NAME##_mag(p[c]) > bm[c] ? NAME##_mag(p[c]) : bm[c]; \
        else if (mode == 0)                                                                         \
            for (size_t c = 0; c < n; c++) bt[c] = p[c] < bt[c] ? p[c] : bt[c];                     \
        else                                                                                        \
            for (size_t c = 0; c < n; c++) bt[c] = p[c] > bt[c] ? p[c] : bt[c];                     \
    }                                                                                               \
    static void NAME##_ext(const T *x, size_t rows, size_t cols, gp_rkind k, gp_raxis axis, uint64_t *key, \
                           int64_t *nan)                                                            \
    {                                                                                               \
        (void)nan;                                                                                  \
        const int mn = k == GP_RK_MIN, mode = mn ? 0 : (SGN && k == GP_RK_ABSMAX) ? 2 : 1;          \
        if (!rows || !cols) return;                                                                 \
        if (axis == GP_AXIS_ALL) {                                                                  \
            *key = fold(*key, NAME##_ext_run(x, rows * cols, mode), mn);                            \
        } else if (axis == GP_AXIS_ROWS) {                                                          \
            for (size_t r = 0; r < rows; r++) key[r] = fold(key[r], NAME##_ext_run(x + r * cols, cols, mode), mn); \
        } else {                                                                                    \
            T *bt = malloc(cols * sizeof *bt);                                                      \
            UT *bm = calloc(cols, sizeof *bm);                                                      \
            if (!bt || !bm) abort();                                                                \
            memcpy(bt, x, cols * sizeof *bt);                                                       \
            for (size_t r = 0; r < rows; r++) NAME##_ext_row(x + r * cols, cols, mode, bt, bm);      \
            for (size_t c = 0; c < cols; c++) {                                                     \
                const uint64_t kk = mode == 2 ? (uint64_t)bm[c] : SGN ? gp_key_i((int64_t)bt[c]) : (uint64_t)bt[c]; \
                key[c] = fold(key[c], kk, mn);                                                      \
            }                                                                                       \
            free(bt);                                                                               \
            free(bm);                                                                               \
        }                                                                                           \
    }
IEXT_KERNEL(i8, int8_t, uint8_t, 1, v < 0 ? (uint8_t)((uint8_t)0 - (uint8_t)v) : (uint8_t)v)
IEXT_KERNEL(i16, int16_t, uint16_t, 1, v < 0 ? (uint16_t)((uint16_t)0 - (uint16_t)v) : (uint16_t)v)
IEXT_KERNEL(i32, int32_t, uint32_t, 1, v < 0 ? (uint32_t)((uint32_t)0 - (uint32_t)v) : (uint32_t)v)
IEXT_KERNEL(i64, int64_t, uint64_t, 1, v < 0 ? (uint64_t)((uint64_t)0 - (uint64_t)v) : (uint64_t)v)
IEXT_KERNEL(u8, uint8_t, uint8_t, 0, v)
IEXT_KERNEL(u16, uint16_t, uint16_t, 0, v)
IEXT_KERNEL(u32, uint32_t, uint32_t, 0, v)
IEXT_KERNEL(u64, uint64_t, uint64_t, 0, v)

/* Extrema of floats: keys of the element's own width (the map of gp_key_d on its bits; f32 keys
 * order as the doubles they widen to), NaNs counted and given the neutral key, in loops without
 * branches that the compiler vectorises (SSE2, and AVX2 where the CPU has it); a winner goes into
 * the 64-bit key once per row, panel or column. The element-by-element EXT_KERNEL loop ran at
 * ~1.6 GB/s (a branch per element). */
#define FEXT_KERNEL(NAME, T, U, S, SIGN, EXPM)                                                          \
    /* the signed key of bits u (ab: of |u|; a negative value's other bits flipped, so that signed \
     * order is the values' order; the unsigned key of gp_key_d is it ^ SIGN) and a mask of all  \
     * ones when u is a NaN, without branches (signed: AVX2 compares 64-bit lanes only so) */      \
    static inline S NAME##_skey(U u, U keep, U *isnan)                                              \
    {                                                                                               \
        *isnan = (U)0 - (U)((u & (U)~SIGN) > EXPM);                                                 \
        u &= keep;                                   /* keep: ~SIGN for absmax, else all ones */   \
        return (S)(u ^ ((U)((S)u >> (8 * sizeof(U) - 1)) & (U)~SIGN));                              \
    }                                                                                               \
    /* the same with a NaN's key replaced by the neutral one (min: ~SIGN, max: SIGN, as signed) */  \
    static inline S NAME##_nkey(U u, U keep, U neutral, U *isnan)                                   \
    {                                                                                               \
        const S k0 = NAME##_skey(u, keep, isnan);                                                   \
        return (S)(((U)k0 & ~*isnan) | (neutral & *isnan));                                         \
    }                                                                                               \
    /* the +-Inf among n values */                                                                 \
    GP_WIDE static void NAME##_inf_counts(const U *restrict b, size_t n, int64_t *pinf, int64_t *ninf) \
    {                                                                                               \
        U pi = 0, ni = 0;   /* n <= VB */                                                           \
        for (size_t i = 0; i < n; i++) {                                                            \
            pi += b[i] == EXPM;                                                                     \
            ni += b[i] == (SIGN | EXPM);                                                            \
        }                                                                                           \
        *pinf += (int64_t)pi;                                                                       \
        *ninf += (int64_t)ni;                                                                       \
    }                                                                                               \
    /* the best key of n values at p (as gp_key_d's, of the element's width; neutral: mn ? all    \
     * ones : 0, no non-NaN key has either) */                                                     \
    GP_WIDE static U NAME##_ext_run(const U *restrict p, size_t n, int mn, int ab, int64_t *nan)     \
    {                                                                                               \
        const U keep = ab ? (U)~SIGN : (U)~(U)0;                                                    \
        S best = (S)(mn ? (U)~SIGN : SIGN);                                                         \
        for (size_t i0 = 0; i0 < n; i0 += (size_t)1 << 24) {   /* NaNs counted in U */              \
            const size_t m = n - i0 < ((size_t)1 << 24) ? n - i0 : (size_t)1 << 24;                 \
            U nn = 0, isn;                                                                          \
            if (mn)                                                                                 \
                for (size_t i = i0; i < i0 + m; i++) {                                              \
                    const S kk = NAME##_nkey(p[i], keep, (U)~SIGN, &isn);                           \
                    nn -= isn;                                                                      \
                    best = kk < best ? kk : best;                                                   \
                }                                                                                   \
            else                                                                                    \
                for (size_t i = i0; i < i0 + m; i++) {                                              \
                    const S kk = NAME##_nkey(p[i], keep, SIGN, &isn);                               \
                    nn -= isn;                                                                      \
                    best = kk > best ? kk : best;                                                   \
                }                                                                                   \
            *nan += (int64_t)nn;                                                                    \
        }                                                                                           \
        return (U)best ^ SIGN;                                                                      \
    }                                                                                               \
    /* one row into the columns' best (signed) keys and NaN counts */                              \
    GP_WIDE static void NAME##_ext_row(const U *restrict p, size_t n, int mn, int ab, S *restrict best, \
                                       U *restrict nan)                                             \
    {                                                                                               \
        const U keep = ab ? (U)~SIGN : (U)~(U)0;                                                    \
        U isn;                                                                                      \
        if (mn)                                                                                     \
            for (size_t c = 0; c < n; c++) {                                                        \
                const S kk = NAME##_nkey(p[c], keep, (U)~SIGN, &isn);                               \
                nan[c] -= isn;                                                                      \
                best[c] = kk < best[c] ? kk : best[c];                                              \
            }                                                                                       \
        else                                                                                        \
            for (size_t c = 0; c < n; c++) {                                                        \
                const S kk = NAME##_nkey(p[c], keep, SIGN, &isn);                                   \
                nan[c] -= isn;                                                                      \
                best[c] = kk > best[c] ? kk : best[c];                                              \
            }                                                                                       \
    }                                                                                               \
    /* the bits of the value whose key (gp_key_d's map at this width) is b, and its 64-bit key */  \
    static inline U NAME##_unkey(U b) { return (b & SIGN) ? (U)(b & (U)~SIGN) : (U)~b; }            \
    static inline uint64_t NAME##_key64(U b)                                                        \
    {                                                                                               \
        const U bits = NAME##_unkey(b);                                                             \
        T v;                                                                                        \
        memcpy(&v, &bits, sizeof v);                                                                \
        return gp_key_d((double)v);                                                                 \
    }                                                                                               \
    /* a best key into the 64-bit key k (nothing when it is the neutral one) */                    \
    static inline void NAME##_ext_fold(U b, int mn, uint64_t *k)                                    \
    {                                                                                               \
        if (b == (mn ? (U)~(U)0 : 0)) return;                                                       \
        *k = fold(*k, NAME##_key64(b), mn);                                                         \
    }                                                                                               \
    static void NAME##_ext(const T *x, size_t rows, size_t cols, gp_rkind k, gp_raxis axis, uint64_t *key, \
                           int64_t *nan)                                                            \
    {                                                                                               \
        const int mn = k == GP_RK_MIN, ab = k == GP_RK_ABSMAX;                                      \
        const U *u = (const U *)x;                                                                  \
        if (axis == GP_AXIS_ALL) {                                                                  \
            NAME##_ext_fold(NAME##_ext_run(u, rows * cols, mn, ab, nan), mn, key);                  \
        } else if (axis == GP_AXIS_ROWS) {                                                          \
            for (size_t r = 0; r < rows; r++)                                                       \
                NAME##_ext_fold(NAME##_ext_run(u + r * cols, cols, mn, ab, nan + r), mn, key + r);  \
        } else {                                                                                    \
            S *best = malloc((cols ? cols : 1) * sizeof *best);                                     \
            U *nc = malloc((cols ? cols : 1) * sizeof *nc);                                         \
            if (!best || !nc) abort();                                                              \
            for (size_t r0 = 0; r0 < rows; r0 += (size_t)1 << 24) {   /* NaNs counted in U */      \
                const size_t r1 = rows - r0 < ((size_t)1 << 24) ? rows : r0 + ((size_t)1 << 24);      \
                for (size_t c = 0; c < cols; c++) {                                                 \
                    best[c] = (S)(mn ? (U)~SIGN : SIGN);                                            \
                    nc[c] = 0;                                                                      \
                }                                                                                   \
                for (size_t r = r0; r < r1; r++) NAME##_ext_row(u + r * cols, cols, mn, ab, best, nc); \
                for (size_t c = 0; c < cols; c++) {                                                 \
                    NAME##_ext_fold((U)best[c] ^ SIGN, mn, key + c);                                \
                    nan[c] += (int64_t)nc[c];                                                       \
                }                                                                                   \
            }                                                                                       \
            free(best);                                                                             \
            free(nc);                                                                               \
        }                                                                                           \
    }
FEXT_KERNEL(f32, float, uint32_t, int32_t, 0x80000000u, 0x7f800000u)
FEXT_KERNEL(f64, double, uint64_t, int64_t, 0x8000000000000000ull, 0x7ff0000000000000ull)

#define DISPATCH_EXT(NAME, T) case GP_RT_##NAME: NAME##_ext((const T *)buf, rows, cols, k, axis, key, nan); break;
void gp_cpu_rext(const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                 uint64_t *key, int64_t *nan)
{
    switch (t) {
        DISPATCH_EXT(i8, int8_t) DISPATCH_EXT(i16, int16_t) DISPATCH_EXT(i32, int32_t)
        DISPATCH_EXT(i64, int64_t) DISPATCH_EXT(u8, uint8_t) DISPATCH_EXT(u16, uint16_t)
        DISPATCH_EXT(u32, uint32_t) DISPATCH_EXT(u64, uint64_t) DISPATCH_EXT(f32, float)
        DISPATCH_EXT(f64, double)
    default: break;
    }
}

/* ---- argmin / argmax ------------------------------------------------------------------------------
 * Keys as the extrema (NaN: the winning key, see gp_rarg_nankey); ties go to the first index.
 * Rows and the whole panel go in chunks of ACH values, columns in blocks of ARG_BR rows x ARG_BC
 * columns; a chunk's or a block column's best key comes from the vectorised extrema loops above,
 * and only one that could beat the pair so far is scanned, in increasing index order, for the
 * first element with that key (the best key is always some element's key, so the scan ends
 * inside). A (key, index) comparison per element ran at 0.8-6.3 GB/s (bench/NOTES.md).
 * Per type: NAME##_afind(p, n, stride, ck, nk), the first of n values with key ck; NAME##_arun(p,
 * n, mn, nk), the best key of n >= 1 values; NAME##_ablock(p, nr, pitch, w, mn, nk, ck), the best
 * key of each of w <= ARG_BC columns over nr >= 1 rows. */
#define ACH 4096
#define ARG_BR 64
#define ARG_BC 1024
/* contiguous values (st == 1): i past the blocks of 64 in which HIT (of element i + j) holds for
 * none, a loop the compiler vectorises (blocks of 16 were unrolled and stayed scalar); the
 * caller's scalar loop then finds the element */
#define ARG_SKIP(i, n, st, HIT)                                                                     \
    if ((st) == 1)                                                                                  \
        for (; (i) + 64 <= (n); (i) += 64) {                                                        \
            int hit_ = 0;                                                                           \
            for (size_t j = 0; j < 64; j++) hit_ |= (HIT);                                          \
            if (hit_) break;                                                                        \
        }
#define IARG_FNS(NAME, T, SGN)                                                                      \
    /* the first of n values (at stride st) whose key is ck (n: none) */                            \
    GP_WIDE static size_t NAME##_afind(const T *p, size_t n, size_t st, uint64_t ck, uint64_t nk)   \
    {                                                                                               \
        (void)nk;                                                                                   \
        const T v = SGN ? (T)gp_unkey_i(ck) : (T)ck;                                                \
        size_t i = 0;                                                                               \
        ARG_SKIP(i, n, st, p[i + j] == v);                                                          \
        while (i < n && p[i * st] != v) i++;                                                        \
        return i;                                                                                   \
    }                                                                                               \
    static inline uint64_t NAME##_arun(const T *p, size_t n, int mn, uint64_t nk)                   \
    {                                                                                               \
        (void)nk;                                                                                   \
        return NAME##_key(NAME##_best(p, n, !mn));                                                  \
    }                                                                                               \
    static void NAME##_ablock(const T *p, size_t nr, size_t pitch, size_t w, int mn, uint64_t nk,   \
                              uint64_t *ck)                                                         \
    {                                                                                               \
        T bt[ARG_BC];                                                                               \
        (void)nk;                                                                                   \
        memcpy(bt, p, w * sizeof *bt);                                                              \
        for (size_t r = 1; r < nr; r++) NAME##_ext_row(p + r * pitch, w, !mn, bt, NULL);            \
        for (size_t c = 0; c < w; c++) ck[c] = NAME##_key(bt[c]);                                   \
    }
#define FARG_FNS(NAME, T, U, S, SIGN)                                                               \
    /* the first of n values (at stride st) whose key is ck: the first NaN, or by bits */           \
    GP_WIDE static size_t NAME##_afind(const T *p, size_t n, size_t st, uint64_t ck, uint64_t nk)   \
    {                                                                                               \
        size_t i = 0;                                                                               \
        if (ck == nk) {                                                                             \
            ARG_SKIP(i, n, st, p[i + j] != p[i + j]);                                               \
            while (i < n && p[i * st] == p[i * st]) i++;                                            \
            return i;                                                                               \
        }                                                                                           \
        const T v = (T)gp_unkey_d(ck);                                                              \
        U bits;                                                                                     \
        memcpy(&bits, &v, sizeof bits);                                                             \
        const U *u = (const U *)p;                                                                  \
        ARG_SKIP(i, n, st, u[i + j] == bits);                                                       \
        while (i < n && u[i * st] != bits) i++;                                                     \
        return i;                                                                                   \
    }                                                                                               \
    static inline uint64_t NAME##_arun(const T *p, size_t n, int mn, uint64_t nk)                   \
    {                                                                                               \
        int64_t nan = 0;                                                                            \
        const U b = NAME##_ext_run((const U *)p, n, mn, 0, &nan);                                   \
        return nan ? nk : NAME##_key64(b);                                                          \
    }                                                                                               \
    static void NAME##_ablock(const T *p, size_t nr, size_t pitch, size_t w, int mn, uint64_t nk,   \
                              uint64_t *ck)                                                         \
    {                                                                                               \
        S best[ARG_BC];                                                                             \
        U nc[ARG_BC];                                                                               \
        for (size_t c = 0; c < w; c++) {                                                            \
            best[c] = (S)(mn ? (U)~SIGN : SIGN);                                                    \
            nc[c] = 0;                                                                              \
        }                                                                                           \
        for (size_t r = 0; r < nr; r++) NAME##_ext_row((const U *)(p + r * pitch), w, mn, 0, best, nc); \
        for (size_t c = 0; c < w; c++) ck[c] = nc[c] ? nk : NAME##_key64((U)best[c] ^ SIGN);        \
    }
#define ARG_KERNEL(NAME, T)                                                                         \
    /* values x[0..n) at indices base + i into the pair (*bk, *bi) */                               \
    static void NAME##_arg_run(const T *x, size_t n, int mn, uint64_t nk, uint64_t base, uint64_t *bk, \
                               uint64_t *bi)                                                        \
    {                                                                                               \
        for (size_t c0 = 0; c0 < n; c0 += ACH) {                                                    \
            const size_t m = n - c0 < ACH ? n - c0 : ACH;                                           \
            const uint64_t ck = NAME##_arun(x + c0, m, mn, nk);                                     \
            if (!gp_rarg_better(mn, ck, base + c0, *bk, *bi)) continue;                             \
            const size_t i = NAME##_afind(x + c0, m, 1, ck, nk);                                    \
            if (i < m && gp_rarg_better(mn, ck, base + c0 + i, *bk, *bi)) { *bk = ck; *bi = base + c0 + i; } \
        }                                                                                           \
    }                                                                                               \
    static void NAME##_arg_cols(const T *x, size_t rows, size_t cols, size_t row0, int mn, uint64_t nk, \
                                uint64_t *key, uint64_t *idx)                                       \
    {                                                                                               \
        uint64_t ck[ARG_BC];                                                                        \
        for (size_t c0 = 0; c0 < cols; c0 += ARG_BC) {                                              \
            const size_t w = cols - c0 < ARG_BC ? cols - c0 : ARG_BC;                               \
            for (size_t r0 = 0; r0 < rows; r0 += ARG_BR) {                                          \
                const size_t nr = rows - r0 < ARG_BR ? rows - r0 : ARG_BR;                          \
                const T *p = x + r0 * cols + c0;                                                    \
                NAME##_ablock(p, nr, cols, w, mn, nk, ck);                                          \
                for (size_t c = 0; c < w; c++) {                                                    \
                    uint64_t *k = key + c0 + c, *id = idx + c0 + c;                                 \
                    if (!gp_rarg_better(mn, ck[c], row0 + r0, *k, *id)) continue;                   \
                    const size_t r = NAME##_afind(p + c, nr, cols, ck[c], nk);                      \
                    if (r < nr && gp_rarg_better(mn, ck[c], row0 + r0 + r, *k, *id)) {              \
                        *k = ck[c];                                                                 \
                        *id = row0 + r0 + r;                                                        \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    static void NAME##_arg(const T *x, size_t rows, size_t cols, size_t row0, gp_rkind k, gp_raxis axis, \
                           uint64_t *key, uint64_t *idx)                                            \
    {                                                                                               \
        const int mn = k == GP_RK_ARGMIN;                                                           \
        const uint64_t nk = gp_rarg_nankey(k);                                                      \
        if (!rows || !cols) return;                                                                 \
        if (axis == GP_AXIS_COLS) NAME##_arg_cols(x, rows, cols, row0, mn, nk, key, idx);           \
        else if (axis == GP_AXIS_ALL) NAME##_arg_run(x, rows * cols, mn, nk, (uint64_t)row0 * cols, key, idx); \
        else for (size_t r = 0; r < rows; r++) NAME##_arg_run(x + r * cols, cols, mn, nk, 0, key + r, idx + r); \
    }
#define IARG_KERNEL(NAME, T, SGN) IARG_FNS(NAME, T, SGN) ARG_KERNEL(NAME, T)
IARG_KERNEL(i8, int8_t, 1)
IARG_KERNEL(i16, int16_t, 1)
IARG_KERNEL(i32, int32_t, 1)
IARG_KERNEL(i64, int64_t, 1)
IARG_KERNEL(u8, uint8_t, 0)
IARG_KERNEL(u16, uint16_t, 0)
IARG_KERNEL(u32, uint32_t, 0)
IARG_KERNEL(u64, uint64_t, 0)
FARG_FNS(f32, float, uint32_t, int32_t, 0x80000000u)
ARG_KERNEL(f32, float)
FARG_FNS(f64, double, uint64_t, int64_t, 0x8000000000000000ull)
ARG_KERNEL(f64, double)

#define DISPATCH_ARG(NAME, T) case GP_RT_##NAME: NAME##_arg((const T *)buf, rows, cols, row0, k, axis, key, idx); break;
void gp_cpu_rarg(const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rkind k, gp_raxis axis,
                 uint64_t *key, uint64_t *idx)
{
    switch (t) {
        DISPATCH_ARG(i8, int8_t) DISPATCH_ARG(i16, int16_t) DISPATCH_ARG(i32, int32_t)
        DISPATCH_ARG(i64, int64_t) DISPATCH_ARG(u8, uint8_t) DISPATCH_ARG(u16, uint16_t)
        DISPATCH_ARG(u32, uint32_t) DISPATCH_ARG(u64, uint64_t) DISPATCH_ARG(f32, float)
        DISPATCH_ARG(f64, double)
    default: break;
    }
}

/* ---- stats: one pass ------------------------------------------------------------------------------ */
uint64_t gp_rhash(const void *val, size_t esize, uint64_t index)
{
    return XXH3_64bits_withSeed(val, esize, index);
}

/* gp_rhash_run: the fingerprints of n consecutive elements of 1, 2, 4 or 8 bytes in one loop that
 * the compiler vectorises, through pipeline/rhash.h (XXH3 of so few bytes written out, shared with
 * the CUDA kernels; the same bits as libxxhash: unit test test_rhash_run). With
 * AVX-512's 64-bit multiplies and rotates one core hashes f64 elements ~4x faster than a call
 * per element (bench/NOTES.md, 2026-12-05); AVX2 has neither and gains little. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GP_NO_SSE2)
#define GP_HASH __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GP_HASH
#endif
#define HX_RUN(ES, T, MIX)                                                                      \
    GP_HASH static uint64_t hx_run##ES(const unsigned char *restrict p, size_t n, uint64_t seed, uint64_t step) \
    {                                                                                           \
        uint64_t h = 0;                                                                         \
        for (size_t i = 0; i < n; i++, seed += step) {                                          \
            T v;                                                                                \
            memcpy(&v, p + ES * i, ES);                                                         \
            h += MIX((uint64_t)v, seed);                                                        \
        }                                                                                       \
        return h;                                                                               \
    }
HX_RUN(1, uint8_t, gp_hx1)
HX_RUN(2, uint16_t, gp_hx2)
HX_RUN(4, uint32_t, gp_hx4)
HX_RUN(8, uint64_t, gp_hx8)
uint64_t gp_rhash_run(const void *p, size_t n, size_t esize, uint64_t seed, uint64_t step)
{
    const unsigned char *b = p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__   /* the values read as XXH_readLE */
    switch (esize) {
    case 1: return hx_run1(b, n, seed, step);
    case 2: return hx_run2(b, n, seed, step);
    case 4: return hx_run4(b, n, seed, step);
    case 8: return hx_run8(b, n, seed, step);
    default: break;
    }
#endif
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++, seed += step) h += gp_rhash(b + i * esize, esize, seed);
    return h;
}

void gp_rstats_init(gp_rstats *s, gp_rtype t)
{
    memset(s, 0, sizeof *s);
    s->fs = gp_rfmt(t, GP_RK_SUM);
    s->fq = gp_rfmt(t, GP_RK_SQ);
    s->kmin = ~0ull;
    s->kmax = 0;
}

/* Float stats over the panel as one flat run (element i has index row0 * cols + i), in blocks of
 * VB: the checksum (XXH3 inlined), min and max keys and the NaN count (the vectorised extrema
 * loops), the +-Inf counts, and the two exact sums in lanes (f64_lanes / f32_lanes; f64 squares
 * as fl(x^2) plus the exact error of the product by Dekker's split, equal to fma(x, x, -fl(x^2))
 * wherever it is used: blocks of zeros and magnitudes in [2^-400, 2^495); the errors in lanes of
 * their own, where they do not spill at every add as next to the squares); a block that fails
 * goes into that sum element by element (the squares' FMA error term, overflowing squares
 * counted in qover). */
GP_LANES static int f64_sqerr(const double *restrict p, size_t n, double *restrict e)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        const double d = p[i], ad = fabs(d);
        ok &= (ad >= 0x1p-400 && ad < 0x1p495) | (d == 0);
        const double c = 134217729.0 * d, hi = c - (c - d), lo = d - hi, pp = d * d;
        e[i] = ((hi * hi - pp) + 2 * hi * lo) + lo * lo;
    }
    return ok;
}
#define STATS_FLOAT(NAME, T, U, FMA)                                                                     \
    static void NAME##_stats(const T *x, size_t rows, size_t cols, size_t row0, gp_rstats *s)        \
    {                                                                                               \
        double a[GP_XK] = {0}, b[GP_XK] = {0}, sa0[LANES] = {0}, sa1[LANES] = {0};                  \
        double qa0[LANES] = {0}, qa1[LANES] = {0}, ea0[LANES] = {0}, ea1[LANES] = {0}, sp[VB], e[VB]; \
        int64_t nan = 0, pinf = 0, ninf = 0;                                                        \
        uint64_t h = 0;                                                                             \
        const size_t n = rows * cols;                                                               \
        const uint64_t i0 = (uint64_t)row0 * cols;                                                  \
        for (size_t done = 0; done < n;) {                                                          \
            const size_t m = n - done < CHUNK ? n - done : CHUNK;                                   \
            for (size_t j = done; j < done + m; j += VB) {                                          \
                const size_t nb = done + m - j < VB ? done + m - j : VB, nl = nb - nb % LANES;       \
                const T *p = x + j;                                                                 \
                h += gp_rhash_run(p, nb, sizeof(T), i0 + j, 1);                                     \
                int64_t dummy = 0;                                                                  \
                NAME##_ext_fold(NAME##_ext_run((const U *)p, nb, 1, 0, &nan), 1, &s->kmin);          \
                NAME##_ext_fold(NAME##_ext_run((const U *)p, nb, 0, 0, &dummy), 0, &s->kmax);        \
                NAME##_inf_counts((const U *)p, nb, &pinf, &ninf);                                  \
                int r = nl ? NAME##_lanes(p, nl, LANES, 0, sa0, sa1, sp) : 1;                       \
                if (r == 3) spills_out(sp, nl, 0, 1, 0, s->s, s->fs.lo);                            \
                for (size_t i = r ? nl : 0; i < nb; i++) {                                          \
                    const double d = (double)p[i];                                                  \
                    if (isfinite(d)) gp_xexp_add(a, d, s->s, s->fs.lo);                             \
                }                                                                                   \
                r = nl ? NAME##_lanes(p, nl, LANES, 1, qa0, qa1, sp) : 1;                           \
                if (r == 3) spills_out(sp, nl, 0, 1, 0, s->q, s->fq.lo);                            \
                if (FMA && r && nl) {                                                               \
                    if (f64_sqerr((const double *)p, nl, e)) {                                      \
                        r = f64_lanes(e, nl, LANES, 0, ea0, ea1, sp);   /* lanes of their own */    \
                        if (r == 3) spills_out(sp, nl, 0, 1, 0, s->q, s->fq.lo);                    \
                    } else {   /* the squares went in: only their errors, element by element */   \
                        for (size_t i = 0; i < nl; i++) {                                           \
                            const double d = (double)p[i], pp = gp_mul_rn(d, d), er = fma(d, d, -pp); \
                            if (er != 0) gp_xexp_add(b, er, s->q, s->fq.lo);                        \
                        }                                                                           \
                    }                                                                               \
                }                                                                                   \
                for (size_t i = r ? nl : 0; i < nb; i++) {                                          \
                    const double d = (double)p[i];                                                  \
                    if (!isfinite(d)) continue;                                                     \
                    const double pp = gp_mul_rn(d, d);                                              \
                    if (pp - pp != 0) { s->qover++; continue; }   /* x^2 overflows */               \
                    gp_xexp_add(b, pp, s->q, s->fq.lo);                                             \
                    if (FMA) { const double er = fma(d, d, -pp); if (er != 0) gp_xexp_add(b, er, s->q, s->fq.lo); } \
                }                                                                                   \
            }                                                                                       \
            lanes_out(sa0, sa1, LANES, 1, 0, s->s, s->fs.lo);                                       \
            lanes_out(qa0, qa1, LANES, 1, 0, s->q, s->fq.lo);                                       \
            lanes_out(ea0, ea1, LANES, 1, 0, s->q, s->fq.lo);                                       \
            gp_xexp_flush(a, s->s, s->fs.lo);                                                       \
            gp_xexp_flush(b, s->q, s->fq.lo);                                                       \
            gp_xnorm(s->s, s->fs.nl);                                                               \
            gp_xnorm(s->q, s->fq.nl);                                                               \
            done += m;                                                                              \
        }                                                                                           \
        s->nan += nan; s->pinf += pinf; s->ninf += ninf;                                            \
        s->checksum += h;                                                                           \
        s->count += (int64_t)n;                                                                     \
        s->finite += (int64_t)n - nan - pinf - ninf;                                                \
    }
STATS_FLOAT(f32, float, uint32_t, 0)
STATS_FLOAT(f64, double, uint64_t, 1)

/* Integer stats over the panel as one flat run, in blocks of CHUNK elements: the checksum, the
 * extrema (IEXT's vectorised min and max), the sum and the sum of squares in 64 bits per block
 * where they cannot overflow (values of at most 32 bits; squares of at most 16 bits, or of 32
 * bits split into their 32-bit halves), deposited exactly into the accumulators after each
 * block. 64-bit values take the 128-bit path element by element. (The element loop with keys
 * and 128-bit adds for every type ran at 1.4 GB/s for i32.) */
#define IB 4096   /* integer stats: elements per block that every pass reads while it is in cache */
#define STATS_INT(NAME, T)                                                                               \
    GP_WIDE static void NAME##_sqhl(const T *restrict p, size_t m, uint64_t *hi, uint64_t *lo)       \
    {                                                                                               \
        uint64_t h = 0, l = 0;                                                                      \
        for (size_t i = 0; i < m; i++) {                                                            \
            const uint64_t a = (uint64_t)NAME##_mag(p[i]), q = a * a;                               \
            h += q >> 32;                                                                           \
            l += q & 0xffffffffu;                                                                   \
        }                                                                                           \
        *hi = h;                                                                                    \
        *lo = l;                                                                                    \
    }                                                                                               \
    static void NAME##_stats(const T *x, size_t rows, size_t cols, size_t row0, gp_rstats *s)        \
    {                                                                                               \
        __int128 sum = 0; unsigned __int128 q = 0; uint64_t qc = 0, h = 0;                          \
        uint64_t kmin = s->kmin, kmax = s->kmax;                                                    \
        const size_t n = rows * cols;                                                               \
        const uint64_t i0 = (uint64_t)row0 * cols;                                                  \
        for (size_t done = 0; done < n;) {                                                          \
            const size_t m = n - done < CHUNK ? n - done : CHUNK;                                   \
            for (size_t j = done; j < done + m; j += IB) {   /* the passes over one cached block */ \
                const size_t nb = done + m - j < IB ? done + m - j : IB;                            \
                const T *p = x + j;                                                                 \
                h += gp_rhash_run(p, nb, sizeof(T), i0 + j, 1);                                     \
                const uint64_t lo = NAME##_ext_run(p, nb, 0), hi = NAME##_ext_run(p, nb, 1);        \
                kmin = lo < kmin ? lo : kmin;                                                       \
                kmax = hi > kmax ? hi : kmax;                                                       \
                if (sizeof(T) <= 4) sum += NAME##_sum64(p, nb);   /* < 2^24 values: no overflow */  \
                else for (size_t i = 0; i < nb; i++) NAME##_one(p[i], 0, &sum, &q, &qc);             \
                if (sizeof(T) <= 2) {                                                               \
                    q += NAME##_sq64(p, nb);                                                        \
                } else if (sizeof(T) == 4) {                                                        \
                    uint64_t qh, ql;                                                                \
                    NAME##_sqhl(p, nb, &qh, &ql);                                                   \
                    q += ((unsigned __int128)qh << 32) + ql;                                        \
                } else {                                                                            \
                    for (size_t i = 0; i < nb; i++) NAME##_one(p[i], 1, &sum, &q, &qc);             \
                }                                                                                   \
            }                                                                                       \
            dep128(s->s, sum);                                                                      \
            depu192(s->q, q, qc);                                                                   \
            sum = 0; q = 0; qc = 0;                                                                 \
            gp_xnorm(s->s, s->fs.nl);                                                               \
            gp_xnorm(s->q, s->fq.nl);                                                               \
            done += m;                                                                              \
        }                                                                                           \
        s->kmin = kmin; s->kmax = kmax; s->checksum += h;                                           \
        s->count += (int64_t)n;                                                                     \
        s->finite += (int64_t)n;                                                                    \
    }
STATS_INT(i8, int8_t)
STATS_INT(i16, int16_t)
STATS_INT(i32, int32_t)
STATS_INT(i64, int64_t)
STATS_INT(u8, uint8_t)
STATS_INT(u16, uint16_t)
STATS_INT(u32, uint32_t)
STATS_INT(u64, uint64_t)

#define DISPATCH_STATS(NAME, T) case GP_RT_##NAME: NAME##_stats((const T *)buf, rows, cols, row0, s); break;
void gp_cpu_rstats(const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rstats *s)
{
    switch (t) {
        DISPATCH_STATS(i8, int8_t) DISPATCH_STATS(i16, int16_t) DISPATCH_STATS(i32, int32_t)
        DISPATCH_STATS(i64, int64_t) DISPATCH_STATS(u8, uint8_t) DISPATCH_STATS(u16, uint16_t)
        DISPATCH_STATS(u32, uint32_t) DISPATCH_STATS(u64, uint64_t) DISPATCH_STATS(f32, float)
        DISPATCH_STATS(f64, double)
    default: break;
    }
}

/* ---- CUDA stubs when built without nvcc (and without the CPU emulation of the tests) ---------------- */
#if !defined(GP_HAVE_CUDA) && !defined(GP_CUDA_EMU)
struct gp_cuda_reduce { int unused; };
static int no_cuda(char *err, size_t errlen)
{
    snprintf(err, errlen, "built without CUDA");
    return GP_ENODEV;
}
int gp_cuda_reduce_create(gp_cuda_reduce **out, int local_rank, char *err, size_t errlen)
{
    (void)local_rank;
    *out = NULL;
    snprintf(err, errlen, "this gpipe was built without CUDA (nvcc not found at configure time)");
    return GP_ENODEV;
}
void gp_cuda_reduce_destroy(gp_cuda_reduce *c) { (void)c; }
const char *gp_cuda_reduce_desc(gp_cuda_reduce *c) { (void)c; return "none"; }
int gp_cuda_rsum(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                 gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)t; (void)k; (void)axis; (void)f; (void)acc; (void)rowval;
    return no_cuda(err, errlen);
}
int gp_cuda_rext(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                 gp_raxis axis, uint64_t *key, int64_t *nan, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)t; (void)k; (void)axis; (void)key; (void)nan;
    return no_cuda(err, errlen);
}
int gp_cuda_rarg(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                 gp_rkind k, gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)row0; (void)t; (void)k; (void)axis; (void)key; (void)idx;
    return no_cuda(err, errlen);
}
int gp_cuda_rstats(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                   gp_rstats *s, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)row0; (void)t; (void)s;
    return no_cuda(err, errlen);
}
int gp_cuda_rhash(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t esize, uint64_t seed0,
                  uint64_t rstep, uint64_t cstep, gp_raxis axis, uint64_t *out, char *err, size_t errlen)
{
    (void)c; (void)buf; (void)rows; (void)cols; (void)esize; (void)seed0; (void)rstep; (void)cstep; (void)axis; (void)out;
    return no_cuda(err, errlen);
}
int gp_cuda_reduce_pin(gp_cuda_reduce *c, void *buf, size_t bytes)
{
    (void)c; (void)buf; (void)bytes;
    return 0;
}
void gp_cuda_reduce_unpin(gp_cuda_reduce *c, void *buf) { (void)c; (void)buf; }
int gp_cuda_reduce_tune(gp_cuda_reduce *c, const char *spec, char *err, size_t errlen)
{
    (void)c; (void)spec;
    return no_cuda(err, errlen);
}
const char *gp_cuda_reduce_tuning(gp_cuda_reduce *c) { (void)c; return "none"; }
size_t gp_cuda_reduce_fallbacks(gp_cuda_reduce *c) { (void)c; return 0; }
#endif
