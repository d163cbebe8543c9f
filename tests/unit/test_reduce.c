/* tests/unit/test_reduce.c — the exact accumulator (pipeline/xacc.h) and the CPU reduce kernels:
 * correct rounding on known answers (ties, subnormals, huge cancellations, overflow), NaN/Inf
 * rules, and bit-identical results for any permutation and any split of the data into panels
 * merged by integer addition (what ranks and panels do). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <xxhash.h>   /* the library's XXH3: the reference for the inlined one in the stats loops */
#include "pipeline/reduce.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Exact sum over all elements as a double through the CPU kernel, split in `parts` panels of
 * rows (rows x 1 layout) each with its own accumulator, merged by int64 addition. */
static double sum_split(const double *x, size_t n, int parts, gp_rkind k)
{
    gp_xfmt f = gp_rfmt(GP_RT_F64, k);
    size_t w = gp_rwords(f);
    int64_t *tot = calloc(w, 8), *acc = calloc(w, 8);
    size_t start = 0;
    for (int p = 0; p < parts; p++) {
        size_t cnt = (n - start) / (size_t)(parts - p);
        if (p == parts - 1) cnt = n - start;
        memset(acc, 0, w * 8);
        gp_cpu_rsum(x + start, cnt, 1, GP_RT_F64, k, GP_AXIS_ALL, f, acc);
        for (size_t i = 0; i < w; i++) tot[i] += acc[i];
        start += cnt;
    }
    double d = gp_xvalue(tot, f);
    free(tot);
    free(acc);
    return d;
}
static uint64_t bits(double d) { return gp_dbits(d); }

static void test_known_answers(void **state)
{
    (void)state;
    double one_tie[] = {1.0, 0x1p-53};                 /* exact tie: to even -> 1 */
    assert_true(sum_split(one_tie, 2, 1, GP_RK_SUM) == 1.0);
    double one_up[] = {1.0, 0x1p-53, 0x1p-1074};      /* just above the tie -> 1 + 2^-52 */
    assert_true(sum_split(one_up, 3, 1, GP_RK_SUM) == 1.0 + 0x1p-52);
    double odd_tie[] = {1.0 + 0x1p-52, 0x1p-53};      /* tie, odd mantissa -> up */
    assert_true(sum_split(odd_tie, 2, 1, GP_RK_SUM) == 1.0 + 0x1p-51);
    double cancel[] = {1e308, 1.0, -1e308, 0x1p-1074, 1e-300, -1e-300};
    assert_true(bits(sum_split(cancel, 6, 1, GP_RK_SUM)) == bits(1.0));
    double sub[] = {0x1p-1074, 0x1p-1074, 0x1p-1074, -0x1p-1073};
    assert_true(bits(sum_split(sub, 4, 1, GP_RK_SUM)) == bits(0x1p-1074));
    double ovf[] = {0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023};
    assert_true(sum_split(ovf, 3, 1, GP_RK_SUM) == 0x1.fffffffffffffp1023);  /* exact: no overflow */
    double ovf2[] = {0x1.fffffffffffffp1023, 0x1p970};                      /* rounds up to Inf */
    assert_true(isinf(sum_split(ovf2, 2, 1, GP_RK_SUM)));
    double zeros[] = {-0.0, -0.0};
    assert_true(bits(sum_split(zeros, 2, 1, GP_RK_SUM)) == 0);               /* exact zero is +0 */
    double sq[] = {3.0, -4.0};
    assert_true(sum_split(sq, 2, 1, GP_RK_SQ) == 25.0);
    /* cancelling pairs around a tie: 2^53 + 3 lies halfway between 2^53 + 2 and 2^53 + 4 */
    double many[1000];
    for (int i = 0; i < 1000; i++) many[i] = (i % 2) ? 0x1p53 : -0x1p53;
    many[500] = 3.0;  /* replaces a -2^53: sum = 2^53 + 3 -> even: 2^53 + 4 */
    assert_true(bits(sum_split(many, 1000, 7, GP_RK_SUM)) == bits(0x1p53 + 4.0));
}

static void test_nan_inf(void **state)
{
    (void)state;
    double a[] = {1.0, INFINITY, 2.0};
    assert_true(sum_split(a, 3, 1, GP_RK_SUM) == INFINITY);
    double b[] = {1.0, INFINITY, -INFINITY};
    assert_true(bits(sum_split(b, 3, 1, GP_RK_SUM)) == GP_CANON_NAN);
    double c[] = {1.0, -NAN, 2.0};
    assert_true(bits(sum_split(c, 3, 1, GP_RK_SUM)) == GP_CANON_NAN);
    double d[] = {1.0, -INFINITY};
    assert_true(sum_split(d, 2, 1, GP_RK_SUM) == -INFINITY);
    assert_true(sum_split(d, 2, 1, GP_RK_SQ) == INFINITY);
    double e[] = {1e200, 1.0};
    assert_true(sum_split(e, 2, 1, GP_RK_SQ) == INFINITY);                   /* square overflows */
    /* extrema: NaN propagates, -0 < +0 */
    double m[] = {0.0, -0.0, -1.0, 5.0};
    uint64_t kmin = ~0ull, kmax = 0;
    int64_t nan = 0;
    gp_cpu_rext(m, 1, 4, GP_RT_F64, GP_RK_MIN, GP_AXIS_ALL, &kmin, &nan);
    gp_cpu_rext(m, 1, 4, GP_RT_F64, GP_RK_MAX, GP_AXIS_ALL, &kmax, &nan);
    assert_true(gp_unkey_d(kmin) == -1.0 && gp_unkey_d(kmax) == 5.0);
    double z[] = {0.0, -0.0};
    kmin = ~0ull;
    kmax = 0;
    gp_cpu_rext(z, 1, 2, GP_RT_F64, GP_RK_MIN, GP_AXIS_ALL, &kmin, &nan);
    gp_cpu_rext(z, 1, 2, GP_RT_F64, GP_RK_MAX, GP_AXIS_ALL, &kmax, &nan);
    assert_true(bits(gp_unkey_d(kmin)) == bits(-0.0) && bits(gp_unkey_d(kmax)) == 0);
    double n2[] = {1.0, NAN};
    gp_cpu_rext(n2, 1, 2, GP_RT_F64, GP_RK_MAX, GP_AXIS_ALL, &kmax, &nan);
    assert_true(nan == 1);
}

/* random doubles over the whole range, with subnormals, +-0 and cancelling pairs */
static double rand_double(void)
{
    uint64_t r = rnd();
    switch (r % 8) {
    case 0: return 0x1p-1074 * (double)(rnd() % 1000) * ((r >> 8) & 1 ? -1 : 1);   /* subnormal */
    case 1: return (r >> 8) & 1 ? -0.0 : 0.0;
    case 2: return ldexp((double)(rnd() >> 11), (int)(rnd() % 1900) - 1000 - 53);  /* any scale */
    default: return ldexp((double)(int64_t)(rnd() >> 11) - 0x1p52, (int)(rnd() % 40) - 60);
    }
}

static void test_permutation_and_split(void **state)
{
    (void)state;
    const size_t n = 20011;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int trial = 0; trial < 6; trial++) {
        for (size_t i = 0; i < n; i++) x[i] = rand_double();
        if (trial % 2) {  /* huge cancellations: add exact negatives of big values */
            for (size_t i = 0; i + 1 < n; i += 3) x[i + 1] = -x[i];
            x[7] = 0x1p1000;
            x[11] = -0x1p1000;
        }
        for (gp_rkind k = GP_RK_SUM; k <= GP_RK_SQ; k++) {
            uint64_t ref = bits(sum_split(x, n, 1, k));
            int parts[] = {2, 3, 16, 97, 1000};
            for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
                assert_true(bits(sum_split(x, n, parts[p], k)) == ref);
            for (int perm = 0; perm < 4; perm++) {
                memcpy(y, x, n * sizeof *y);
                for (size_t i = n - 1; i > 0; i--) {
                    size_t j = rnd() % (i + 1);
                    double t = y[i]; y[i] = y[j]; y[j] = t;
                }
                assert_true(bits(sum_split(y, n, 1 + perm * 5, k)) == ref);
            }
        }
    }
    /* long double check where it is exact: 64-bit significands hold sums of 2^-20-granular values */
    long double ld = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)((int64_t)(rnd() % 2000001) - 1000000) * 0x1p-20;
        ld += x[i];
    }
    assert_true(sum_split(x, n, 5, GP_RK_SUM) == (double)ld);
    free(x);
    free(y);
}

