/* kernels/cpu/map.c — the fused element-wise chain of job files on the CPU (pipeline/map.h).
 * Each row is cut into blocks of BLK columns: a block is loaded into an f64 buffer that stays
 * in L1, every op of the chain runs over it (plain loops the compiler vectorises), and it is
 * stored in the result type: one pass over memory however long the chain. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")  /* x*a + b is two roundings on every backend */
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "pipeline/map.h"
#include "pipeline/status.h"

#define BLK 512
/* gp_cpu_map is built twice, for AVX2 and for the baseline, and picked at load time: 4 doubles per
 * vector, and nearbyint as one rounding instruction (SSE4.1) instead of a libm call. Its helpers
 * are inlined into each clone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(GP_NO_SSE2)
#define GP_MAP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GP_MAP_CLONES
#endif
#define GP_INL static inline __attribute__((always_inline))

gp_rtype gp_mapchain_out(const gp_mapchain *m)
{
    return m->nops ? m->ops[m->nops - 1].to : m->in;
}

static inline uint16_t bs16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t bs32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t bs64(uint64_t v) { return __builtin_bswap64(v); }

/* n elements of type t (byte-swapped when swap) -> f64 */
GP_INL void load(const void *src, gp_rtype t, int swap, size_t n, double *x)
{
#define LOADN(T) do { const T *p = (const T *)src; for (size_t i = 0; i < n; i++) x[i] = (double)p[i]; } while (0)
#define LOADS(T, U, BS) do { const unsigned char *p = (const unsigned char *)src;            \
        for (size_t i = 0; i < n; i++) { U u; memcpy(&u, p + i * sizeof(U), sizeof(U)); u = BS(u); \
            T v; memcpy(&v, &u, sizeof v); x[i] = (double)v; } } while (0)
    if (!swap || gp_rtype_size(t) == 1) {
        switch (t) {
        case GP_RT_I8: LOADN(int8_t); break;
        case GP_RT_I16: LOADN(int16_t); break;
        case GP_RT_I32: LOADN(int32_t); break;
        case GP_RT_I64: LOADN(int64_t); break;
        case GP_RT_U8: LOADN(uint8_t); break;
        case GP_RT_U16: LOADN(uint16_t); break;
        case GP_RT_U32: LOADN(uint32_t); break;
        case GP_RT_U64: LOADN(uint64_t); break;
        case GP_RT_F32: LOADN(float); break;
        case GP_RT_F64: LOADN(double); break;
        default: break;
        }
        return;
    }
    switch (t) {
    case GP_RT_I16: LOADS(int16_t, uint16_t, bs16); break;
    case GP_RT_U16: LOADS(uint16_t, uint16_t, bs16); break;
    case GP_RT_I32: LOADS(int32_t, uint32_t, bs32); break;
    case GP_RT_U32: LOADS(uint32_t, uint32_t, bs32); break;
    case GP_RT_F32: LOADS(float, uint32_t, bs32); break;
    case GP_RT_I64: LOADS(int64_t, uint64_t, bs64); break;
    case GP_RT_U64: LOADS(uint64_t, uint64_t, bs64); break;
    case GP_RT_F64: LOADS(double, uint64_t, bs64); break;
    default: break;
    }
#undef LOADN
#undef LOADS
}

/* Values already checked (casts) or floating: plain conversions. */
GP_INL void store(const double *x, size_t n, gp_rtype t, void *dst)
{
#define STOREN(T) do { T *p = (T *)dst; for (size_t i = 0; i < n; i++) p[i] = (T)x[i]; } while (0)
    switch (t) {
    case GP_RT_I8: STOREN(int8_t); break;
    case GP_RT_I16: STOREN(int16_t); break;
    case GP_RT_I32: STOREN(int32_t); break;
    case GP_RT_I64: STOREN(int64_t); break;
    case GP_RT_U8: STOREN(uint8_t); break;
    case GP_RT_U16: STOREN(uint16_t); break;
    case GP_RT_U32: STOREN(uint32_t); break;
    case GP_RT_U64: STOREN(uint64_t); break;
    case GP_RT_F32: STOREN(float); break;
    case GP_RT_F64: STOREN(double); break;
    default: break;
    }
#undef STOREN
}

/* Range of an integer type as f64 bounds: lo <= x < hi_excl (both exact in f64). */
GP_INL void int_range(gp_rtype t, double *lo, double *hi_excl)
{
    switch (t) {
    case GP_RT_I8: *lo = -128.0; *hi_excl = 128.0; break;
    case GP_RT_I16: *lo = -32768.0; *hi_excl = 32768.0; break;
    case GP_RT_I32: *lo = -2147483648.0; *hi_excl = 2147483648.0; break;
    case GP_RT_I64: *lo = -9223372036854775808.0; *hi_excl = 9223372036854775808.0; break;
    case GP_RT_U8: *lo = 0; *hi_excl = 256.0; break;
    case GP_RT_U16: *lo = 0; *hi_excl = 65536.0; break;
    case GP_RT_U32: *lo = 0; *hi_excl = 4294967296.0; break;
    default: *lo = 0; *hi_excl = 18446744073709551616.0; break;
    }
}

GP_MAP_CLONES int gp_cpu_map(const gp_mapchain *m, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                             char *err, size_t errlen)
{
    double x[BLK];
    size_t ies = gp_rtype_size(m->in);
    gp_rtype ot = gp_mapchain_out(m);
    size_t oes = gp_rtype_size(ot);
    const unsigned char *src = in;
    unsigned char *dst = out;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c0 = 0; c0 < cols; c0 += BLK) {
            size_t n = cols - c0 < BLK ? cols - c0 : BLK;
            size_t idx = r * cols + c0;
            load(src + idx * ies, m->in, m->in_swap, n, x);
            for (int k = 0; k < m->nops; k++) {
                const gp_mapop *op = &m->ops[k];
                if (op->kind == GP_MAPOP_AFFINE) {
                    const double *av = op->av ? op->av + col0 + c0 : NULL;
                    const double *bv = op->bv ? op->bv + col0 + c0 : NULL;
                    if (av && bv) for (size_t i = 0; i < n; i++) x[i] = x[i] * av[i] + bv[i];
                    else if (av) { double b = op->b; for (size_t i = 0; i < n; i++) x[i] = x[i] * av[i] + b; }
                    else if (bv) { double a = op->a; for (size_t i = 0; i < n; i++) x[i] = x[i] * a + bv[i]; }
                    else { double a = op->a, b = op->b; for (size_t i = 0; i < n; i++) x[i] = x[i] * a + b; }
                    if (op->to == GP_RT_F32)
                        for (size_t i = 0; i < n; i++) x[i] = (double)(float)x[i];
                } else if (op->to == GP_RT_F32) {
                    for (size_t i = 0; i < n; i++) x[i] = (double)(float)x[i];
                } else if (op->to != GP_RT_F64) {
                    double lo, hi;
                    int_range(op->to, &lo, &hi);
                    size_t bad = n;
                    for (size_t i = 0; i < n; i++) {
                        double v = nearbyint(x[i]);
                        if (!(v >= lo && v < hi) && bad == n) bad = i;
                        x[i] = v;
                    }
                    if (bad < n) {
                        if (err)
                            snprintf(err, errlen, "cast to %s: value %.17g %s (panel row %zu, column %zu)",
                                     gp_rtype_name(op->to), x[bad], x[bad] != x[bad] ? "is not a number" : "is out of range",
                                     r, col0 + c0 + bad);
                        return GP_EINVAL;
                    }
                }
            }
            store(x, n, ot, dst + idx * oes);
        }
    }
    return 0;
}
