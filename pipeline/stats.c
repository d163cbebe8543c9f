/* pipeline/stats.c — `gpipe stats`: one pass over row panels (lockstep collective reads), exact
 * sums of the values and of their squares, extrema keys, NaN/Inf counts and an order-independent
 * xxh3 checksum per rank; merged over ranks by integer addition, so every figure has the same
 * bits for any rank count and panel size. std comes from n*q - s^2 computed exactly. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/internal.h"
#include "pipeline/reduce.h"

void gp_rstats_allreduce(MPI_Comm comm, gp_rstats *s)
{
    int64_t v[2 * GP_XNL_MAX + 6];
    int n = 0;
    for (int i = 0; i < s->fs.nl; i++) v[n++] = s->s[i];
    for (int i = 0; i < s->fq.nl; i++) v[n++] = s->q[i];
    v[n++] = s->count; v[n++] = s->finite; v[n++] = s->nan; v[n++] = s->pinf; v[n++] = s->ninf; v[n++] = s->qover;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, comm);
    n = 0;
    for (int i = 0; i < s->fs.nl; i++) s->s[i] = v[n++];
    for (int i = 0; i < s->fq.nl; i++) s->q[i] = v[n++];
    s->count = v[n++]; s->finite = v[n++]; s->nan = v[n++]; s->pinf = v[n++]; s->ninf = v[n++]; s->qover = v[n++];
    MPI_Allreduce(MPI_IN_PLACE, &s->kmin, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &s->kmax, 1, MPI_UINT64_T, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &s->checksum, 1, MPI_UINT64_T, MPI_SUM, comm);  /* mod 2^64 */
}