/* f32 sums (axis all and rows) go through runs of blocks summed in plain double when their
 * exponents allow (kernels/cpu/reduce.c, f32_all_runs): against the f64 kernel on the same
 * values (an independent exact path, so the correctly rounded result must have the same bits),
 * on data where the runs hold, break often, or never start (wide exponents, NaN, Inf, subnormals,
 * zeros, huge cancellations), at lengths around the block size. */
static uint64_t f32_sum_bits(const float *x, size_t rows, size_t cols, gp_raxis axis, size_t row)
{
    gp_xfmt f = gp_rfmt(GP_RT_F32, GP_RK_SUM);
    size_t w = gp_rwords(f), nt = axis == GP_AXIS_ROWS ? rows : 1;
    int64_t *acc = calloc(nt * w, 8);
    gp_cpu_rsum(x, rows, cols, GP_RT_F32, GP_RK_SUM, axis, f, acc);
    uint64_t b = bits(gp_xvalue(acc + (axis == GP_AXIS_ROWS ? row * w : 0), f));
    free(acc);
    return b;
}
/* The reference for the float kernels: every value (every rounded square) deposited straight
 * into the accumulator (pipeline/xacc.h), no expansion in front; NaN and Inf counted as the
 * kernels' contract says (docs/reductions.md). x is n values at a stride of `step` doubles. */
static uint64_t dep_ref_bits(const double *x, size_t n, size_t step, gp_rkind k, gp_xfmt f)
{
    const size_t w = gp_rwords(f);
    int64_t *acc = calloc(w, 8), *sp = acc + f.nl;
    for (size_t i = 0; i < n; i++) {
        double d = x[i * step];
        if (k == GP_RK_SQ && isfinite(d)) d = gp_mul_rn(d, d);
        if (isnan(d)) sp[0]++;
        else if (isinf(d)) sp[d < 0 && k != GP_RK_SQ ? 2 : 1]++;
        else gp_xdep_d(acc, f.lo, d);
        if (i % (1u << 20) == 0) gp_xnorm(acc, f.nl);
    }
    gp_xnorm(acc, f.nl);
    uint64_t b = bits(gp_xvalue(acc, f));
    free(acc);
    return b;
}
static uint64_t f64_ref_bits(const float *x, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = (double)x[i];
    uint64_t b = dep_ref_bits(d, n, 1, GP_RK_SUM, GP_XFMT_F32);
    free(d);
    return b;
}
static void test_f32_runs(void **state)
{
    (void)state;
    const size_t n = 100003;
    float *x = malloc(n * sizeof *x), *col = malloc(n * sizeof *col);
    for (int trial = 0; trial < 8; trial++) {
        for (size_t i = 0; i < n; i++) {
            double u = (double)(rnd() >> 11) * 0x1p-53 * 2 - 1;
            switch (trial) {
            case 0: x[i] = (float)u; break;                                  /* one scale: long runs */
            case 1: x[i] = (float)(u * 1e6); break;
            case 2: x[i] = (float)ldexp(u, (int)(rnd() % 12)); break;        /* runs break now and then */
            case 3: x[i] = (float)ldexp(u, (int)(rnd() % 80) - 40); break;   /* wide: element by element */
            case 4: x[i] = (float)(u * 0x1p-140); break;                     /* subnormals */
            case 5: x[i] = (i % 3 == 0) ? 0.0f : (float)u; break;            /* zeros, -0 below */
            default: x[i] = (float)u; break;
            }
        }
        if (trial == 5)
            for (size_t i = 1; i < n; i += 7) x[i] = -0.0f;
        if (trial == 6) {   /* cancellation: exact negatives and a huge pair inside runs */
            for (size_t i = 0; i + 1 < n; i += 2) x[i + 1] = -x[i];
            x[5000] = 0x1p100f;
            x[77777] = -0x1p100f;
            x[90001] = 0x1p-100f;
        }
        if (trial == 7) {   /* a NaN or an Inf inside otherwise good blocks */
            x[12345] = INFINITY;
            x[23456] = 1e-30f;
        }
        const uint64_t ref = f64_ref_bits(x, n);
        assert_true(f32_sum_bits(x, 1, n, GP_AXIS_ALL, 0) == ref);
        if (trial == 7) {
            x[54321] = NAN;
            assert_true(f32_sum_bits(x, 1, n, GP_AXIS_ALL, 0) == bits(gp_bitsd(GP_CANON_NAN)));
        }
        /* rows of lengths around the block size, and the whole as one row */
        const size_t lens[] = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 4099};
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            const size_t C = lens[li], R = n / C < 40 ? n / C : 40;
            for (size_t r = 0; r < R; r += 7)
                assert_true(f32_sum_bits(x, R, C, GP_AXIS_ROWS, r) == f64_ref_bits(x + r * C, C));
        }
        assert_true(f32_sum_bits(x, 1, n, GP_AXIS_ROWS, 0) == f64_ref_bits(x, n));
        /* columns: 1, 2, 4 and 8 (f32_cols8_runs: 8-lane blocks of 256 floats), other narrow
         * panels (their rows folded into >= 32 lanes), one and two column tiles of 256; row counts
         * with tail blocks of 1, 39 and 40 rows after blocks of 64 (and other tails of 256 / C) */
        const size_t cws[] = {1, 2, 3, 4, 7, 8, 31, 32, 33, 100, 256, 257, 300};
        const size_t rcap[] = {961, 999, 1000};
        gp_xfmt f = gp_rfmt(GP_RT_F32, GP_RK_SUM);
        const size_t w = gp_rwords(f);
        for (size_t ci = 0; ci < sizeof cws / sizeof *cws; ci++) {
            const size_t C = cws[ci], R = n / C < rcap[ci % 3] ? n / C : rcap[ci % 3];
            int64_t *acc = calloc(C * w, 8);
            gp_cpu_rsum(x, R, C, GP_RT_F32, GP_RK_SUM, GP_AXIS_COLS, f, acc);
            for (size_t c = 0; c < C; c++) {
                for (size_t r = 0; r < R; r++) col[r] = x[r * C + c];
                assert_true(bits(gp_xvalue(acc + c * w, f)) == f64_ref_bits(col, R));
            }
            free(acc);
        }
    }
    free(x);
    free(col);
}

/* f32 column sums of narrow panels fold m rows into lanes (kernels/cpu/reduce.c; 1, 2, 4 and 8
 * columns 8 / C rows into 8 lanes): a block whose large and tiny values lie in a lane other than
 * the first must still fail the span test, or the tiny ones vanish in a plain double sum: in lane
 * group 5, super-rows of m rows carry +1, 2^-70, -1, 0 in turn (exact column sum: R / (4 m) *
 * 2^-70), everything else is zero */
