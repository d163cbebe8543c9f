/* pipeline/verify.c — `gpipe verify A B [--transposed]`: compares two datasets without gathering
 * them. Each rank streams its row panels of both files (pipeline/rstream.c: panel p + 1 is read
 * while a worker thread hashes panel p) and adds xxh3(value bytes, seed = linear index in A's coordinates) into
 * per-row-bucket fingerprints (sums mod 2^64: order-independent);
 * the buckets are merged over ranks. A mismatching bucket is narrowed to one row by a second
 * pass, and rank 0 reads that row of A and of B (B's column with --transposed) to name the
 * first differing element. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/internal.h"
#include "pipeline/reduce.h"

#define NBUCKETS 4096

/* What the fingerprint of one file's panels adds into: fp[(r - lo) / bs] for the element at
 * A-coordinates (r, c) with lo <= r < hi. */
typedef struct {
    size_t C, es, acols, lo, hi, bs;
    int swap;             /* the file is B = A's transpose: its row gi holds A's column gi */
    uint64_t *fp;
    gp_cuda_reduce *cu;   /* the GPU (NULL: the CPU), with hs: a sum per row or column */
    uint64_t *hs;
} fpctx;

static size_t fp_select(size_t row0, size_t n, void *ctx)
{
    const fpctx *c = ctx;   /* without --transposed only panels that meet [lo, hi) matter */
    return !c->swap && (row0 >= c->hi || row0 + n <= c->lo) ? 0 : n;
}

/* One panel's fingerprints into fp (on the worker thread): rows [row0, row0 + rows) of the file. */
static void fp_panel(gp_rpanel *pn, void *ctx)
{
    const fpctx *j = ctx;
    const unsigned char *b = pn->buf;
    const size_t C = j->C, es = j->es, lo = j->lo, hi = j->hi, bs = j->bs, g0 = pn->row0, cnt = pn->rows;
    if (j->cu && cnt) {   /* per-row (per-column with --transposed) sums on the GPU, then buckets */
        if (!j->swap) {
            pn->rc = gp_cuda_rhash(j->cu, b, cnt, C, es, (uint64_t)g0 * j->acols, j->acols, 1, GP_AXIS_ROWS, j->hs,
                                   pn->msg, sizeof pn->msg);
            for (size_t i = 0; i < cnt && !pn->rc; i++) {
                size_t gi = g0 + i;
                if (gi >= lo && gi < hi) j->fp[(gi - lo) / bs] += j->hs[i];
            }
        } else {
            pn->rc = gp_cuda_rhash(j->cu, b, cnt, C, es, g0, 1, j->acols, GP_AXIS_COLS, j->hs, pn->msg, sizeof pn->msg);
            for (size_t c = lo; c < hi && c < C && !pn->rc; c++) j->fp[(c - lo) / bs] += j->hs[c];
        }
        return;
    }
    for (size_t i = 0; i < cnt; i++) {
        size_t gi = g0 + i;
        if (!j->swap) {
            if (gi < lo || gi >= hi) continue;
            j->fp[(gi - lo) / bs] += gp_rhash_run(b + i * C * es, C, es, (uint64_t)gi * j->acols, 1);
        } else {  /* B[gi, c] is A[c, gi]: A's index c * acols + gi, a bucket per bs columns */
            for (size_t c = lo; c < hi && c < C;) {
                size_t ce = c - (c - lo) % bs + bs;
                if (ce > hi) ce = hi;
                if (ce > C) ce = C;
                j->fp[(c - lo) / bs] += gp_rhash_run(b + (i * C + c) * es, ce - c, es, (uint64_t)c * j->acols + gi,
                                                    j->acols);
                c = ce;
            }
        }
    }
}

/* Adds the fingerprints of every element of `in` (this rank's panels of k rows) into fp. */
static gp_status fingerprint(MPI_Comm comm, gp_rin *in, int swap, size_t acols, size_t lo, size_t hi, size_t bs,
                             uint64_t *fp, size_t k, gp_rstream *rs, uint64_t *hs, gp_error *e)
{
    size_t es = in->esize;
    fpctx c = {in->h.cols, es, acols, lo, hi, bs, swap, fp, es == 1 || es == 2 || es == 4 || es == 8 ? rs->cu : NULL,
               hs};
    gp_rstream_ops ops = {"fingerprint", fp_select, fp_panel, NULL, &c, NULL};
    return gp__rstream_run(comm, rs, in, k, &ops, e);
}

