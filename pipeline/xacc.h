/* pipeline/xacc.h — exact, order-independent accumulation shared verbatim by the CPU kernels,
 * the CUDA kernels and the drivers (header-only, host and device): a fixed-point
 * superaccumulator of int64 limbs (radix 2^32, lazy carries), error-free two-term expansions in
 * front of it, the single correct rounding to f64 at the end, and the total order used by
 * min/max. Integer addition is associative, so any order, split or backend gives the same bits.
 * See docs/reductions.md for the method, its cost and the NaN/Inf rules. */
#ifndef GP_XACC_H
#define GP_XACC_H
#include <stdint.h>
#ifndef __CUDACC__
#include <string.h>
#endif

#ifdef __CUDACC__
#define GPX static __host__ __device__ __forceinline__
#else
#define GPX static inline
#endif

/* ---- accumulator formats ----------------------------------------------------------------
 * A superaccumulator of format (lo, nl) holds sum_i limb[i] * 2^(32 i + lo). Every deposit
 * adds less than 2^32 in magnitude to any limb, so 2^30 deposits fit between normalisations.
 * nl leaves >= 64 bits of headroom above the largest deposit (2^64 deposits never overflow). */
typedef struct { int lo, nl; } gp_xfmt;
#define GP_XNL_MAX 68
/* f64 values (and rounded f64 squares): 2^-1074 .. 2^1024 + 64 bits */
#define GP_XFMT_F64 ((gp_xfmt){-1074, 68})
/* f32 values: 2^-149 .. 2^128 + 64 bits */
#define GP_XFMT_F32 ((gp_xfmt){-149, 11})
/* squares of f32 values (exact in f64): 2^-298 .. 2^256 + 64 bits */
#define GP_XFMT_F32SQ ((gp_xfmt){-298, 20})
/* 64-bit integers: 0 .. 2^64 + 64 bits, signed */
#define GP_XFMT_INT ((gp_xfmt){0, 5})
/* squares of 64-bit integers: 0 .. 2^128 + 64 bits */
#define GP_XFMT_INTSQ ((gp_xfmt){0, 7})

/* Extra words after the limbs of one target: NaN count, +Inf count, -Inf count. */
#define GP_XSPECIAL 3
#define GP_CANON_NAN 0x7FF8000000000000ull

GPX uint64_t gp_dbits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
#endif
}
GPX double gp_bitsd(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, 8);
    return x;
#endif
}

/* Arithmetic that no compiler may contract or reassociate (CUDA contracts a*b+c into fma). */
GPX double gp_add_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
GPX double gp_sub_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
GPX double gp_mul_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    double p = a * b;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("" : "+x"(p));       /* p must exist as a value: never fused with a following add */
#else
    volatile double v = p;
    p = v;
#endif
    return p;
#endif
}

/* ---- deposits ---------------------------------------------------------------------------- */
/* limb += sign * m * 2^pos (pos relative to the format's lo; m < 2^64). */
GPX void gp_xdep_m(int64_t *limb, int pos, uint64_t m, int neg)
{
    if (pos < 0) {              /* only zero bits below lo (value is a multiple of 2^lo) */
        m = -pos >= 64 ? 0 : m >> -pos;
        pos = 0;
    }
    int i = pos >> 5, sh = pos & 31;
    int64_t d0 = (int64_t)((m << sh) & 0xffffffffull);
    int64_t d1 = (int64_t)((sh ? (m >> (32 - sh)) : (m >> 32)) & 0xffffffffull);
    int64_t d2 = (int64_t)(sh ? (m >> (64 - sh)) : 0);
    if (neg) { d0 = -d0; d1 = -d1; d2 = -d2; }
    limb[i] += d0;
    limb[i + 1] += d1;
    if (d2) limb[i + 2] += d2;
}

/* limb += x for a finite double x (value a multiple of 2^lo, within the format's range). */
GPX void gp_xdep_d(int64_t *limb, int lo, double x)
{
    uint64_t b = gp_dbits(x);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (e) m |= 1ull << 52;
    if (!m) return;
    int g = e ? e - 1 : 0;      /* position of m's bit 0 relative to 2^-1074 */
    gp_xdep_m(limb, g - (lo + 1074), m, (int)(b >> 63));
}