static void test_f32_cols_fold(void **state)
{
    (void)state;
    const size_t cws[] = {1, 2, 3, 4, 7, 8};
    for (size_t ci = 0; ci < sizeof cws / sizeof *cws; ci++) {
        const size_t C = cws[ci];
        size_t m = 1;
        while (C * m < 32 && m < 64) m *= 2;
        const size_t R = m * 32;
        float *x = calloc(R * C, sizeof *x), *col = malloc(R * sizeof *col);
        const float pat[4] = {1.0f, 0x1p-70f, -1.0f, 0.0f};
        for (size_t r = 5 % m; r < R; r += m)
            for (size_t c = 0; c < C; c++) x[r * C + c] = pat[(r / m) % 4];
        gp_xfmt f = gp_rfmt(GP_RT_F32, GP_RK_SUM);
        const size_t w = gp_rwords(f);
        int64_t *acc = calloc(C * w, 8);
        gp_cpu_rsum(x, R, C, GP_RT_F32, GP_RK_SUM, GP_AXIS_COLS, f, acc);
        for (size_t c = 0; c < C; c++) {
            for (size_t r = 0; r < R; r++) col[r] = x[r * C + c];
            assert_true(bits(gp_xvalue(acc + c * w, f)) == f64_ref_bits(col, R));
            assert_true(gp_xvalue(acc + c * w, f) == ldexp((double)R / (double)(4 * m), -70));
        }
        free(x); free(col); free(acc);
    }
}

/* The arrays of one case of the float tests below: R x C doubles and floats for shape sh. */
static size_t case_arrays(const size_t *sh, size_t *R, size_t *C, double **x, float **xf)
{
    *R = sh[0];
    *C = sh[1];
    *x = malloc(*R * *C * sizeof **x);
    *xf = malloc(*R * *C * sizeof **xf);
    return *R * *C;
}

/* f64 sums, and the sums of squares of f32 and f64, go through lanes of expansions
 * (kernels/cpu/reduce.c, *_lanes: blocks of 256 values, 32 lanes; columns up to 256 at a time,
 * narrow panels folded into >= 32 lanes): every axis against the deposit-only reference, on one
 * scale, many scales, the whole range with subnormals and zeros, values just under 2^990 (the
 * lanes' limit) whose sums pass 2^1000, blocks with values above it (or squares above it),
 * values whose sums in one lane would overflow, NaN/Inf, and sums where only the second errors
 * of the lanes are left, at lengths around the block and lane sizes. */
static double lanes_value(int kind, size_t r, size_t c, size_t R, size_t C)
{
    const size_t i = r * C + c;
    double u = (double)(rnd() >> 11) * 0x1p-53 * 2 - 1;
    switch (kind) {
    case 0: return u;                                                   /* one scale */
    case 1: return ldexp(u, (int)(rnd() % 20));                         /* the bench's data */
    case 2: return rand_double();                                       /* whole range */
    case 3: return ldexp(fabs(u) + 1, 988);                             /* lanes grow past 2^1000 */
    case 4: return i % 997 == 5 ? 0x1p990 * (u + 2) : u;                /* some blocks above 2^990 */
    case 5: return ldexp(u, 494 + (int)(rnd() % 3));                    /* squares around 2^990 */
    case 7: return ((i / 32) % 4 < 2 ? 0x1.8p1023 : -0x1.8p1023) + u;   /* a lane sum would overflow */
    case 8: {   /* +B, +c, t, -B, -c in one lane (a column, or every 32nd value of a row): only the
                 * tiny t are left, and they leave the lanes as second errors */
        const double seq[5] = {0x1.234p100, 0x1.5555p0, ldexp(u, -80), -0x1.234p100, -0x1.5555p0};
        return seq[(R >= 5 ? r : c / 32) % 5];
    }
    default: {                                                          /* NaN, Inf in a few blocks */
        const double sp[] = {NAN, INFINITY, -INFINITY, -NAN};
        return i % 1009 == 3 ? sp[rnd() % 4] : u;
    }
    }
}
static void test_lanes(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{1, 1},   {1, 255},  {1, 256}, {1, 257},  {3, 1000}, {2000, 1},
                                {777, 2}, {301, 3},  {130, 7}, {65, 31},  {64, 32},  {97, 33},
                                {40, 256}, {41, 257}, {9, 300}, {5, 600}, {129, 513}, {1, 100003}};
    double *x; float *xf;   /* one case's arrays (case_arrays) */
    for (int kind = 0; kind < 9; kind++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            size_t R, C, n = case_arrays(shapes[si], &R, &C, &x, &xf);
            double *xd = malloc(n * sizeof *xd);
            for (size_t i = 0; i < n; i++) x[i] = lanes_value(kind, i / C, i % C, R, C);
            for (size_t i = 0; i < n; i++) {
                xf[i] = (float)(kind >= 3 && kind <= 7 && kind != 6 ? x[i] * 0x1p-980 : x[i]);   /* finite f32 */
                if (kind == 5) xf[i] = (float)ldexp((double)(rnd() >> 40), (int)(rnd() % 200) - 100);
                xd[i] = (double)xf[i];
            }
            for (int t = 0; t < 3; t++) {   /* f64 sum, f64 sumsq, f32 sumsq */
                const gp_rkind k = t ? GP_RK_SQ : GP_RK_SUM;
                const gp_rtype ty = t == 2 ? GP_RT_F32 : GP_RT_F64;
                const void *buf = t == 2 ? (const void *)xf : (const void *)x;
                const double *ref = t == 2 ? xd : x;
                const gp_xfmt f = gp_rfmt(ty, k);
                const size_t w = gp_rwords(f);
                int64_t *acc = calloc((R > C ? R : C) * w, 8);
                gp_cpu_rsum(buf, R, C, ty, k, GP_AXIS_ALL, f, acc);
                assert_true(bits(gp_xvalue(acc, f)) == dep_ref_bits(ref, n, 1, k, f));
                memset(acc, 0, (R > C ? R : C) * w * 8);
                gp_cpu_rsum(buf, R, C, ty, k, GP_AXIS_ROWS, f, acc);
                for (size_t r = 0; r < R; r++)
                    assert_true(bits(gp_xvalue(acc + r * w, f)) == dep_ref_bits(ref + r * C, C, 1, k, f));
                memset(acc, 0, (R > C ? R : C) * w * 8);
                gp_cpu_rsum(buf, R, C, ty, k, GP_AXIS_COLS, f, acc);
                for (size_t c = 0; c < C; c++)
                    assert_true(bits(gp_xvalue(acc + c * w, f)) == dep_ref_bits(ref + c, R, C, k, f));
                free(acc);
            }
            free(x); free(xf); free(xd);
        }
}

/* Extrema of floats (kernels/cpu/reduce.c, FEXT_KERNEL: keys of the element's own width, no
 * branches) against a naive loop over gp_key_d, for min, max and absmax on every axis, f32 and f64,
 * with NaNs (both signs, quiet and signalling), +-Inf, +-0, subnormals and the largest finite
 * values, folded into keys left by an earlier panel, at odd shapes. */