static void fmt_value(const gp_rin *in, const unsigned char *v, char *out, size_t n)
{
    if (!in->is_numeric) {
        size_t u = (size_t)snprintf(out, n, "0x");
        for (size_t i = 0; i < in->esize && u + 3 < n; i++) u += (size_t)snprintf(out + u, n - u, "%02x", v[i]);
        return;
    }
    switch (in->t) {
    case GP_RT_I8: snprintf(out, n, "%d", *(const int8_t *)v); break;
    case GP_RT_I16: { int16_t x; memcpy(&x, v, 2); snprintf(out, n, "%d", x); break; }
    case GP_RT_I32: { int32_t x; memcpy(&x, v, 4); snprintf(out, n, "%d", x); break; }
    case GP_RT_I64: { int64_t x; memcpy(&x, v, 8); snprintf(out, n, "%lld", (long long)x); break; }
    case GP_RT_U8: snprintf(out, n, "%u", *v); break;
    case GP_RT_U16: { uint16_t x; memcpy(&x, v, 2); snprintf(out, n, "%u", x); break; }
    case GP_RT_U32: { uint32_t x; memcpy(&x, v, 4); snprintf(out, n, "%u", x); break; }
    case GP_RT_U64: { uint64_t x; memcpy(&x, v, 8); snprintf(out, n, "%llu", (unsigned long long)x); break; }
    case GP_RT_F32: { float x; memcpy(&x, v, 4); snprintf(out, n, "%.9g", (double)x); break; }
    default: { double x; memcpy(&x, v, 8); snprintf(out, n, "%.17g", x); break; }
    }
}

