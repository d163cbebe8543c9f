/* tests/gpu/test_cuda_reduce.c — the CUDA reduce kernels (kernels/cuda/reduce.cu) against the CPU
 * kernels, bit for bit, in one process: every op (sum, sumsq, min, max, absmax, argmin, argmax) on
 * every axis, f32/f64/i16/i32/i64/u8/u64, odd and degenerate shapes (1x1, 1xN, Nx1, 16-byte rows,
 * 4 x 2^k wide, unaligned pitches), seven kinds of data (plain: the fast paths; wide exponents:
 * the exact fallbacks; small values with NaN/Inf/-0 and ties; floats at the edge of the span
 * test; floats all -0; floats over their whole range, stats only; plain with zeros and
 * subnormals among them; fill()), gpipe stats (also on floats over their whole range) and verify's
 * per-row and per-column fingerprints, each matrix as two panels merged
 * the way the driver merges them, under several kernel configurations (GP_CUDA_REDUCE: the
 * first version's kernels, small and large blocks, 2/4/8 loads in flight, few and many blocks, the
 * three ways of adding f32: batch=0 four at a time, 1 a step of U loads, 2 steps in runs).
 * Exits 77 when no CUDA device is visible. Built for the GPU (label gpu) and, with
 * -DGPIPE_CUDA_EMU=ON, on the CPU emulation (kernels/cuda/emu.h; --quick: small shapes, f32, f64,
 * i32, u8, two configurations per case; ~14 min on a 2-core machine).
 * usage: test_cuda_reduce [--quick] [-v] [--only RxC[,RxC...]]   (--only: those shapes of the table) */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/reduce.h"
#include "pipeline/status.h"

static int g_fail, g_runs, g_verbose;
static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static double urand(void) { return (double)(rnd() >> 11) * 0x1p-53 * 2 - 1; }   /* [-1, 1) */

static void fail(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *tag, const char *fmt, ...)
{
    if (g_fail++ < 25) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL %s: ", tag);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
}

/* data kinds: 0 plain, 1 wide exponents / full-range integers, 2 ties with NaN, +-Inf, -0,
 * 3 (floats) positive, full mantissas, exponents spread over 27: at the edge of the batched f32
 * sums' exactness test (spread <= 29 - log2 of the batch), where one more accepted step rounds;
 * 4 (floats) all -0: every path must give +0 sums (the row sums' plain-add merge sums a -0 run);
 * 5 (floats, stats only) the whole range of the type with NaN and +-Inf;
 * 6 (floats) plain, 1 in 16 elements +-0 or a tiny value: for f32 a subnormal with bits 1..0xffff
 * (zeros and subnormals inside otherwise exact f32 steps: the span test's edge at the bottom) */