static double ext_value(int kind)
{
    const double u = (double)(rnd() >> 11) * 0x1p-53 * 2 - 1;
    if (kind == 0 || rnd() % 4) return ldexp(u, (int)(rnd() % 60) - 30);
    const double sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0x1p-1074, -0x1p-1060, 0x1p-149, -0x1p-140,
                         0x1.fffffffffffffp1023, -0x1.fffffep127, 0x1.fffffep127};
    return sp[rnd() % (sizeof sp / sizeof *sp)];
}
static void test_ext_floats(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {7, 13}, {3, 257}, {64, 33}, {131, 129}, {2, 4099}};
    const gp_rkind ks[] = {GP_RK_MIN, GP_RK_MAX, GP_RK_ABSMAX};
    const gp_raxis axes[] = {GP_AXIS_ALL, GP_AXIS_ROWS, GP_AXIS_COLS};
    double *x; float *xf;   /* one case's arrays (case_arrays) */
    for (int kind = 0; kind < 2; kind++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            size_t R, C, n = case_arrays(shapes[si], &R, &C, &x, &xf);
            for (size_t i = 0; i < n; i++) x[i] = ext_value(kind);
            for (size_t i = 0; i < n; i++) xf[i] = (float)ext_value(kind);
            if (kind == 1) {   /* a signalling NaN and a NaN with a payload */
                const uint64_t sn = 0x7ff0000000000001ull;
                const uint32_t pf = 0xffc12345u;
                memcpy(x + n / 2, &sn, 8);
                memcpy(xf + n / 3, &pf, 4);
            }
            for (int t = 0; t < 2; t++)
                for (int ki = 0; ki < 3; ki++)
                    for (int ai = 0; ai < 3; ai++) {
                        const gp_rkind k = ks[ki];
                        const gp_raxis ax = axes[ai];
                        const int mn = k == GP_RK_MIN;
                        const size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C;
                        uint64_t *key = malloc(nt * 8), *rk = malloc(nt * 8);
                        int64_t *nan = calloc(nt, 8), *rn = calloc(nt, 8);
                        for (size_t j = 0; j < nt; j++)   /* an earlier panel's keys, or none */
                            key[j] = rk[j] = (j % 3 == 0) ? gp_key_d(ldexp((double)(j % 7) - 3, -3)) : (mn ? ~0ull : 0);
                        for (size_t r = 0; r < R; r++)
                            for (size_t c = 0; c < C; c++) {
                                double d = t ? (double)xf[r * C + c] : x[r * C + c];
                                const size_t j = ax == GP_AXIS_ALL ? 0 : ax == GP_AXIS_ROWS ? r : c;
                                if (d != d) { rn[j]++; continue; }
                                if (k == GP_RK_ABSMAX) d = fabs(d);
                                const uint64_t kk = gp_key_d(d);
                                rk[j] = mn ? (kk < rk[j] ? kk : rk[j]) : (kk > rk[j] ? kk : rk[j]);
                            }
                        gp_cpu_rext(t ? (const void *)xf : (const void *)x, R, C, t ? GP_RT_F32 : GP_RT_F64, k, ax, key, nan);
                        for (size_t j = 0; j < nt; j++) {
                            assert_true(key[j] == rk[j]);
                            assert_true(nan[j] == rn[j]);
                        }
                        free(key); free(rk); free(nan); free(rn);
                    }
            free(x); free(xf);
        }
}

/* Float stats (kernels/cpu/reduce.c, STATS_FLOAT: one flat pass in blocks, sums in lanes, f64
 * squares' errors by Dekker's split where it is exact) against a naive element loop: the sums by
 * deposits straight into accumulators (f64 squares as fl(x^2) + fma(x, x, -fl(x^2))), keys by
 * gp_key_d, counts, squares that overflow, and the checksum by libxxhash's own XXH3; on the data
 * of test_lanes plus magnitudes around 2^-400 (under it Dekker's error is not used; under ~2^-480
 * it would not be exact) and over 2^495, in one panel and in two (row0 > 0, accumulated into the
 * same stats). The exact sums are compared limb by limb. */
static void stats_ref(const void *buf, int f64, size_t n, uint64_t i0, gp_rstats *r)
{
    const size_t es = f64 ? 8 : 4;
    for (size_t i = 0; i < n; i++) {
        const double d = f64 ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
        r->checksum += XXH3_64bits_withSeed((const char *)buf + i * es, es, i0 + i);
        r->count++;
        if (d != d) { r->nan++; continue; }
        const uint64_t k = gp_key_d(d);
        r->kmin = k < r->kmin ? k : r->kmin;
        r->kmax = k > r->kmax ? k : r->kmax;
        if (isinf(d)) { if (d > 0) r->pinf++; else r->ninf++; continue; }
        r->finite++;
        gp_xdep_d(r->s, r->fs.lo, d);
        const double pp = gp_mul_rn(d, d);
        if (isinf(pp)) { r->qover++; continue; }
        if (pp != 0) gp_xdep_d(r->q, r->fq.lo, pp);
        const double e = f64 ? fma(d, d, -pp) : 0;
        if (e != 0) gp_xdep_d(r->q, r->fq.lo, e);
    }
    gp_xnorm(r->s, r->fs.nl);
    gp_xnorm(r->q, r->fq.nl);
}
static void test_stats_floats(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{1, 1}, {1, 31}, {1, 257}, {3, 100}, {2000, 1}, {77, 13}, {41, 257}, {1, 20011}};
    double *x; float *xf;   /* one case's arrays (case_arrays) */
    for (int kind = 0; kind < 11; kind++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            size_t R, C, n = case_arrays(shapes[si], &R, &C, &x, &xf);
            for (size_t i = 0; i < n; i++) {
                if (kind == 9) x[i] = ldexp((double)(rnd() >> 11) * 0x1p-53 + 0.5, (int)(rnd() % 200) - 570); /* 2^-570..2^-370 */
                else if (kind == 10) x[i] = ldexp((double)(rnd() >> 11) * 0x1p-53 + 0.5, (int)(rnd() % 40) + 470); /* near 2^495 */
                else x[i] = lanes_value(kind, i / C, i % C, R, C);
                xf[i] = (float)(kind >= 3 && kind <= 7 && kind != 6 ? x[i] * 0x1p-980 : kind >= 9 ? x[i] * 0x1p-400 : x[i]);
            }
            for (int t = 0; t < 2; t++) {
                const gp_rtype ty = t ? GP_RT_F32 : GP_RT_F64;
                const void *buf = t ? (const void *)xf : (const void *)x;
                const size_t es = t ? 4 : 8, row0 = 5 + si;
                gp_rstats g, h, r;
                gp_rstats_init(&g, ty);
                gp_rstats_init(&h, ty);
                gp_rstats_init(&r, ty);
                stats_ref(buf, !t, n, (uint64_t)row0 * C, &r);
                gp_cpu_rstats(buf, R, C, row0, ty, &g);
                const size_t r1 = R / 2;   /* two panels into one stats */
                gp_cpu_rstats(buf, r1, C, row0, ty, &h);
                gp_cpu_rstats((const char *)buf + r1 * C * es, R - r1, C, row0 + r1, ty, &h);
                const gp_rstats *v[2] = {&g, &h};
                for (int j = 0; j < 2; j++) {
                    /* the exact sums themselves (normalised limbs are unique), not only their
                     * roundings: a lost error term of a square rarely moves the rounded value */
                    assert_memory_equal(v[j]->s, r.s, (size_t)r.fs.nl * 8);
                    assert_memory_equal(v[j]->q, r.q, (size_t)r.fq.nl * 8);
                    assert_true(v[j]->kmin == r.kmin && v[j]->kmax == r.kmax);
                    assert_true(v[j]->count == r.count && v[j]->finite == r.finite && v[j]->nan == r.nan);
                    assert_true(v[j]->pinf == r.pinf && v[j]->ninf == r.ninf && v[j]->qover == r.qover);
                    assert_true(v[j]->checksum == r.checksum);
                }
            }
            free(x); free(xf);
        }
}

/* Integer stats (kernels/cpu/reduce.c STATS_INT: blocks of 4096 values, 64-bit partial sums,
 * 32-bit squares split into halves) against independent references: the exact sums and sums of
 * squares of gp_cpu_rsum over all elements (its own loops), min/max keys and the checksum by
 * naive loops (libxxhash's XXH3); every integer type, each type's extremes, block edges, one
 * panel and two. */