/* ---- small bignum on 32-bit digits (held in uint64) ------------------------------------------ */
#define BIG 4 * GP_XNL_MAX + 8
static void big_mul(const uint64_t *a, int na, const uint64_t *b, int nb, uint64_t *r)
{
    memset(r, 0, (size_t)(na + nb) * sizeof *r);
    for (int i = 0; i < na; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < nb; j++) {
            uint64_t t = a[i] * b[j] + r[i + j] + carry;
            r[i + j] = t & 0xffffffffull;
            carry = t >> 32;
        }
        r[i + nb] += carry;
    }
}
/* r = a << bits (r has room for na + bits/32 + 1 digits). Returns the digit count. */
static int big_shl(const uint64_t *a, int na, int bits, uint64_t *r)
{
    int q = bits / 32, s = bits % 32, n = na + q + 1;
    memset(r, 0, (size_t)n * sizeof *r);
    for (int i = 0; i < na; i++) {
        uint64_t v = a[i] << s;
        r[i + q] |= v & 0xffffffffull;
        r[i + q + 1] |= v >> 32;
    }
    return n;
}
static int big_cmp(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
static void big_sub(const uint64_t *a, const uint64_t *b, int n, uint64_t *r)  /* a >= b */
{
    int64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        int64_t t = (int64_t)a[i] - (int64_t)b[i] - borrow;
        borrow = t < 0;
        r[i] = (uint64_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
}

void gp_rstats_moments(const gp_rstats *s, double *mean, double *std)
{
    double nan = gp_bitsd(GP_CANON_NAN);
    if (s->finite == 0) { *mean = nan; *std = nan; return; }
    int64_t ds[GP_XNL_MAX], dq[GP_XNL_MAX];
    memcpy(ds, s->s, sizeof ds);
    memcpy(dq, s->q, sizeof dq);
    int sneg = gp_xmag(ds, s->fs.nl);
    gp_xmag(dq, s->fq.nl);
    uint64_t n = (uint64_t)s->finite;
    *mean = gp_xround_digits(ds, s->fs.nl, s->fs.lo, sneg) / (double)n;
    if (s->qover) { *std = gp_bitsd(0x7FF0000000000000ull); return; }
    /* D = n q - s^2, exactly, in units of 2^L with L = min(2 lo_s, lo_q) */
    uint64_t S[GP_XNL_MAX], Q[GP_XNL_MAX], N[2] = {n & 0xffffffffull, n >> 32};
    for (int i = 0; i < s->fs.nl; i++) S[i] = (uint64_t)ds[i];
    for (int i = 0; i < s->fq.nl; i++) Q[i] = (uint64_t)dq[i];
    uint64_t S2[BIG], NQ[BIG], A[BIG], B[BIG], D[BIG];
    int ns2 = 2 * s->fs.nl, nnq = s->fq.nl + 2;
    big_mul(S, s->fs.nl, S, s->fs.nl, S2);
    big_mul(Q, s->fq.nl, N, 2, NQ);
    int l2s = 2 * s->fs.lo, L = l2s < s->fq.lo ? l2s : s->fq.lo;
    memset(A, 0, sizeof A);
    memset(B, 0, sizeof B);
    int na = big_shl(NQ, nnq, s->fq.lo - L, A);
    int nb = big_shl(S2, ns2, l2s - L, B);
    int nd = na > nb ? na : nb;
    int neg = big_cmp(A, B, nd) < 0;
    if (neg) big_sub(B, A, nd, D); else big_sub(A, B, nd, D);
    int64_t Di[BIG] = {0};
    for (int i = 0; i < nd; i++) Di[i] = (int64_t)D[i];
    double d = gp_xround_digits(Di, nd, L, 0);
    if (neg) d = 0;   /* only possible through underflowed square error terms: clamp */
    double var = d / (double)n / (double)n;
    *std = sqrt(var);
}

/* ---- driver ------------------------------------------------------------------------------------ */
static json_t *jnum(double d)
{
    if (d != d) return json_string("nan");
    if (isinf(d)) return json_string(d > 0 ? "inf" : "-inf");
    return json_real(d);
}

typedef struct {
    gp_cuda_reduce *cu;   /* NULL: the CPU */
    size_t cols;
    gp_rtype t;
    gp_rstats *s;
} sctx;

static void stats_panel(gp_rpanel *pn, void *ctx)
{
    sctx *c = ctx;
    if (!pn->rows || !c->cols) return;
    if (c->cu) pn->rc = gp_cuda_rstats(c->cu, pn->buf, pn->rows, c->cols, pn->row0, c->t, c->s, pn->msg, sizeof pn->msg);
    else gp_cpu_rstats(pn->buf, pn->rows, c->cols, pn->row0, c->t, c->s);
}

gp_status gp_stats(MPI_Comm comm, const gp_stats_opts *o, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    gp__watchdog_start(comm, o->input);
    double t0 = gp__now();
    gp_rin in;
    memset(&in, 0, sizeof in);
    in.mtype = in.h.file = in.h.dset = in.h.type = H5I_INVALID_HID;
    gp_rstream rs = {0};
    gp_cuda_reduce *cu = NULL;
    int use_cuda = 0;
    gp_rstats s;
    gp_status st = gp__rin_open(comm, o->input, o->dataset, GP_RIN_NUMERIC, &in, err);
    if (st) goto done;
    gp_rstats_init(&s, in.t);
    size_t R = in.h.rows, C = in.h.cols, es = in.esize;
    size_t mem = gp__rmem(comm, o->mem);
    gp__rdevice(comm, o->device ? o->device : "auto", &use_cuda, &cu, err);
    if ((st = gp__agree(comm, err))) goto done;
    size_t maxrows = gp__split(R, nranks, 0).count;
    size_t k = gp__rpanel_rows(C, es, 0, 2, mem, 0, o->panel_rows, maxrows);
    if (!k) gp__fail(err, GP_ENOMEM, "%s: --mem is too small for two panels of one row", o->input);
    if ((st = gp__agree(comm, err))) goto done;
    if (gp__rstream_open(comm, &rs, k * C * es, cu, GP_RWORK_HEAVY))
        gp__fail(err, GP_ENOMEM, "%s: cannot allocate two panels of %zu rows; lower --mem", o->input, k);
    if ((st = gp__agree(comm, err))) goto done;
    double tsetup = gp__now() - t0;
    sctx sc = {cu, C, in.t, &s};
    gp_rstream_ops ops = {"stats", NULL, stats_panel, NULL, &sc, NULL};
    if ((st = gp__rstream_run(comm, &rs, &in, k, &ops, err))) goto done;
    gp_rstats_allreduce(comm, &s);
    double elapsed = gp__now() - t0;
    if (rank == 0) {
        double mean, sd;
        gp_rstats_moments(&s, &mean, &sd);
        int isf = gp_rtype_is_float(in.t), any = s.count - s.nan > 0;
        char mn[64] = "nan", mx[64] = "nan";
        json_t *jmin = NULL, *jmax = NULL;
        if (any && isf) {
            double a = gp_unkey_d(s.kmin), b = gp_unkey_d(s.kmax);
            snprintf(mn, sizeof mn, "%.17g", a);
            snprintf(mx, sizeof mx, "%.17g", b);
            jmin = jnum(a);
            jmax = jnum(b);
        } else if (any && gp_rtype_is_unsigned(in.t)) {
            snprintf(mn, sizeof mn, "%llu", (unsigned long long)s.kmin);
            snprintf(mx, sizeof mx, "%llu", (unsigned long long)s.kmax);
            jmin = json_integer((json_int_t)s.kmin);   /* u64 above 2^63 wraps: see "min_str" */
            jmax = json_integer((json_int_t)s.kmax);
        } else if (any) {
            snprintf(mn, sizeof mn, "%lld", (long long)gp_unkey_i(s.kmin));
            snprintf(mx, sizeof mx, "%lld", (long long)gp_unkey_i(s.kmax));
            jmin = json_integer((json_int_t)gp_unkey_i(s.kmin));
            jmax = json_integer((json_int_t)gp_unkey_i(s.kmax));
        } else {
            jmin = json_null();
            jmax = json_null();
        }
        char ck[32];
        snprintf(ck, sizeof ck, "%016llx", (unsigned long long)s.checksum);
        if (o->json) {
            json_t *j = json_pack("{s:s, s:s, s:s, s:[I,I], s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:i, s:f}",
                                  "op", "stats", "input", o->input, "dataset", in.h.dset_path,
                                  "shape", (json_int_t)R, (json_int_t)C, "dtype", in.tdesc,
                                  "count", (json_int_t)s.count, "finite", (json_int_t)s.finite, "nan", (json_int_t)s.nan,
                                  "posinf", (json_int_t)s.pinf, "neginf", (json_int_t)s.ninf,
                                  "min", jmin, "max", jmax, "min_str", mn, "max_str", mx,
                                  "mean", jnum(mean), "std", jnum(sd),
                                  "mean_bits", "", "std_bits", "", "checksum", ck, "ranks", nranks, "seconds", elapsed);
            char hx[32];
            snprintf(hx, sizeof hx, "%016llx", (unsigned long long)gp_dbits(mean));
            json_object_set_new(j, "mean_bits", json_string(hx));
            snprintf(hx, sizeof hx, "%016llx", (unsigned long long)gp_dbits(sd));
            json_object_set_new(j, "std_bits", json_string(hx));
            json_object_set_new(j, "backend", json_string(use_cuda ? gp_cuda_reduce_desc(cu) : "cpu"));
            gp__rjson(o->json, j, err);
        } else {
            json_decref(jmin);
            json_decref(jmax);
            printf("%s:%s  %zux%zu %s\n", o->input, in.h.dset_path, R, C, in.tdesc);
            printf("count     %lld\n", (long long)s.count);
            printf("nan       %lld\n", (long long)s.nan);
            printf("+inf      %lld\n", (long long)s.pinf);
            printf("-inf      %lld\n", (long long)s.ninf);
            printf("min       %s\n", mn);
            printf("max       %s\n", mx);
            printf("mean      %.17g\n", mean);
            printf("std       %.17g\n", sd);
            printf("checksum  %s\n", ck);
            fflush(stdout);
        }
        if (!o->quiet) {
            double bytes = (double)R * (double)C * (double)es;
            char rate[32];
            gp__human_rate(bytes / elapsed, rate, sizeof rate);
            fprintf(stderr, "gpipe: stats of %s:%s on %d rank%s (%s), %zu panel%s of %zu rows, %.3f s, %s (rank 0: setup "
                    "%.3f s, read %.3f s, %sstats %.3f s, %s)\n", o->input, in.h.dset_path, nranks, nranks > 1 ? "s" : "",
                    use_cuda ? gp_cuda_reduce_desc(cu) : "cpu", rs.npanels, rs.npanels == 1 ? "" : "s", k, elapsed,
                    rate, tsetup, rs.tread, gp__rstream_desc(&rs), rs.twork, gp__rstream_mode(&rs));
        }
    }
done:
    gp__rstream_close(&rs);
    if (cu) gp_cuda_reduce_destroy(cu);
    gp__rin_close(&in);
    gp__watchdog_stop();
    return st;
}