gp_status gp_verify(MPI_Comm comm, const gp_verify_opts *o, int *differ, char *msg, size_t msglen, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    gp__watchdog_start(comm, o->a);
    *differ = 0;
    msg[0] = 0;
    double t0 = gp__now();
    gp_rin a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.mtype = a.h.file = a.h.dset = a.h.type = H5I_INVALID_HID;
    b.mtype = b.h.file = b.h.dset = b.h.type = H5I_INVALID_HID;
    gp_rstream rs = {0};
    gp_cuda_reduce *cu = NULL;
    int use_cuda = 0;
    uint64_t *fa = NULL, *fb = NULL, *hs = NULL;
    unsigned char *ra = NULL, *rbuf = NULL;
    gp_status st = gp__rin_open(comm, o->a, o->dset_a, GP_RIN_ANY, &a, err);
    if (st) goto done;
    if ((st = gp__rin_open(comm, o->b, o->dset_b, GP_RIN_ANY, &b, err))) goto done;

    size_t R = a.h.rows, C = a.h.cols;
    size_t bR = o->transposed ? C : R, bC = o->transposed ? R : C;
    if (b.h.rows != bR || b.h.cols != bC) {
        *differ = 1;
        snprintf(msg, msglen, "shapes differ: A %s is %zux%zu, B %s is %zux%zu%s", a.h.dset_path, R, C, b.h.dset_path,
                 b.h.rows, b.h.cols, o->transposed ? " (expected A's transpose)" : "");
        goto done;
    }
    if (a.is_numeric != b.is_numeric || (a.is_numeric && a.t != b.t) ||
        (!a.is_numeric && H5Tequal(a.h.type, b.h.type) <= 0)) {
        *differ = 1;
        snprintf(msg, msglen, "types differ: A %s is %s, B %s is %s", a.h.dset_path, a.tdesc, b.h.dset_path, b.tdesc);
        goto done;
    }
    size_t es = a.esize, mem = gp__rmem(comm, o->mem);
    size_t maxc = C > R ? C : R;
    gp__rdevice(comm, o->device ? o->device : "auto", &use_cuda, &cu, err);
    if ((st = gp__agree(comm, err))) goto done;
    /* with a GPU: a sum per panel row (hs) too, and one per column of a row */
    size_t k = gp__rpanel_agree(comm, gp__rpanel_rows(maxc, es, use_cuda ? 8 : 0, 2, mem,
                                                      4 * NBUCKETS * 8 + (use_cuda ? maxc * 8 : 0), o->panel_rows, 0));
    if (!k) gp__fail(err, GP_ENOMEM, "%s: --mem is too small for two panels of one row", o->a);
    if ((st = gp__agree(comm, err))) goto done;
    int nomem = gp__rstream_open(comm, &rs, k * maxc * es, cu, GP_RWORK_HEAVY);
    fa = calloc(NBUCKETS, 8);
    fb = calloc(NBUCKETS, 8);
    if (use_cuda) hs = malloc((k > maxc ? k : maxc) * 8 + 8);
    if (nomem || !fa || !fb || (use_cuda && !hs))
        gp__fail(err, GP_ENOMEM, "%s: cannot allocate two panels of %zu rows; lower --mem", o->a, k);
    if ((st = gp__agree(comm, err))) goto done;

    /* pass 1: row buckets over A's rows */
    size_t lo = 0, hi = R, bs = R ? (R + NBUCKETS - 1) / NBUCKETS : 1;
    size_t nb = R ? (R + bs - 1) / bs : 0;
    if ((st = fingerprint(comm, &a, 0, C, lo, hi, bs, fa, k, &rs, hs, err))) goto done;
    if ((st = fingerprint(comm, &b, o->transposed, C, lo, hi, bs, fb, k, &rs, hs, err))) goto done;
    MPI_Allreduce(MPI_IN_PLACE, fa, (int)nb, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, fb, (int)nb, MPI_UINT64_T, MPI_SUM, comm);
    size_t bad = nb;
    for (size_t i = 0; i < nb; i++)
        if (fa[i] != fb[i]) { bad = i; break; }
    if (bad == nb) goto done;   /* equal */
    *differ = 1;
    /* pass 2: one bucket per row inside the first bad bucket */
    lo = bad * bs;
    hi = lo + bs < R ? lo + bs : R;
    if (hi - lo > 1) {
        memset(fa, 0, NBUCKETS * 8);
        memset(fb, 0, NBUCKETS * 8);
        if ((st = fingerprint(comm, &a, 0, C, lo, hi, 1, fa, k, &rs, hs, err))) goto done;
        if ((st = fingerprint(comm, &b, o->transposed, C, lo, hi, 1, fb, k, &rs, hs, err))) goto done;
        MPI_Allreduce(MPI_IN_PLACE, fa, (int)(hi - lo), MPI_UINT64_T, MPI_SUM, comm);
        MPI_Allreduce(MPI_IN_PLACE, fb, (int)(hi - lo), MPI_UINT64_T, MPI_SUM, comm);
        for (size_t i = 0; i < hi - lo; i++)
            if (fa[i] != fb[i]) { lo += i; break; }
    }
    /* the row: rank 0 reads A[r, :] and B[r, :] (B[:, r] when transposed), finds the column */
    size_t r = lo;
    ra = malloc((C * es) != 0 ? C * es : 1);
    rbuf = malloc((C * es) != 0 ? C * es : 1);
    if (!ra || !rbuf) gp__fail(err, GP_ENOMEM, "%s: cannot allocate one row", o->a);
    if ((st = gp__agree(comm, err))) goto done;
    gp__rin_read(&a, r, rank == 0 ? 1 : 0, 0, (size_t)-1, ra, err);
    if ((st = gp__agree(comm, err))) goto done;
    if (o->transposed) gp__rin_read(&b, 0, rank == 0 ? C : 0, r, 1, rbuf, err);
    else gp__rin_read(&b, r, rank == 0 ? 1 : 0, 0, (size_t)-1, rbuf, err);
    if ((st = gp__agree(comm, err))) goto done;
    if (rank == 0) {
        size_t c = C;
        for (size_t j = 0; j < C; j++)
            if (memcmp(ra + j * es, rbuf + j * es, es)) { c = j; break; }
        if (c < C) {
            char va[128], vb[128];
            fmt_value(&a, ra + c * es, va, sizeof va);
            fmt_value(&b, rbuf + c * es, vb, sizeof vb);
            if (o->transposed)
                snprintf(msg, msglen, "first difference at A[%zu, %zu] = %s vs B[%zu, %zu] = %s", r, c, va, c, r, vb);
            else
                snprintf(msg, msglen, "first difference at [%zu, %zu]: A = %s, B = %s", r, c, va, vb);
        } else {
            snprintf(msg, msglen, "row %zu of A differs (fingerprint mismatch)", r);
        }
    }
    MPI_Bcast(msg, (int)msglen, MPI_CHAR, 0, comm);

done:
    if (!st && rank == 0 && o->json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:i, s:s, s:f}", "op", "verify", "a", o->a, "b", o->b,
                              "transposed", o->transposed, "equal", !*differ, "detail", msg, "ranks", nranks,
                              "backend", use_cuda ? gp_cuda_reduce_desc(cu) : "cpu", "seconds", gp__now() - t0);
        gp__rjson(o->json, j, err);
    }
    gp__rstream_close(&rs);
    if (cu) gp_cuda_reduce_destroy(cu);
    free(hs);
    free(fa);
    free(fb);
    free(ra);
    free(rbuf);
    gp__rin_close(&a);
    gp__rin_close(&b);
    gp__watchdog_stop();
    return st;
}