static void test_stats_integers(void **state)
{
    (void)state;
    const gp_rtype ts[] = {GP_RT_I8, GP_RT_I16, GP_RT_I32, GP_RT_I64, GP_RT_U8, GP_RT_U16, GP_RT_U32, GP_RT_U64};
    const size_t shapes[][2] = {{1, 1}, {1, 4096}, {1, 4097}, {3, 5003}, {4099, 1}, {9, 1031}};
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
            for (int kind = 0; kind < 3; kind++) {
                const gp_rtype t = ts[ti];
                const size_t R = shapes[si][0], C = shapes[si][1], n = R * C, es = gp_rtype_size(t);
                const int sgn = !gp_rtype_is_unsigned(t);
                unsigned char *buf = malloc(n * es);
                assert_non_null(buf);
                for (size_t i = 0; i < n; i++) {
                    uint64_t v = rnd();   /* kind 0: any bits; 1: each type's extremes; 2: all the minimum */
                    const uint64_t lo = sgn ? (uint64_t)1 << (8 * es - 1) : 0, hi = sgn ? lo - 1 : ~0ull;
                    if (kind == 1 && i % 3 == 0) v = lo;
                    if (kind == 1 && i % 3 == 1) v = hi;
                    if (kind == 2) v = sgn ? lo : hi;
                    memcpy(buf + i * es, &v, es);   /* little-endian: the low bytes */
                }
                const size_t row0 = 3 + si;
                gp_rstats g, h, r;
                gp_rstats_init(&g, t);
                gp_rstats_init(&h, t);
                gp_rstats_init(&r, t);
                int64_t as[GP_XNL_MAX + 3] = {0}, aq[GP_XNL_MAX + 3] = {0};
                gp_cpu_rsum(buf, R, C, t, GP_RK_SUM, GP_AXIS_ALL, r.fs, as);
                gp_cpu_rsum(buf, R, C, t, GP_RK_SQ, GP_AXIS_ALL, r.fq, aq);
                for (size_t i = 0; i < n; i++) {
                    uint64_t u = 0;
                    memcpy(&u, buf + i * es, es);
                    int64_t v = sgn && es < 8 && (u >> (8 * es - 1)) ? (int64_t)(u | (~0ull << (8 * es))) : (int64_t)u;
                    const uint64_t k = sgn ? gp_key_i(v) : u;
                    r.kmin = k < r.kmin ? k : r.kmin;
                    r.kmax = k > r.kmax ? k : r.kmax;
                    r.checksum += XXH3_64bits_withSeed(buf + i * es, es, (uint64_t)row0 * C + i);
                }
                gp_cpu_rstats(buf, R, C, row0, t, &g);
                const size_t r1 = R / 2;
                gp_cpu_rstats(buf, r1, C, row0, t, &h);
                gp_cpu_rstats(buf + r1 * C * es, R - r1, C, row0 + r1, t, &h);
                const gp_rstats *v2[2] = {&g, &h};
                for (int j = 0; j < 2; j++) {
                    assert_memory_equal(v2[j]->s, as, (size_t)r.fs.nl * 8);
                    assert_memory_equal(v2[j]->q, aq, (size_t)r.fq.nl * 8);
                    assert_true(v2[j]->kmin == r.kmin && v2[j]->kmax == r.kmax);
                    assert_true(v2[j]->checksum == r.checksum);
                    assert_true(v2[j]->count == (int64_t)n && v2[j]->finite == (int64_t)n && !v2[j]->nan);
                    assert_true(!v2[j]->qover && !v2[j]->pinf && !v2[j]->ninf);
                }
                free(buf);
            }
}

/* Sums and sums of squares of the narrow integer types (kernels/cpu/reduce.c: values of at most
 * 32 bits summed in 64 bits per chunk, squares of at most 16 bits in unsigned 64, the loops the
 * compiler vectorises) on every axis against 128-bit loops here, with each type's extremes. */
static void test_integers_narrow(void **state)
{
    (void)state;
    const gp_rtype ts[] = {GP_RT_I8, GP_RT_I16, GP_RT_I32, GP_RT_U8, GP_RT_U16, GP_RT_U32};
    const size_t shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {37, 29}, {5, 300}, {300, 5}};
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            const gp_rtype t = ts[ti];
            const size_t R = shapes[si][0], C = shapes[si][1], n = R * C, es = gp_rtype_size(t);
            const int uns = gp_rtype_is_unsigned(t);
            unsigned char *buf = malloc(n * es);
            __int128 *v = malloc(n * sizeof *v);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = rnd();
                if (i % 5 == 0) r = (i % 10 == 0) ? ~0ull : 0ull;          /* all ones / zero bits */
                if (i % 7 == 0) r = 1ull << (8 * es - 1);                   /* the sign bit alone */
                memcpy(buf + i * es, &r, es);                               /* little-endian low bytes */
                switch (t) {
                case GP_RT_I8: v[i] = ((const int8_t *)buf)[i]; break;
                case GP_RT_I16: v[i] = ((const int16_t *)buf)[i]; break;
                case GP_RT_I32: v[i] = ((const int32_t *)buf)[i]; break;
                case GP_RT_U8: v[i] = ((const uint8_t *)buf)[i]; break;
                case GP_RT_U16: v[i] = ((const uint16_t *)buf)[i]; break;
                default: v[i] = ((const uint32_t *)buf)[i]; break;
                }
            }
            for (int sq = 0; sq < 2; sq++)
                for (int ax = 0; ax < 3; ax++) {
                    const gp_raxis axis = ax == 0 ? GP_AXIS_ALL : ax == 1 ? GP_AXIS_ROWS : GP_AXIS_COLS;
                    const size_t nt = ax == 0 ? 1 : ax == 1 ? R : C;
                    const gp_xfmt f = gp_rfmt(t, sq ? GP_RK_SQ : GP_RK_SUM);
                    const size_t w = gp_rwords(f);
                    int64_t *acc = calloc(nt * w, 8);
                    gp_cpu_rsum(buf, R, C, t, sq ? GP_RK_SQ : GP_RK_SUM, axis, f, acc);
                    for (size_t j = 0; j < nt; j++) {
                        __int128 ref = 0;
                        for (size_t i = 0; i < n; i++) {
                            const size_t tj = ax == 0 ? 0 : ax == 1 ? i / C : i % C;
                            if (tj == j) ref += sq ? v[i] * v[i] : v[i];
                        }
                        uint64_t out = 0;
                        if (!sq) {   /* these sums fit 64 bits: the exact integer */
                            assert_int_equal(gp_xint(acc + j * w, f, uns, &out), 0);
                            assert_true(uns ? (__int128)out == ref : (__int128)(int64_t)out == ref);
                        } else {
                            assert_true(bits(gp_xvalue(acc + j * w, f)) == bits((double)ref));
                        }
                    }
                    free(acc);
                }
            free(buf); free(v);
        }
}

/* argmin/argmax of floats (kernels/cpu/reduce.c, ARG_KERNEL: chunks of 4096 values along rows and
 * the whole panel, blocks of 64 rows x 1024 columns, only a chunk or block column whose best could
 * win scanned for its first index) against a brute force over (key, first index), every axis, on
 * rows longer than a chunk, columns longer than a block and matrices wider than one, with ties
 * across chunks and blocks, ±0, ±Inf, NaNs (late, at a chunk's start) or none, in one panel and
 * in panels of 7 rows. */