static void fill(void *buf, size_t n, gp_rtype t, int kind)
{
    for (size_t i = 0; i < n; i++) {
        double d;
        if (kind == 0) d = urand();
        else if (kind == 1) d = urand() * ldexp(1.0, (int)(rnd() % 81) - 40);
        else if (kind == 3) d = ldexp(1.0 + (double)(rnd() >> 40) * 0x1p-24, (int)(rnd() % 27) - 13);
        else if (kind == 4) d = -0.0;   /* sums of -0 only: +0 on every path */
        else if (kind == 6) {
            d = urand();
            uint64_t r = rnd() % 64;
            if (r < 2) d = r ? -0.0 : 0.0;
            else if (r < 4) d = (r & 1 ? -1.0 : 1.0) * 0x1p-149 * (double)(1 + rnd() % 65535);   /* f32 bits 1..0xffff */
        }
        else if (kind == 7) {   /* one scale per 8192 elements (a 256 x 8 f32 tile), 2^24 or 2^-24 by a hash:
                                 * consecutive steps of a thread that are each exact but not together */
            const uint64_t h = ((uint64_t)(i >> 13) + 1) * 0x9E3779B97F4A7C15ull;
            d = ldexp(urand(), (h >> 63) ? 24 : -24);
        }
        else if (kind == 5) {   /* the whole range of the type: subnormals, squares that overflow, NaN, +-Inf */
            d = t == GP_RT_F32 ? ldexp(urand(), (int)(rnd() % 300) - 150) : ldexp(urand(), (int)(rnd() % 2100) - 1074);
            uint64_t r = rnd() % 200;
            if (r == 0) d = NAN;
            else if (r == 1) d = INFINITY;
            else if (r == 2) d = -INFINITY;
        }
        else {
            d = (double)((int)(rnd() % 5) - 2);
            uint64_t r = rnd() % 1000;
            if (d == 0 && (r & 1)) d = -0.0;
            if (r < 6) d = NAN;
            else if (r < 9) d = (r & 1) ? INFINITY : -INFINITY;
        }
        uint64_t u = rnd();
        switch (t) {
        case GP_RT_F32: ((float *)buf)[i] = (float)d; break;
        case GP_RT_F64: ((double *)buf)[i] = d; break;
        case GP_RT_I16: ((int16_t *)buf)[i] = kind == 1 ? (int16_t)u : kind == 0 ? (int16_t)(d * 1000) : (int16_t)(isfinite(d) ? d : 32767); break;
        case GP_RT_I32: ((int32_t *)buf)[i] = kind == 1 ? (int32_t)u : kind == 0 ? (int32_t)(d * 1e9) : (int32_t)(isfinite(d) ? d : -2147483647 - 1); break;
        case GP_RT_I64: ((int64_t *)buf)[i] = kind == 1 ? (int64_t)(u >> 8) - (int64_t)(1ull << 55) : kind == 0 ? (int64_t)(d * 1e15) : (isfinite(d) ? (int64_t)d : INT64_MIN); break;
        case GP_RT_U8: ((uint8_t *)buf)[i] = kind == 2 ? (uint8_t)(isfinite(d) ? d + 2 : 255) : (uint8_t)u; break;
        case GP_RT_U64: ((uint64_t *)buf)[i] = kind == 2 ? (isfinite(d) ? (uint64_t)(d + 2) : ~0ull) : u >> (kind == 0 ? 12 : 0); break;
        default: break;
        }
    }
}

static const char *kind_name(gp_rkind k)
{
    static const char *n[] = {"sum", "sumsq", "min", "max", "absmax", "argmin", "argmax"};
    return n[k];
}
static const char *axis_name(gp_raxis a) { return a == GP_AXIS_ALL ? "all" : a == GP_AXIS_ROWS ? "rows" : "cols"; }

typedef struct {
    int64_t *acc;       /* sums: targets x w */
    double *rowval;     /* sums over rows of floats */
    uint64_t *key, *idx;
    int64_t *nan;
} result;

static void res_init(result *r, size_t nt, size_t w, gp_rkind k)
{
    r->acc = calloc(nt * w + 1, 8);
    r->rowval = calloc(nt + 1, 8);
    r->key = malloc((nt + 1) * 8);
    r->idx = malloc((nt + 1) * 8);
    r->nan = calloc(nt + 1, 8);
    for (size_t i = 0; i < nt; i++) { r->key[i] = gp_rext_identity(k); r->idx[i] = GP_RARG_NONE; }
}
static void res_free(result *r)
{
    free(r->acc); free(r->rowval); free(r->key); free(r->idx); free(r->nan);
}

/* One backend over the matrix as panels [0, split) and [split, rows), merged like the driver:
 * sums add into one accumulator (rows: per panel), extrema fold, argmin/argmax by (key, index). */
static int run(gp_cuda_reduce *cu, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis ax,
               size_t split, result *r, char *err, size_t errlen)
{
    gp_xfmt f = gp_rfmt(t, k);
    size_t es = gp_rtype_size(t), w = gp_rwords(f);
    int sum = k == GP_RK_SUM || k == GP_RK_SQ, arg = gp_rkind_is_arg(k), isf = gp_rtype_is_float(t);
    for (int p = 0; p < 2; p++) {
        size_t r0 = p ? split : 0, n = p ? rows - split : split;
        if (!n || !cols) continue;
        const char *pb = (const char *)buf + r0 * cols * es;
        size_t to = ax == GP_AXIS_ROWS ? r0 : 0;   /* rows: this panel's targets */
        int rc = 0;
        if (sum) {
            int rv = ax == GP_AXIS_ROWS && isf;
            if (cu) rc = gp_cuda_rsum(cu, pb, n, cols, t, k, ax, f, r->acc + to * w, rv ? r->rowval + to : NULL, err, errlen);
            else {
                gp_cpu_rsum(pb, n, cols, t, k, ax, f, r->acc + to * w);
                if (rv) for (size_t i = 0; i < n; i++) r->rowval[to + i] = gp_xvalue(r->acc + (to + i) * w, f);
            }
        } else if (arg) {
            if (cu) rc = gp_cuda_rarg(cu, pb, n, cols, r0, t, k, ax, r->key + to, r->idx + to, err, errlen);
            else gp_cpu_rarg(pb, n, cols, r0, t, k, ax, r->key + to, r->idx + to);
        } else {
            if (cu) rc = gp_cuda_rext(cu, pb, n, cols, t, k, ax, r->key + to, r->nan + to, err, errlen);
            else gp_cpu_rext(pb, n, cols, t, k, ax, r->key + to, r->nan + to);
        }
        if (rc) return rc;
    }
    return 0;
}