/* limb += v for a 64-bit integer (format lo = 0). */
GPX void gp_xdep_i64(int64_t *limb, int64_t v)
{
    if (v < 0) gp_xdep_m(limb, 0, (uint64_t)0 - (uint64_t)v, 1);
    else gp_xdep_m(limb, 0, (uint64_t)v, 0);
}
GPX void gp_xdep_u64(int64_t *limb, uint64_t v) { gp_xdep_m(limb, 0, v, 0); }
/* limb += m^2 for |v| = m < 2^64, exactly (128-bit square in four 32-bit digits). */
GPX void gp_xdep_sq(int64_t *limb, uint64_t m)
{
    uint64_t a = m & 0xffffffffull, b = m >> 32;
    uint64_t aa = a * a, bb = b * b, ab = a * b;  /* each < 2^64 */
    gp_xdep_m(limb, 0, aa, 0);
    gp_xdep_m(limb, 33, ab, 0);  /* 2ab * 2^32 */
    gp_xdep_m(limb, 64, bb, 0);
}

/* ---- two-term error-free expansions (a fast exact front end) -----------------------------
 * a[0] + a[1] + (what was deposited) == the exact sum of what was added. TwoSum is exact in
 * round-to-nearest for any finite operands whose sum does not overflow; an overflow is caught
 * and both operands go to the superaccumulator instead. */
#define GP_XK 2
GPX void gp_xexp_add(double *a, double x, int64_t *limb, int lo)
{
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int k = 0; k < GP_XK; k++) {
        double s = gp_add_rn(a[k], x);
        double bp = gp_sub_rn(s, a[k]);
        double err = gp_add_rn(gp_sub_rn(a[k], gp_sub_rn(s, bp)), gp_sub_rn(x, bp));
        if (s - s != 0) {       /* overflow to +-Inf: deposit both exactly */
            gp_xdep_d(limb, lo, a[k]);
            gp_xdep_d(limb, lo, x);
            a[k] = 0;
            return;
        }
        a[k] = s;
        x = err;
        if (x == 0) return;
    }
    gp_xdep_d(limb, lo, x);
}
GPX void gp_xexp_flush(double *a, int64_t *limb, int lo)
{
    for (int k = 0; k < GP_XK; k++) {
        if (a[k] != 0) gp_xdep_d(limb, lo, a[k]);
        a[k] = 0;
    }
}

/* ---- normalisation and rounding ---------------------------------------------------------- */
/* Carry-propagate: limbs 0..nl-2 in [0, 2^32), the top limb signed. Value unchanged. */
GPX void gp_xnorm(int64_t *limb, int nl)
{
    for (int i = 0; i < nl - 1; i++) {
        int64_t c = limb[i] >> 32;   /* arithmetic shift: floor division */
        limb[i] -= (int64_t)((uint64_t)c << 32);
        limb[i + 1] += c;
    }
}

/* Sign and magnitude of a (copied) accumulator: on return d[0..nl-1] are 32-bit digits of |v|.
 * Returns 1 when v < 0. */
GPX int gp_xmag(int64_t *d, int nl)
{
    gp_xnorm(d, nl);
    if (d[nl - 1] >= 0) return 0;
    for (int i = 0; i < nl; i++) d[i] = -d[i];
    gp_xnorm(d, nl);
    return 1;
}

/* Correctly rounded (to nearest, ties to even) double of neg * sum d[i] 2^(32 i + lo), digits
 * in [0, 2^32) (any lo). Exact zero gives +0. Overflow gives +-Inf. */