static void test_arg_floats(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{1, 10000}, {3, 9001}, {2000, 7}, {50, 300}, {1, 4096}, {2, 4097}, {150, 1100}, {129, 1}};
    const double vals[] = {1.0, -1.0, 2.0, -2.0, 0.0, -0.0, INFINITY, -INFINITY, 0x1p-149, -0x1p-1074};
    double *x; float *xf;   /* one case's arrays (case_arrays) */
    for (int kind = 0; kind < 3; kind++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            size_t R, C, n = case_arrays(shapes[si], &R, &C, &x, &xf);
            for (size_t i = 0; i < n; i++) {
                x[i] = kind == 0 ? vals[rnd() % 6] : kind == 1 ? vals[rnd() % 10] : ldexp((double)(rnd() % 9) - 4, -3);
                if (kind == 1 && i > n / 2 && rnd() % 5000 == 0) x[i] = NAN;
            }
            if (kind == 2) x[n - 1 - n / 3] = NAN;   /* one NaN late */
            if (kind == 2 && n > 4100) x[4096] = x[4100] = NAN;   /* a chunk that starts with a NaN */
            for (size_t i = 0; i < n; i++) xf[i] = (float)x[i];
            for (int t = 0; t < 2; t++)
                for (gp_rkind k = GP_RK_ARGMIN; k <= GP_RK_ARGMAX; k++)
                    for (gp_raxis ax = GP_AXIS_ALL; ax <= GP_AXIS_COLS; ax++) {
                        const int mn = k == GP_RK_ARGMIN;
                        const size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C, es = t ? 4 : 8;
                        const void *buf = t ? (const void *)xf : (const void *)x;
                        const gp_rtype ty = t ? GP_RT_F32 : GP_RT_F64;
                        uint64_t *key = malloc(nt * 8), *idx = malloc(nt * 8), *key2 = malloc(nt * 8), *idx2 = malloc(nt * 8);
                        for (size_t j = 0; j < nt; j++) { key[j] = key2[j] = gp_rext_identity(k); idx[j] = idx2[j] = GP_RARG_NONE; }
                        gp_cpu_rarg(buf, R, C, 0, ty, k, ax, key, idx);
                        for (size_t r0 = 0; r0 < R; r0 += 7) {
                            const size_t m = R - r0 < 7 ? R - r0 : 7;
                            const void *b = (const char *)buf + r0 * C * es;
                            if (ax == GP_AXIS_ROWS) gp_cpu_rarg(b, m, C, r0, ty, k, ax, key2 + r0, idx2 + r0);
                            else gp_cpu_rarg(b, m, C, r0, ty, k, ax, key2, idx2);
                        }
                        for (size_t j = 0; j < nt; j++) {
                            uint64_t bk = gp_rext_identity(k), bi = GP_RARG_NONE;
                            const size_t len = ax == GP_AXIS_ALL ? n : ax == GP_AXIS_ROWS ? C : R;
                            for (size_t e = 0; e < len; e++) {
                                const size_t pos = ax == GP_AXIS_ALL ? e : ax == GP_AXIS_ROWS ? j * C + e : e * C + j;
                                const double d = t ? (double)xf[pos] : x[pos];
                                const uint64_t kk = d != d ? gp_rarg_nankey(k) : gp_key_d(d);
                                if (mn ? kk < bk : kk > bk) { bk = kk; bi = e; }
                            }
                            assert_true(key[j] == bk && idx[j] == bi);
                            assert_true(key2[j] == bk && idx2[j] == bi);
                        }
                        free(key); free(idx); free(key2); free(idx2);
                    }
            free(x); free(xf);
        }
}

/* Extrema of integers (kernels/cpu/reduce.c, IEXT_KERNEL: min/max in the element's type, absmax as
 * magnitudes) against a naive loop over 64-bit keys, for every integer type, min, max and absmax,
 * every axis, with each type's extremes, folded into keys left by an earlier panel. */
static void test_ext_ints(void **state)
{
    (void)state;
    const gp_rtype ts[] = {GP_RT_I8, GP_RT_I16, GP_RT_I32, GP_RT_I64, GP_RT_U8, GP_RT_U16, GP_RT_U32, GP_RT_U64};
    const size_t shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {37, 29}, {3, 300}};
    const gp_rkind ks[] = {GP_RK_MIN, GP_RK_MAX, GP_RK_ABSMAX};
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            const gp_rtype t = ts[ti];
            const size_t R = shapes[si][0], C = shapes[si][1], n = R * C, es = gp_rtype_size(t);
            unsigned char *buf = malloc(n * es);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = rnd() >> (rnd() % 64);                          /* all magnitudes */
                if (i % 11 == 0) r = 1ull << (8 * es - 1);                    /* the signed minimum */
                if (i % 13 == 0) r = ~0ull;                                   /* -1 / the unsigned maximum */
                if (i % 17 == 0) r = (1ull << (8 * es - 1)) - 1;              /* the signed maximum */
                memcpy(buf + i * es, &r, es);
            }
            const int uns = gp_rtype_is_unsigned(t);
            for (int ki = 0; ki < 3; ki++)
                for (gp_raxis ax = GP_AXIS_ALL; ax <= GP_AXIS_COLS; ax++) {
                    const gp_rkind k = ks[ki];
                    const int mn = k == GP_RK_MIN;
                    const size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C;
                    uint64_t *key = malloc(nt * 8), *rk = malloc(nt * 8);
                    int64_t *nan = calloc(nt, 8);
                    for (size_t j = 0; j < nt; j++)   /* an earlier panel's keys, or none */
                        key[j] = rk[j] = (j % 3 == 1) ? 0x8000000000000005ull : gp_rext_identity(k);
                    for (size_t i = 0; i < n; i++) {
                        int64_t sv = 0;
                        uint64_t uv = 0;
                        memcpy(&uv, buf + i * es, es);
                        if (!uns) {   /* sign-extend */
                            const int sh = 64 - 8 * (int)es;
                            sv = (int64_t)(uv << sh) >> sh;
                        }
                        const uint64_t kk = uns ? uv : k == GP_RK_ABSMAX ? (sv < 0 ? (uint64_t)0 - (uint64_t)sv : (uint64_t)sv)
                                                                          : gp_key_i(sv);
                        const size_t j = ax == GP_AXIS_ALL ? 0 : ax == GP_AXIS_ROWS ? i / C : i % C;
                        rk[j] = mn ? (kk < rk[j] ? kk : rk[j]) : (kk > rk[j] ? kk : rk[j]);
                    }
                    gp_cpu_rext(buf, R, C, t, k, ax, key, nan);
                    for (size_t j = 0; j < nt; j++) assert_true(key[j] == rk[j] && nan[j] == 0);
                    free(key); free(rk); free(nan);
                }
            free(buf);
        }
}

/* argmin/argmax of integers (kernels/cpu/reduce.c, ARG_KERNEL on IEXT_KERNEL's loops) against a
 * brute force over (key, first index), for every integer type and axis, on few distinct values
 * (ties everywhere) or all magnitudes with each type's extremes, on shapes around the chunk (4096)
 * and block (64 x 1024) sizes, in one panel and in panels of 7 rows folded into pairs that an
 * earlier call left (none, or a pair that must keep winning ties). */
