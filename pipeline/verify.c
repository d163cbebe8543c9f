/* pipeline/verify.c — `gpipe verify A B [--transposed]`: compares two datasets without gathering
 * them. Each rank streams its row panels of both files (reading panel p + 1 while a worker thread
 * hashes panel p) and adds xxh3(value bytes, seed = linear index in A's coordinates) into
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

/* One panel's fingerprints into fp (the worker's job): rows [g0, g0 + cnt) of the file. */
typedef struct {
    const unsigned char *b;
    size_t g0, cnt, C, es, acols, lo, hi, bs;
    int swap;
    uint64_t *fp;
    gp_cuda_reduce *cu;   /* the GPU (NULL: the CPU), with hs: a sum per row or column */
    uint64_t *hs;
    int rc;
    char msg[256];
} fpjob;

static void fp_panel(void *arg)
{
    fpjob *j = arg;
    const size_t C = j->C, es = j->es, lo = j->lo, hi = j->hi, bs = j->bs;
    j->rc = 0;
    if (j->cu && j->cnt) {   /* per-row (per-column with --transposed) sums on the GPU, then buckets */
        if (!j->swap) {
            j->rc = gp_cuda_rhash(j->cu, j->b, j->cnt, C, es, (uint64_t)j->g0 * j->acols, j->acols, 1, GP_AXIS_ROWS,
                                  j->hs, j->msg, sizeof j->msg);
            for (size_t i = 0; i < j->cnt && !j->rc; i++) {
                size_t gi = j->g0 + i;
                if (gi >= lo && gi < hi) j->fp[(gi - lo) / bs] += j->hs[i];
            }
        } else {
            j->rc = gp_cuda_rhash(j->cu, j->b, j->cnt, C, es, j->g0, 1, j->acols, GP_AXIS_COLS, j->hs, j->msg,
                                  sizeof j->msg);
            for (size_t c = lo; c < hi && c < C && !j->rc; c++) j->fp[(c - lo) / bs] += j->hs[c];
        }
        return;
    }
    for (size_t i = 0; i < j->cnt; i++) {
        size_t gi = j->g0 + i;
        if (!j->swap) {
            if (gi < lo || gi >= hi) continue;
            j->fp[(gi - lo) / bs] += gp_rhash_run(j->b + i * C * es, C, es, (uint64_t)gi * j->acols, 1);
        } else {  /* B[gi, c] is A[c, gi]: A's index c * acols + gi, a bucket per bs columns */
            for (size_t c = lo; c < hi && c < C;) {
                size_t ce = c - (c - lo) % bs + bs;
                if (ce > hi) ce = hi;
                if (ce > C) ce = C;
                j->fp[(c - lo) / bs] += gp_rhash_run(j->b + (i * C + c) * es, ce - c, es, (uint64_t)c * j->acols + gi,
                                                    j->acols);
                c = ce;
            }
        }
    }
}

/* Adds the fingerprints of every element of `in` (rank's panels) into fp: element at A-coordinates
 * (r, c) goes to fp[(r - lo) / bs] when lo <= r < hi. Panel p + 1 is read while the worker hashes
 * panel p (buf: two panels of k rows). */