static void compare(const char *tag, const result *c, const result *g, size_t nt, size_t w, gp_rtype t, gp_rkind k,
                    gp_raxis ax)
{
    int sum = k == GP_RK_SUM || k == GP_RK_SQ, arg = gp_rkind_is_arg(k);
    for (size_t i = 0; i < nt; i++) {
        if (sum && ax == GP_AXIS_ROWS && gp_rtype_is_float(t)) {
            if (gp_dbits(c->rowval[i]) != gp_dbits(g->rowval[i]) && !(c->rowval[i] != c->rowval[i] && g->rowval[i] != g->rowval[i])) {
                fail(tag, "row %zu: cpu %a cuda %a", i, c->rowval[i], g->rowval[i]);
                return;
            }
        } else if (sum) {
            if (memcmp(c->acc + i * w, g->acc + i * w, w * 8)) {
                fail(tag, "target %zu: accumulators differ (cpu %a, cuda %a)", i, gp_xvalue(c->acc + i * w, gp_rfmt(t, k)),
                     gp_xvalue(g->acc + i * w, gp_rfmt(t, k)));
                return;
            }
        } else if (arg) {
            if (c->idx[i] != g->idx[i] || (ax != GP_AXIS_ROWS && c->key[i] != g->key[i])) {
                fail(tag, "target %zu: cpu index %llu key %016llx, cuda index %llu key %016llx", i,
                     (unsigned long long)c->idx[i], (unsigned long long)c->key[i], (unsigned long long)g->idx[i],
                     (unsigned long long)g->key[i]);
                return;
            }
        } else {
            int cn = c->nan[i] > 0, gn = g->nan[i] > 0;
            if (cn != gn || (!cn && c->key[i] != g->key[i])) {
                fail(tag, "target %zu: cpu key %016llx nan %lld, cuda key %016llx nan %lld", i,
                     (unsigned long long)c->key[i], (long long)c->nan[i], (unsigned long long)g->key[i],
                     (long long)g->nan[i]);
                return;
            }
        }
    }
}

/* gpipe stats: the CPU over one panel against the GPU over two (rows [0, split) and [split, R),
 * row0 as the driver passes it), every figure equal */
static void stats_check(gp_cuda_reduce *cu, const void *buf, size_t R, size_t C, gp_rtype t, size_t split,
                        const char *tag)
{
    char err[512] = "";
    gp_rstats a, b;
    gp_rstats_init(&a, t);
    gp_rstats_init(&b, t);
    gp_cpu_rstats(buf, R, C, 0, t, &a);
    size_t es = gp_rtype_size(t);
    for (int p = 0; p < 2; p++) {
        size_t r0 = p ? split : 0, n = p ? R - split : split;
        if (!n) continue;
        int rc = gp_cuda_rstats(cu, (const char *)buf + r0 * C * es, n, C, r0, t, &b, err, sizeof err);
        if (rc) { fail(tag, "stats rc %d: %s", rc, err); return; }
    }
    g_runs++;
    if (memcmp(a.s, b.s, (size_t)a.fs.nl * 8)) fail(tag, "stats: sums differ (cpu %a, cuda %a)", gp_xvalue(a.s, a.fs), gp_xvalue(b.s, b.fs));
    else if (memcmp(a.q, b.q, (size_t)a.fq.nl * 8)) fail(tag, "stats: sums of squares differ (cpu %a, cuda %a)", gp_xvalue(a.q, a.fq), gp_xvalue(b.q, b.fq));
    else if (a.kmin != b.kmin || a.kmax != b.kmax)
        fail(tag, "stats: keys cpu %016llx %016llx, cuda %016llx %016llx", (unsigned long long)a.kmin,
             (unsigned long long)a.kmax, (unsigned long long)b.kmin, (unsigned long long)b.kmax);
    else if (a.count != b.count || a.finite != b.finite || a.nan != b.nan || a.pinf != b.pinf || a.ninf != b.ninf ||
             a.qover != b.qover)
        fail(tag, "stats: counts cpu %lld %lld %lld %lld %lld %lld, cuda %lld %lld %lld %lld %lld %lld", (long long)a.count,
             (long long)a.finite, (long long)a.nan, (long long)a.pinf, (long long)a.ninf, (long long)a.qover,
             (long long)b.count, (long long)b.finite, (long long)b.nan, (long long)b.pinf, (long long)b.ninf,
             (long long)b.qover);
    else if (a.checksum != b.checksum)
        fail(tag, "stats: checksum cpu %016llx cuda %016llx", (unsigned long long)a.checksum, (unsigned long long)b.checksum);
}