static void test_arg_ints(void **state)
{
    (void)state;
    const gp_rtype ts[] = {GP_RT_I8, GP_RT_I16, GP_RT_I32, GP_RT_I64, GP_RT_U8, GP_RT_U16, GP_RT_U32, GP_RT_U64};
    const size_t shapes[][2] = {{1, 1}, {1, 9001}, {9001, 1}, {70, 1030}, {3, 4097}, {131, 5}};
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
            for (int kind = 0; kind < 2; kind++) {
                const gp_rtype t = ts[ti];
                const size_t R = shapes[si][0], C = shapes[si][1], n = R * C, es = gp_rtype_size(t);
                const int uns = gp_rtype_is_unsigned(t);
                unsigned char *buf = malloc(n * es);
                uint64_t *kv = malloc(n * sizeof *kv);   /* each element's key */
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = kind == 0 ? rnd() % 3 - 1 : rnd() >> (rnd() % 64);   /* -1, 0, 1 / all magnitudes */
                    if (kind == 1 && i % 11 == 5) r = 1ull << (8 * es - 1);            /* the signed minimum */
                    if (kind == 1 && i % 13 == 7) r = ~0ull;                           /* -1 / the unsigned maximum */
                    if (kind == 1 && i % 17 == 9) r = (1ull << (8 * es - 1)) - 1;      /* the signed maximum */
                    memcpy(buf + i * es, &r, es);
                    uint64_t uv = 0;
                    memcpy(&uv, buf + i * es, es);
                    const int sh = 64 - 8 * (int)es;
                    kv[i] = uns ? uv : gp_key_i((int64_t)(uv << sh) >> sh);
                }
                for (gp_rkind k = GP_RK_ARGMIN; k <= GP_RK_ARGMAX; k++)
                    for (gp_raxis ax = GP_AXIS_ALL; ax <= GP_AXIS_COLS; ax++)
                        for (size_t row0 = 0; row0 < 2; row0++) {   /* 1: pairs left by an earlier call */
                            const int mn = k == GP_RK_ARGMIN;
                            const size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C;
                            uint64_t *key = malloc(nt * 8), *idx = malloc(nt * 8), *key2 = malloc(nt * 8);
                            uint64_t *idx2 = malloc(nt * 8), *rk = malloc(nt * 8), *ri = malloc(nt * 8);
                            for (size_t j = 0; j < nt; j++) {   /* none, or an element's key at index 0 */
                                const int pre = row0 && j % 3 != 2;
                                key[j] = key2[j] = rk[j] = pre ? kv[(j * 7919) % n] : gp_rext_identity(k);
                                idx[j] = idx2[j] = ri[j] = pre ? 0 : GP_RARG_NONE;
                            }
                            for (size_t i = 0; i < n; i++) {   /* the global index of gp_cpu_rarg's contract */
                                const size_t j = ax == GP_AXIS_ALL ? 0 : ax == GP_AXIS_ROWS ? i / C : i % C;
                                const uint64_t e = ax == GP_AXIS_ALL ? row0 * C + i : ax == GP_AXIS_ROWS ? i % C : row0 + i / C;
                                if (gp_rarg_better(mn, kv[i], e, rk[j], ri[j])) { rk[j] = kv[i]; ri[j] = e; }
                            }
                            gp_cpu_rarg(buf, R, C, row0, t, k, ax, key, idx);
                            for (size_t r0 = 0; r0 < R; r0 += 7) {
                                const size_t m = R - r0 < 7 ? R - r0 : 7;
                                const void *b = buf + r0 * C * es;
                                if (ax == GP_AXIS_ROWS) gp_cpu_rarg(b, m, C, row0 + r0, t, k, ax, key2 + r0, idx2 + r0);
                                else gp_cpu_rarg(b, m, C, row0 + r0, t, k, ax, key2, idx2);
                            }
                            for (size_t j = 0; j < nt; j++) {
                                assert_true(key[j] == rk[j] && idx[j] == ri[j]);
                                assert_true(key2[j] == rk[j] && idx2[j] == ri[j]);
                            }
                            free(key); free(idx); free(key2); free(idx2); free(rk); free(ri);
                        }
                free(buf); free(kv);
            }
}

/* rows and cols kernels agree with the all kernel on each row/column */
static void test_axes(void **state)
{
    (void)state;
    const size_t R = 37, C = 29;
    double *x = malloc(R * C * sizeof *x), *col = malloc(R * sizeof *col);
    for (size_t i = 0; i < R * C; i++) x[i] = rand_double();
    gp_xfmt f = GP_XFMT_F64;
    size_t w = gp_rwords(f);
    int64_t *ra = calloc(R * w, 8), *ca = calloc(C * w, 8), *ca2 = calloc(C * w, 8);
    gp_cpu_rsum(x, R, C, GP_RT_F64, GP_RK_SUM, GP_AXIS_ROWS, f, ra);
    gp_cpu_rsum(x, R, C, GP_RT_F64, GP_RK_SUM, GP_AXIS_COLS, f, ca);
    gp_cpu_rsum(x, 10, C, GP_RT_F64, GP_RK_SUM, GP_AXIS_COLS, f, ca2);          /* two panels */
    gp_cpu_rsum(x + 10 * C, R - 10, C, GP_RT_F64, GP_RK_SUM, GP_AXIS_COLS, f, ca2);
    for (size_t r = 0; r < R; r++)
        assert_true(bits(gp_xvalue(ra + r * w, f)) == bits(sum_split(x + r * C, C, 1, GP_RK_SUM)));
    for (size_t c = 0; c < C; c++) {
        for (size_t r = 0; r < R; r++) col[r] = x[r * C + c];
        uint64_t ref = bits(sum_split(col, R, 1, GP_RK_SUM));
        assert_true(bits(gp_xvalue(ca + c * w, f)) == ref);
        assert_true(bits(gp_xvalue(ca2 + c * w, f)) == ref);
    }
    free(x); free(col); free(ra); free(ca); free(ca2);
}

static void test_integers(void **state)
{
    (void)state;
    int64_t v[] = {INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN, 5};
    gp_xfmt f = GP_XFMT_INT;
    int64_t acc[GP_XNL_MAX + 3] = {0};
    gp_cpu_rsum(v, 1, 5, GP_RT_I64, GP_RK_SUM, GP_AXIS_ALL, f, acc);
    uint64_t out = 0;
    assert_int_equal(gp_xint(acc, f, 0, &out), 0);
    assert_true((int64_t)out == 3);                                          /* -2 + 5 */
    int64_t acc2[GP_XNL_MAX + 3] = {0};
    gp_cpu_rsum(v, 1, 2, GP_RT_I64, GP_RK_SUM, GP_AXIS_ALL, f, acc2);         /* 2^64 - 2: overflow */
    assert_int_equal(gp_xint(acc2, f, 0, &out), -1);
    assert_true(gp_xvalue(acc2, f) == 0x1p64);                                /* as f64 it is fine */
    uint64_t u[] = {UINT64_MAX, 1};
    int64_t acc3[GP_XNL_MAX + 3] = {0};
    gp_cpu_rsum(u, 1, 2, GP_RT_U64, GP_RK_SUM, GP_AXIS_ALL, f, acc3);
    assert_int_equal(gp_xint(acc3, f, 1, &out), -1);
    /* squares: INT64_MIN^2 = 2^126 exactly, three of them */
    int64_t s[] = {INT64_MIN, INT64_MIN, INT64_MIN};
    gp_xfmt fq = GP_XFMT_INTSQ;
    int64_t acc4[GP_XNL_MAX + 3] = {0};
    gp_cpu_rsum(s, 1, 3, GP_RT_I64, GP_RK_SQ, GP_AXIS_ALL, fq, acc4);
    assert_true(gp_xvalue(acc4, fq) == 3 * 0x1p126);
    int8_t b[] = {-128, 127, -1};
    int64_t acc5[GP_XNL_MAX + 3] = {0};
    gp_cpu_rsum(b, 1, 3, GP_RT_I8, GP_RK_SQ, GP_AXIS_ALL, fq, acc5);
    assert_true(gp_xvalue(acc5, fq) == 16384.0 + 16129.0 + 1.0);
}

static void test_stats_moments(void **state)
{
    (void)state;
    /* large mean, small spread: naive sum of squares would cancel catastrophically */
    double x[] = {1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 4};
    gp_rstats s;
    gp_rstats_init(&s, GP_RT_F64);
    gp_cpu_rstats(x, 1, 4, 0, GP_RT_F64, &s);
    double mean, sd;
    gp_rstats_moments(&s, &mean, &sd);
    assert_true(mean == 1e8 + 2.5);
    assert_true(sd == sqrt(1.25));
    /* split in two panels gives the same bits */
    gp_rstats a, b;
    gp_rstats_init(&a, GP_RT_F64);
    gp_rstats_init(&b, GP_RT_F64);
    gp_cpu_rstats(x, 1, 1, 0, GP_RT_F64, &a);
    gp_cpu_rstats(x + 1, 1, 3, 0, GP_RT_F64, &b);
    for (int i = 0; i < a.fs.nl; i++) a.s[i] += b.s[i];
    for (int i = 0; i < a.fq.nl; i++) a.q[i] += b.q[i];
    a.finite += b.finite;
    double m2, s2;
    gp_rstats_moments(&a, &m2, &s2);
    assert_true(bits(m2) == bits(mean) && bits(s2) == bits(sd));
    float fx[] = {1.5f, -2.25f, 1e30f, -1e30f};
    gp_rstats_init(&s, GP_RT_F32);
    gp_cpu_rstats(fx, 2, 2, 0, GP_RT_F32, &s);
    gp_rstats_moments(&s, &mean, &sd);
    assert_true(mean == (1.5 - 2.25) / 4);
}