GPX double gp_xround_digits(const int64_t *d, int nd, int lo, int neg)
{
    int h = nd - 1;
    while (h >= 0 && d[h] == 0) h--;
    if (h < 0) return 0.0;
    uint64_t top = (uint64_t)d[h];
    int nb = 64 - (int)
#ifdef __CUDA_ARCH__
        __clzll((long long)top);
#else
        __builtin_clzll(top);
#endif
    uint64_t d1 = h >= 1 ? (uint64_t)d[h - 1] : 0, d2 = h >= 2 ? (uint64_t)d[h - 2] : 0;
    /* 64-bit window with its leading bit at bit 63 */
    uint64_t w = (top << (64 - nb)) | (d1 << (32 - nb)) | (nb == 32 ? 0 : d2 >> nb);
    int sticky = (d2 & ((1ull << nb) - 1)) != 0;
    for (int i = h - 3; i >= 0 && !sticky; i--) sticky = d[i] != 0;
    int E = 32 * h + nb - 1 + lo;          /* exponent of the leading bit */
    int p = E >= -1022 ? 53 : E + 1075;    /* significant bits available (subnormals: fewer) */
    if (p <= 0) {                          /* below half the smallest subnormal (only lo < -1074) */
        int up = p == 0 && (w > 0x8000000000000000ull || sticky);
        return gp_bitsd((up ? 1ull : 0ull) | (neg ? 0x8000000000000000ull : 0));
    }
    int drop = 64 - p;
    uint64_t mant = w >> drop, rem = w & ((1ull << drop) - 1), half = 1ull << (drop - 1);
    if (rem > half || (rem == half && (sticky || (mant & 1)))) mant++;
    int exp2 = E - p + 1;                  /* value = mant * 2^exp2 */
    if (mant >> 53) { mant >>= 1; exp2++; }
    uint64_t bits;
    if (mant >> 52) {
        int biased = exp2 + 1075;
        bits = biased >= 2047 ? 0x7FF0000000000000ull : ((uint64_t)biased << 52) | (mant & 0xfffffffffffffull);
    } else {
        bits = mant;                       /* subnormal: exp2 == -1074 */
    }
    if (neg) bits |= 0x8000000000000000ull;
    return gp_bitsd(bits);
}

/* Value of an accumulator (limbs + NaN/+Inf/-Inf counts) as a double: NaN if any NaN or both
 * infinities, +-Inf if one sign of infinity, else the correctly rounded exact sum. */
GPX double gp_xvalue(const int64_t *acc, gp_xfmt f)
{
    const int64_t *sp = acc + f.nl;
    if (sp[0] || (sp[1] && sp[2])) return gp_bitsd(GP_CANON_NAN);
    if (sp[1]) return gp_bitsd(0x7FF0000000000000ull);
    if (sp[2]) return gp_bitsd(0xFFF0000000000000ull);
    int64_t d[GP_XNL_MAX] = {0};
    for (int i = 0; i < f.nl; i++) d[i] = acc[i];
    int neg = gp_xmag(d, f.nl);
    return gp_xround_digits(d, f.nl, f.lo, neg);
}

/* Exact integer value of an integer-format accumulator: 0 and *out = v when it fits int64
 * (is_unsigned = 0) or uint64 (is_unsigned = 1), else -1 (overflow). */
GPX int gp_xint(const int64_t *acc, gp_xfmt f, int is_unsigned, uint64_t *out)
{
    int64_t d[GP_XNL_MAX] = {0};
    for (int i = 0; i < f.nl; i++) d[i] = acc[i];
    int neg = gp_xmag(d, f.nl);
    for (int i = 2; i < f.nl; i++)
        if (d[i]) return -1;
    uint64_t mag = ((uint64_t)d[1] << 32) | (uint64_t)d[0];
    if (is_unsigned) {
        if (neg && mag) return -1;
        *out = mag;
        return 0;
    }
    if (neg) {
        if (mag > (1ull << 63)) return -1;
        *out = (uint64_t)0 - mag;
    } else {
        if (mag >= (1ull << 63)) return -1;
        *out = mag;
    }
    return 0;
}

/* ---- total order for min/max ------------------------------------------------------------
 * Keys compare as unsigned integers: -Inf < ... < -0 < +0 < ... < +Inf (NaN is counted apart
 * and never keyed). Signed integers are offset by 2^63; unsigned are themselves. */
GPX uint64_t gp_key_d(double x)
{
    uint64_t b = gp_dbits(x);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
GPX double gp_unkey_d(uint64_t k)
{
    return gp_bitsd((k >> 63) ? (k & 0x7FFFFFFFFFFFFFFFull) : ~k);
}
GPX uint64_t gp_key_i(int64_t v) { return (uint64_t)v ^ 0x8000000000000000ull; }
GPX int64_t gp_unkey_i(uint64_t k) { return (int64_t)(k ^ 0x8000000000000000ull); }
#endif