/* verify's fingerprints: per-row and per-column sums of gp_rhash with random seeds and steps against
 * gp_rhash_run / gp_rhash on the CPU; the output poisoned first */
static void hash_check(gp_cuda_reduce *cu, const void *buf, size_t R, size_t C, size_t es, const char *tag)
{
    char err[512] = "";
    const uint64_t seed0 = rnd(), rstep = rnd() % 1000003, cstep = 1 + rnd() % 7;
    size_t n = R > C ? R : C;
    uint64_t *want = calloc(n + 1, 8), *got = malloc((n + 1) * 8);
    const unsigned char *b = buf;
    for (int ax = 0; ax < 2; ax++) {
        size_t nt = ax ? C : R;
        memset(want, 0, (n + 1) * 8);
        memset(got, 0xAB, (n + 1) * 8);
        for (size_t r = 0; r < R; r++) {
            if (!ax) want[r] = gp_rhash_run(b + r * C * es, C, es, seed0 + r * rstep, cstep);
            else
                for (size_t c = 0; c < C; c++) want[c] += gp_rhash(b + (r * C + c) * es, es, seed0 + r * rstep + c * cstep);
        }
        int rc = gp_cuda_rhash(cu, buf, R, C, es, seed0, rstep, cstep, ax ? GP_AXIS_COLS : GP_AXIS_ROWS, got, err, sizeof err);
        g_runs++;
        if (rc) { fail(tag, "rhash rc %d: %s", rc, err); break; }
        for (size_t i = 0; i < nt; i++)
            if (got[i] != want[i]) {
                fail(tag, "fingerprint of %s %zu: cpu %016llx cuda %016llx", ax ? "column" : "row", i,
                     (unsigned long long)want[i], (unsigned long long)got[i]);
                break;
            }
    }
    free(want);
    free(got);
}