/* argmin/argmax: first occurrence on ties, the first NaN wins, -0 < +0, and the same index for
 * any split of the rows into panels (each panel folded into the running pairs). */
static void test_arg(void **state)
{
    (void)state;
    enum { R = 23, C = 17 };
    double x[R * C];
    for (size_t i = 0; i < R * C; i++) x[i] = (double)(int)(rnd() % 5) - 2.0;   /* many ties */
    x[4 * C + 3] = -0.0;
    x[0] = 0.0;
    for (gp_rkind k = GP_RK_ARGMIN; k <= GP_RK_ARGMAX; k++) {
        int mn = k == GP_RK_ARGMIN;
        for (gp_raxis ax = GP_AXIS_ALL; ax <= GP_AXIS_COLS; ax++) {
            size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C;
            uint64_t key[R + C], idx[R + C], key2[R + C], idx2[R + C];
            for (size_t t = 0; t < nt; t++) { key[t] = key2[t] = gp_rext_identity(k); idx[t] = idx2[t] = GP_RARG_NONE; }
            gp_cpu_rarg(x, R, C, 0, GP_RT_F64, k, ax, key, idx);
            for (size_t r0 = 0; r0 < R; r0 += 5) {   /* panels of 5 rows */
                size_t n = R - r0 < 5 ? R - r0 : 5;
                if (ax == GP_AXIS_ROWS) gp_cpu_rarg(x + r0 * C, n, C, r0, GP_RT_F64, k, ax, key2 + r0, idx2 + r0);
                else gp_cpu_rarg(x + r0 * C, n, C, r0, GP_RT_F64, k, ax, key2, idx2);
            }
            for (size_t t = 0; t < nt; t++) {
                assert_true(idx[t] == idx2[t] && key[t] == key2[t]);
                /* brute force: the first element whose key is the best */
                uint64_t bk = gp_rext_identity(k), bi = GP_RARG_NONE;
                size_t n = ax == GP_AXIS_ALL ? R * C : ax == GP_AXIS_ROWS ? C : R;
                for (size_t e = 0; e < n; e++) {
                    size_t pos = ax == GP_AXIS_ALL ? e : ax == GP_AXIS_ROWS ? t * C + e : e * C + t;
                    uint64_t kk = gp_key_d(x[pos]);
                    if (mn ? kk < bk : kk > bk) { bk = kk; bi = e; }
                }
                assert_true(idx[t] == bi);
            }
        }
    }
    /* -0 < +0; NaN wins for both; the first NaN */
    double z[] = {0.0, -0.0, 1.0, NAN, -1.0, NAN};
    uint64_t k1 = gp_rext_identity(GP_RK_ARGMIN), i1 = GP_RARG_NONE;
    gp_cpu_rarg(z, 1, 3, 0, GP_RT_F64, GP_RK_ARGMIN, GP_AXIS_ALL, &k1, &i1);
    assert_true(i1 == 1);
    k1 = gp_rext_identity(GP_RK_ARGMAX); i1 = GP_RARG_NONE;
    gp_cpu_rarg(z, 1, 2, 0, GP_RT_F64, GP_RK_ARGMAX, GP_AXIS_ALL, &k1, &i1);
    assert_true(i1 == 0);
    for (gp_rkind k = GP_RK_ARGMIN; k <= GP_RK_ARGMAX; k++) {
        k1 = gp_rext_identity(k); i1 = GP_RARG_NONE;
        gp_cpu_rarg(z, 2, 3, 0, GP_RT_F64, k, GP_AXIS_ALL, &k1, &i1);
        assert_true(i1 == 3);
    }
    /* integers: the extremes of the type; ties keep the first */
    int64_t v[] = {5, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX};
    k1 = gp_rext_identity(GP_RK_ARGMIN); i1 = GP_RARG_NONE;
    gp_cpu_rarg(v, 1, 5, 0, GP_RT_I64, GP_RK_ARGMIN, GP_AXIS_ALL, &k1, &i1);
    assert_true(i1 == 1);
    k1 = gp_rext_identity(GP_RK_ARGMAX); i1 = GP_RARG_NONE;
    gp_cpu_rarg(v, 1, 5, 0, GP_RT_I64, GP_RK_ARGMAX, GP_AXIS_ALL, &k1, &i1);
    assert_true(i1 == 2);
}

/* gp_rhash_run (the checksum of stats and the fingerprints of verify, vectorised for 1, 2, 4 and
 * 8 bytes with XXH3 written out) against libxxhash's XXH3_64bits_withSeed element by element:
 * every element size 1..16 (3, 5..7, 9..16 take the library path), lengths around the vector
 * widths, unaligned starts, seeds where the low 32 bits wrap and where the sum wraps 2^64, steps
 * of 1 and of a row length (verify --transposed). Then integer stats' checksum against the same
 * reference. */
static void test_rhash_run(void **state)
{
    (void)state;
    enum { MAXN = 1100, MAXES = 16 };
    unsigned char *buf = malloc(MAXN * MAXES + 8);
    for (size_t i = 0; i < MAXN * MAXES + 8; i++) buf[i] = (unsigned char)rnd();
    const size_t lens[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 257, 1021, MAXN};
    const uint64_t seeds[] = {0, 1, 0xfffffff0ull, 0x7fffffffffffff00ull, 0xfffffffffffffff9ull, 12345};
    const uint64_t steps[] = {1, 7, 46337, 0x100000001ull};
    for (size_t es = 1; es <= MAXES; es++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
            for (size_t si = 0; si < sizeof seeds / sizeof *seeds; si++)
                for (size_t ti = 0; ti < sizeof steps / sizeof *steps; ti++) {
                    const size_t off = (li + si + ti) % 5;   /* unaligned starts too */
                    const uint64_t seed = si == 5 ? rnd() : seeds[si], step = steps[ti];
                    uint64_t ref = 0, sd = seed;
                    for (size_t i = 0; i < lens[li]; i++, sd += step)
                        ref += XXH3_64bits_withSeed(buf + off + i * es, es, sd);
                    const uint64_t got = gp_rhash_run(buf + off, lens[li], es, seed, step);
                    if (got != ref) fail_msg("es %zu n %zu seed %llx step %llx: %llx != %llx", es, lens[li],
                                             (unsigned long long)seed, (unsigned long long)step,
                                             (unsigned long long)got, (unsigned long long)ref);
                }
    /* integer stats: the checksum of a panel starting at row 3 of a 37 x 29 matrix */
    const gp_rtype types[] = {GP_RT_I8, GP_RT_U16, GP_RT_I32, GP_RT_U64};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        const size_t es = gp_rtype_size(types[t]), R = 37, C = 29, row0 = 3;
        gp_rstats st;
        gp_rstats_init(&st, types[t]);
        gp_cpu_rstats(buf, R, C, row0, types[t], &st);
        uint64_t ref = 0;
        for (size_t i = 0; i < R * C; i++) ref += XXH3_64bits_withSeed(buf + i * es, es, row0 * C + i);
        assert_true(st.checksum == ref);
        assert_true(st.count == (int64_t)(R * C));
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),  cmocka_unit_test(test_nan_inf),
        cmocka_unit_test(test_permutation_and_split), cmocka_unit_test(test_axes),
        cmocka_unit_test(test_integers),       cmocka_unit_test(test_stats_moments),
        cmocka_unit_test(test_arg),            cmocka_unit_test(test_f32_runs),
        cmocka_unit_test(test_f32_cols_fold),
        cmocka_unit_test(test_lanes),          cmocka_unit_test(test_ext_floats),
        cmocka_unit_test(test_stats_floats),     cmocka_unit_test(test_stats_integers),     cmocka_unit_test(test_integers_narrow),
        cmocka_unit_test(test_arg_floats),       cmocka_unit_test(test_ext_ints),
        cmocka_unit_test(test_arg_ints),         cmocka_unit_test(test_rhash_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