static gp_status fingerprint(MPI_Comm comm, gp_rin *in, int swap, size_t acols, size_t lo, size_t hi, size_t bs,
                             uint64_t *fp, size_t k, void *const buf[2], gp_worker *worker, gp_cuda_reduce *cu,
                             uint64_t *hs, gp_error *e)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    size_t R = in->h.rows, C = in->h.cols, es = in->esize;
    gp_range rb = gp__split(R, nranks, rank);
    size_t maxrows = gp__split(R, nranks, 0).count;
    size_t npanels = maxrows ? (maxrows + k - 1) / k : 0;
    gp_status st = GP_OK;
    size_t cnt[2] = {0, 0};
    for (size_t p = 0; p <= npanels; p++) {
        /* read panel p (not past the last) while the worker hashes panel p - 1 */
        fpjob job = {buf[(p + 1) % 2], rb.start + (p - 1) * k, cnt[(p + 1) % 2], C, es, acols, lo, hi, bs, swap, fp,
                     es == 1 || es == 2 || es == 4 || es == 8 ? cu : NULL, hs, 0, ""};
        if (p > 0) gp__worker_start(worker, fp_panel, &job);
        if (p < npanels) {
            size_t off = p * k, n = off < rb.count ? (rb.count - off < k ? rb.count - off : k) : 0;
            /* without --transposed only panels that meet [lo, hi) matter (still entered collectively) */
            if (!swap && n && (rb.start + off >= hi || rb.start + off + n <= lo)) n = 0;
            cnt[p % 2] = n;
            gp__rin_read(in, rb.start + (n ? off : 0), n, 0, (size_t)-1, buf[p % 2], e);
        }
        if (p > 0) gp__worker_wait(worker);
        if (job.rc)
            gp__fail(e, job.rc, "%s: fingerprint of panel %zu on %s failed: %s", in->h.path,
                     p - 1, gp_cuda_reduce_desc(cu), job.msg);
        if ((st = gp__agree(comm, e))) return st;
    }
    return st;
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
    void *buf[2] = {0, 0};
    int pinned[2] = {0, 0};
    gp_worker *worker = NULL;
    gp_cuda_reduce *cu = NULL;
    int use_cuda = 0;
    uint64_t *fa = NULL, *fb = NULL, *hs = NULL;
    unsigned char *ra = NULL, *rbuf = NULL;
    gp_status st = gp__rin_open(comm, o->a, o->dset_a, 0, &a, err);
    if (st) goto done;
    if ((st = gp__rin_open(comm, o->b, o->dset_b, 0, &b, err))) goto done;

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
    size_t k = gp__rpanel_rows(maxc, es, use_cuda ? 8 : 0, 2, mem, 4 * NBUCKETS * 8 + (use_cuda ? maxc * 8 : 0),
                               o->panel_rows, 0);
    if (!k) gp__fail(err, GP_ENOMEM, "%s: --mem is too small for two panels of one row", o->a);
    if ((st = gp__agree(comm, err))) goto done;
    for (int i = 0; i < 2; i++) buf[i] = malloc((k * maxc * es) != 0 ? k * maxc * es : 64);
    worker = gp__worker_create();
    fa = calloc(NBUCKETS, 8);
    fb = calloc(NBUCKETS, 8);
    if (use_cuda) hs = malloc((k > maxc ? k : maxc) * 8 + 8);
    if (!buf[0] || !buf[1] || !worker || !fa || !fb || (use_cuda && !hs))
        gp__fail(err, GP_ENOMEM, "%s: cannot allocate two panels of %zu rows; lower --mem", o->a, k);
    if ((st = gp__agree(comm, err))) goto done;
    for (int i = 0; i < 2 && use_cuda; i++) pinned[i] = gp_cuda_reduce_pin(cu, buf[i], k * maxc * es);

    /* pass 1: row buckets over A's rows */
    size_t lo = 0, hi = R, bs = R ? (R + NBUCKETS - 1) / NBUCKETS : 1;
    size_t nb = R ? (R + bs - 1) / bs : 0;
    if ((st = fingerprint(comm, &a, 0, C, lo, hi, bs, fa, k, buf, worker, cu, hs, err))) goto done;
    if ((st = fingerprint(comm, &b, o->transposed, C, lo, hi, bs, fb, k, buf, worker, cu, hs, err))) goto done;
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
        if ((st = fingerprint(comm, &a, 0, C, lo, hi, 1, fa, k, buf, worker, cu, hs, err))) goto done;
        if ((st = fingerprint(comm, &b, o->transposed, C, lo, hi, 1, fb, k, buf, worker, cu, hs, err))) goto done;
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
    if (worker) gp__worker_destroy(worker);
    for (int i = 0; i < 2; i++) {
        if (pinned[i]) gp_cuda_reduce_unpin(cu, buf[i]);
        free(buf[i]);
    }
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