/* whether the comma-separated list of RxC names holds R x C */
static int names_shape(const char *list, size_t R, size_t C)
{
    char nm[64];
    const size_t ln = (size_t)snprintf(nm, sizeof nm, "%zux%zu", R, C);
    for (const char *q = list; *q;) {
        const size_t n = strcspn(q, ",");
        if (n == ln && !strncmp(q, nm, ln)) return 1;
        q += n + (q[n] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0;
    const char *only = NULL;   /* --only: these shapes of the table, every variant (with --quick: its types) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [-v] [--only RxC[,RxC...]]\n", argv[0]);
            return 2;
        }
    }
    char err[512] = "";
    gp_cuda_reduce *cu = NULL;
    int rc = gp_cuda_reduce_create(&cu, 0, err, sizeof err);
    if (rc == GP_ENODEV) { printf("no CUDA device: skipped (%s)\n", err); return 77; }
    if (rc) { fprintf(stderr, "FAIL create: %s\n", err); return 1; }
    printf("device: %s\n", gp_cuda_reduce_desc(cu));
    /* big: f32, f64 and i32 only; quick (the CPU emulation): the shapes marked 1 in q; rows: only
     * --axis rows (4 x 4194311 is there for the row kernels' block-per-row combines, >= 1024 segments per
     * row at 4 or 8 loads in flight on 132 SMs; its column sums would hold 2^22 accumulators of up
     * to 71 words, 2.4 GB per run, for nothing new) */
    static const struct { size_t r, c; int big, q, rows; } shapes[] = {
        {1, 1, 0, 1, 0}, {1, 301, 0, 1, 0}, {301, 1, 0, 1, 0}, {3, 7, 0, 1, 0}, {37, 23, 0, 1, 0}, {2, 4, 0, 1, 0}, {64, 8, 0, 1, 0},
        {1000, 2, 0, 1, 0}, {1001, 2, 0, 1, 0}, {2003, 4, 0, 1, 0}, {4, 2004, 0, 1, 0}, {4, 2003, 0, 1, 0},
        {20003, 4, 0, 0, 0}, {4, 20004, 0, 0, 0}, {4, 20003, 0, 0, 0}, {257, 509, 0, 1, 0}, {130, 1024, 0, 1, 0}, {37, 512, 0, 1, 0}, {67, 1536, 0, 0, 0},
        {200003, 4, 1, 0, 0}, {20011, 512, 1, 0, 0}, {300007, 2, 1, 0, 0}, {3000017, 1, 1, 0, 0}, {4, 200004, 1, 0, 0},
        {1031, 4096, 1, 0, 0}, {4099, 1031, 1, 0, 0}, {33, 131072, 1, 0, 0}, {3, 65536, 1, 1, 0}, {20000, 16, 1, 1, 0}, {67, 2052, 1, 1, 0},
        {4, 4194311, 1, 0, 1}, {4, 40000, 0, 1, 1}, {1, 1048576, 1, 0, 1}, {300, 65536, 1, 0, 1}};
    static const gp_rtype types[] = {GP_RT_F32, GP_RT_F64, GP_RT_I32, GP_RT_U8, GP_RT_I64, GP_RT_I16, GP_RT_U64};
    static const char *tnames[] = {"f32", "f64", "i32", "u8", "i64", "i16", "u64"};
    /* tunings apply on top of each other: the first is the default as a user runs it (it sets
     * every knob a later variant changes; auto=1 last: bs, bps and unroll switch it off), with the
     * per-shape block sizes and loads in flight */
    static const char *variants[] = {"kernels=fast,bps=8,batch=2,rsteps=4,bal=1,fin=2,fm=1,ug=1,rx=1,cx=1,rw=1,rwr=2,rwp=2,rws=1,ri=-1,wc=0,lb=-1,dyn=8,ck=0,fr=1,auto=1",
                                     "kernels=fast,bs=256,bps=8,unroll=4,fin=1,fm=0,rw=2,rwr=4,wc=1,dyn=64,fr=0", "kernels=legacy,bs=256,bps=8,unroll=4",
                                     "kernels=fast,bs=128,bps=2,unroll=2,batch=1,rsteps=1,cx=1,lb=-1,rwr=2,ri=1,wc=1,dyn=2,ck=1024", "kernels=fast,bs=512,bps=16,unroll=8,batch=3,fm=1,lb=3,rx=2,rwp=0,wc=1",
                                     "kernels=fast,bs=64,bps=1,unroll=4,batch=0,dyn=3,ck=16", "bal=0,fin=0,fm=0,ug=0,rx=0,cx=0,lb=0,rw=0,dyn=0",
                                     "kernels=fast,bs=512,bps=8,unroll=16,batch=2,bal=1,fin=1,fm=1,ug=1,cx=1,rw=1,rwr=4,ri=1",
                                     "kernels=fast,bps=8,batch=3,fr=1,rw=1,rwr=2,rwp=2,rws=0,auto=1", "kernels=fast,bps=8,batch=2,lb=-1,dyn=0,fr=0,auto=1",
                                     "kernels=fast,bps=8,batch=2,lb=3,dyn=8,ck=32,fr=1,auto=1"};
    const int nvar = 11, ntypes = quick ? 4 : 7;
    size_t nfallback = 0, ncase = 0;
    for (const char *q = only; q && *q;) {   /* every name of --only must be a shape of the table */
        char one[64];
        const size_t ln = strcspn(q, ",");
        snprintf(one, sizeof one, "%.*s", (int)(ln < 63 ? ln : 63), q);
        size_t si = 0;
        while (si < sizeof shapes / sizeof *shapes && !names_shape(one, shapes[si].r, shapes[si].c)) si++;
        if (si == sizeof shapes / sizeof *shapes) {
            fprintf(stderr, "test_cuda_reduce: --only: '%s' is not a shape of the table\n", one);
            gp_cuda_reduce_destroy(cu);
            return 2;
        }
        q += ln + (q[ln] == ',');
    }
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        const size_t R = shapes[si].r, C = shapes[si].c;
        if (only ? !names_shape(only, R, C) : quick && !shapes[si].q) continue;
        for (int ti = 0; ti < ntypes; ti++) {
            gp_rtype t = types[ti];
            int isf = gp_rtype_is_float(t);
            if (shapes[si].big && ti >= 3) continue;   /* large shapes: f32, f64, i32 */
            size_t es = gp_rtype_size(t);
            void *buf = malloc(R * C * es + 16);
            for (int kind = 0; kind < 8; kind++) {
                if (kind == 7 && (t != GP_RT_F32 || R * C < ((size_t)1 << 15))) continue;   /* f32 runs across tiles */
                if (!isf && kind == 2 && t != GP_RT_U8 && t != GP_RT_I64) continue;
                if (!isf && kind >= 3) continue;
                fill(buf, R * C, t, kind);
                size_t split = R > 1 ? R / 2 + (rnd() % 2) : R;
                if (kind == 0 && !shapes[si].rows) {
                    char tag[256];
                    snprintf(tag, sizeof tag, "%s %zux%zu fingerprints", tnames[ti], R, C);
                    hash_check(cu, buf, R, C, es, tag);
                }
                /* stats: the default configuration, and in turn the first version's sums */
                for (int v = 0; v < 3 && !shapes[si].rows; v += 2) {
                    if (v && quick && ncase % 4) continue;
                    char tag[256];
                    snprintf(tag, sizeof tag, "%s %zux%zu data %d stats [%s]", tnames[ti], R, C, kind, variants[v]);
                    if (gp_cuda_reduce_tune(cu, variants[v], err, sizeof err)) { fail(tag, "tune: %s", err); continue; }
                    stats_check(cu, buf, R, C, t, split, tag);
                }
                for (gp_rkind k = GP_RK_SUM; k <= GP_RK_ARGMAX && kind != 5; k++) {
                    if (quick && k == GP_RK_ABSMAX && !isf) continue;
                    for (gp_raxis ax = GP_AXIS_ALL; ax <= GP_AXIS_COLS; ax++) {
                        if (shapes[si].rows && ax != GP_AXIS_ROWS) continue;
                        size_t nt = ax == GP_AXIS_ALL ? 1 : ax == GP_AXIS_ROWS ? R : C;
                        size_t w = gp_rwords(gp_rfmt(t, k));
                        result cpu;
                        res_init(&cpu, nt, w, k);
                        run(NULL, buf, R, C, t, k, ax, R, &cpu, err, sizeof err);   /* CPU: one panel */
                        ncase++;
                        for (int v = 0; v < nvar; v++) {
                            /* quick: the default and one other configuration, in turn; f32 row sums also
                             * variant 8 (rws=0, row stores as they come: only f32 rows of 4 units differ) */
                            if (quick && v != 0 && v != 1 + (int)(ncase % (nvar - 1)) &&
                                !(v == 8 && t == GP_RT_F32 && ax == GP_AXIS_ROWS))
                                continue;
                            char tag[256];
                            snprintf(tag, sizeof tag, "%s %zux%zu data %d %s %s [%s]", tnames[ti], R, C, kind,
                                     kind_name(k), axis_name(ax), variants[v]);
                            if (gp_cuda_reduce_tune(cu, variants[v], err, sizeof err)) { fail(tag, "tune: %s", err); continue; }
                            result g;
                            res_init(&g, nt, w, k);
                            g_runs++;
                            if (g_verbose) { printf("%s\n", tag); fflush(stdout); }
                            rc = run(cu, buf, R, C, t, k, ax, split, &g, err, sizeof err);
                            nfallback += gp_cuda_reduce_fallbacks(cu);
                            if (rc) fail(tag, "rc %d: %s", rc, err);
                            else compare(tag, &cpu, &g, nt, w, t, k, ax);
                            res_free(&g);
                        }
                        res_free(&cpu);
                    }
                }
            }
            free(buf);
        }
        printf("%zux%zu: %d runs so far, %d failures\n", R, C, g_runs, g_fail);
        fflush(stdout);
    }
    gp_cuda_reduce_destroy(cu);
    printf("%d runs, %d failures (%zu targets went to the exact fallbacks)\n", g_runs, g_fail, nfallback);
    return g_fail ? 1 : 0;
}
