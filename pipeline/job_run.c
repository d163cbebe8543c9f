/* pipeline/job_run.c — running a job's entries: per entry, reductions of the input, the map
 * chain (coefficients loaded once, standardize's reduction pass), then one pass that writes
 * (gp_transpose with the fused map, or the map + write driver below), then reductions of the
 * output; a status line per entry, JSON lines with --json. Every step is collective and agreed,
 * so all ranks see the same status for every entry. */
#include <hdf5.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/h5.h"
#include "kernels/backend.h"
#include "pipeline/internal.h"
#include "pipeline/job.h"

/* ---- input types ---------------------------------------------------------------------------- */
/* gp_rtype of a file type, and whether its bytes are in the other order. -1: unsupported. */
static int file_rtype(hid_t t, gp_rtype *rt, int *swap)
{
    H5T_class_t cl = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    H5T_order_t ord = H5Tget_order(t);
    H5T_order_t native = H5Tget_order(H5T_NATIVE_INT);
    if (cl == H5T_INTEGER) {
        int sgn = H5Tget_sign(t) != H5T_SGN_NONE;
        switch (sz) {
        case 1: *rt = sgn ? GP_RT_I8 : GP_RT_U8; break;
        case 2: *rt = sgn ? GP_RT_I16 : GP_RT_U16; break;
        case 4: *rt = sgn ? GP_RT_I32 : GP_RT_U32; break;
        case 8: *rt = sgn ? GP_RT_I64 : GP_RT_U64; break;
        default: return -1;
        }
    } else if (cl == H5T_FLOAT && (sz == 4 || sz == 8)) {
        /* only IEEE binary32/binary64 layouts */
        size_t spos, epos, esize, mpos, msize;
        if (H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) < 0) return -1;
        if (esize != (sz == 4 ? 8u : 11u) || msize != (sz == 4 ? 23u : 52u)) return -1;
        *rt = sz == 4 ? GP_RT_F32 : GP_RT_F64;
    } else {
        return -1;
    }
    *swap = sz > 1 && ord != native;
    return 0;
}

/* ---- coefficients ---------------------------------------------------------------------------- */
/* Resolves a coefficient for a matrix of `cols` columns: *scalar or *vec (malloc'ed, cols
 * values, every rank). Collective when the coefficient is a dataset (rank 0 reads it). */
static gp_status coef_load(MPI_Comm comm, const gp_job *j, const gp_jstage *s, const char *key, const gp_coef *c,
                           double dflt, size_t cols, double *scalar, double **vec, gp_error *e)
{
    *scalar = dflt;
    *vec = NULL;
    if (c->kind == GP_COEF_NONE) return GP_OK;
    if (c->kind == GP_COEF_SCALAR) { *scalar = c->scalar; return GP_OK; }
    if (c->kind == GP_COEF_INLINE) {
        if (c->n == 1) { *scalar = c->vec[0]; return GP_OK; }
        if (c->n != cols)
            return gp__fail(e, GP_EINVAL, "%s:%d: [%s] %s has %zu values but the dataset has %zu columns", j->path,
                            c->line, gp_jstage_name(s->kind), key, c->n, cols);
        *vec = malloc(cols * sizeof **vec);
        if (!*vec) return gp__fail(e, GP_ENOMEM, "out of memory for coefficients");
        memcpy(*vec, c->vec, cols * sizeof **vec);
        return GP_OK;
    }
    int rank;
    MPI_Comm_rank(comm, &rank);
    double *v = malloc((cols ? cols : 1) * sizeof *v);
    if (!v) gp__fail(e, GP_ENOMEM, "out of memory for coefficients");
    if (rank == 0 && v) {
        hid_t f = H5Fopen(c->file, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t d = f >= 0 ? H5Dopen2(f, c->dataset, H5P_DEFAULT) : H5I_INVALID_HID;
        char why[256] = "";
        if (f < 0 || d < 0) {
            gp_h5_last_error(why, sizeof why);
            gp__fail(e, GP_EIO, "%s:%d: [%s] %s: cannot open %s:%s%s%s", j->path, c->line, gp_jstage_name(s->kind), key,
                     c->file, c->dataset, why[0] ? ": " : "", why);
        } else {
            hid_t sp = H5Dget_space(d);
            hsize_t dims[2] = {0, 0};
            int nd = H5Sget_simple_extent_ndims(sp);
            if (nd >= 1 && nd <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
            hsize_t n = nd == 1 ? dims[0] : nd == 2 ? dims[0] * dims[1] : 0;
            int ok_shape = (nd == 1 || (nd == 2 && (dims[0] == 1 || dims[1] == 1))) && n == cols;
            H5T_class_t cl = H5Tget_class(H5Dget_type(d));
            if (!ok_shape)
                gp__fail(e, GP_EINVAL, "%s:%d: [%s] %s: %s:%s must be a vector of %zu values (one per column)", j->path,
                         c->line, gp_jstage_name(s->kind), key, c->file, c->dataset, cols);
            else if (cl != H5T_INTEGER && cl != H5T_FLOAT)
                gp__fail(e, GP_EINVAL, "%s:%d: [%s] %s: %s:%s is not numeric", j->path, c->line, gp_jstage_name(s->kind),
                         key, c->file, c->dataset);
            else if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
                gp_h5_last_error(why, sizeof why);
                gp__fail(e, GP_EIO, "%s:%d: [%s] %s: reading %s:%s failed%s%s", j->path, c->line, gp_jstage_name(s->kind),
                         key, c->file, c->dataset, why[0] ? ": " : "", why);
            } else {
                for (size_t i = 0; i < cols; i++)
                    if (!isfinite(v[i])) {
                        gp__fail(e, GP_EINVAL, "%s:%d: [%s] %s: %s:%s[%zu] is not finite", j->path, c->line,
                                 gp_jstage_name(s->kind), key, c->file, c->dataset, i);
                        break;
                    }
            }
            H5Sclose(sp);
        }
        if (d >= 0) H5Dclose(d);
        if (f >= 0) H5Fclose(f);
    }
    gp_status st = gp__agree(comm, e);
    if (st) { free(v); return st; }
    for (size_t off = 0; off < cols; off += (size_t)1 << 27) {
        size_t cnt = cols - off < ((size_t)1 << 27) ? cols - off : ((size_t)1 << 27);
        MPI_Bcast(v + off, (int)cnt, MPI_DOUBLE, 0, comm);
    }
    *vec = v;
    return GP_OK;
}

/* ---- per-column moments (standardize) -------------------------------------------------------- */
/* Panels stream through rstream: the work maps panel p (the chain before standardize) and adds
 * its columns into exact per-column accumulators of Σx and Σx² with the column-sum kernels
 * (gp_cpu_rsum, axis cols), on a worker thread while panel p + 1 is read where the rank has a
 * second CPU (rstream.c). Squares of f32 and of integers are exact in double, so the SQ kind's sum
 * is Σx²; for f64 the SQ kind sums the rounded squares and the rounding errors fma(x, x, -x²) are
 * summed into the same accumulator: exactly the limbs gp_cpu_rstats gives (twenty-fourth session:
 * 1.8x the transpose + per-column stats it replaced). */
typedef struct {
    const gp_mapchain *prefix;
    void *mbuf;            /* the mapped panel */
    double *ebuf;          /* f64: the squares' rounding errors */
    int64_t *as, *aq;      /* per column, the accumulators of Σx and Σx² */
    gp_xfmt fs, fq;        /* their formats */
    size_t cols;
    int64_t rows;          /* rows added (each column's count) */
    gp_rtype t;
} mctx;

static void moments_panel(gp_rpanel *pn, void *ctx)
{
    mctx *m = ctx;
    size_t n = pn->rows;
    if (!n || !m->cols) return;
    const void *src = pn->buf;   /* an empty chain on native-order input: the panel as read */
    if (m->prefix->nops || m->prefix->in_swap) {
        if ((pn->rc = gp_cpu_map(m->prefix, pn->buf, m->mbuf, n, m->cols, 0, pn->msg, sizeof pn->msg))) return;
        src = m->mbuf;
    }
    m->rows += (int64_t)n;
    gp_cpu_rsum(src, n, m->cols, m->t, GP_RK_SUM, GP_AXIS_COLS, m->fs, m->as);
    gp_cpu_rsum(src, n, m->cols, m->t, GP_RK_SQ, GP_AXIS_COLS, m->fq, m->aq);
    if (m->t == GP_RT_F64) {
        const double *x = src;
        for (size_t i = 0; i < n * m->cols; i++) {   /* 0 where the square is not finite */
            const double d = x[i], p = gp_mul_rn(d, d);
            m->ebuf[i] = p - p == 0 ? fma(d, d, -p) : 0;
        }
        gp_cpu_rsum(m->ebuf, n, m->cols, GP_RT_F64, GP_RK_SUM, GP_AXIS_COLS, m->fq, m->aq);
    }
}

/* The accumulators as stats: limbs, the NaN / +Inf / -Inf counts of the values (the SUM
 * accumulator's special words), and the finite values whose square overflows (the SQ
 * accumulator counts them as +Inf, beside the squares of the infinities). */
static void moments_of(const mctx *m, size_t c, gp_rstats *s)
{
    const int64_t *a = m->as + c * gp_rwords(m->fs), *q = m->aq + c * gp_rwords(m->fq);
    memcpy(s->s, a, (size_t)m->fs.nl * sizeof *a);
    memcpy(s->q, q, (size_t)m->fq.nl * sizeof *q);
    s->nan = a[m->fs.nl];
    s->pinf = a[m->fs.nl + 1];
    s->ninf = a[m->fs.nl + 2];
    s->count = m->rows;
    s->finite = m->rows - s->nan - s->pinf - s->ninf;
    s->qover = q[m->fq.nl + 1] - s->pinf - s->ninf;
}

gp_status gp_job_column_moments(MPI_Comm comm, const char *file, const char *dataset, const gp_mapchain *prefix,
                                size_t mem, size_t panel_rows, double *mean, double *std, gp_error *e)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    gp_rin in;
    gp_rstream rs = {0};
    void *mbuf = NULL;
    double *ebuf = NULL;
    int64_t *acc = NULL;
    gp_status st = gp__rin_open(comm, file, dataset, GP_RIN_RAW, &in, e);
    if (st) { gp__rin_close(&in); return st; }
    size_t R = in.h.rows, C = in.h.cols, ies = in.esize;
    gp_rtype t = gp_mapchain_out(prefix);
    size_t oes = gp_rtype_size(t);
    const int f64 = t == GP_RT_F64, mapped = prefix->nops || prefix->in_swap;   /* as moments_panel */
    const gp_xfmt fs = gp_rfmt(t, GP_RK_SUM), fq = gp_rfmt(t, GP_RK_SQ);
    const size_t ws = gp_rwords(fs), wq = gp_rwords(fq), nw = C * (ws + wq) + 1;   /* + the row count */
    if (!mem) mem = gp__default_mem(comm);
    size_t maxrows = gp__split(R, nranks, 0).count;
    /* the read (a second one when overlapped), the mapped panel when there is a map and for f64
     * the squares' errors, the accumulators; panels of at most 256 MiB over the panels */
    size_t k = gp__rpanel_rows(C, ies + (mapped ? oes : 0) + (f64 ? sizeof *ebuf : 0), C * ies, 1, mem,
                               nw * sizeof *acc, panel_rows, maxrows);
    if (!k) k = 1;
    mbuf = mapped ? malloc(k * C * oes + 64) : NULL;
    ebuf = f64 ? malloc(k * C * sizeof *ebuf + 64) : NULL;
    acc = calloc(nw, sizeof *acc);
    if (gp__rstream_open(comm, &rs, k * C * ies, NULL, GP_RWORK_HEAVY) || (mapped && !mbuf) || (f64 && !ebuf) || !acc)
        gp__fail(e, GP_ENOMEM, "%s: cannot allocate the buffers of the column statistics (%zu rows per panel); lower mem", file, k);
    if ((st = gp__agree(comm, e))) goto done;
    mctx m = {prefix, mbuf, ebuf, acc, acc + C * ws, fs, fq, C, 0, t};
    gp_rstream_ops ops = {"column statistics", NULL, moments_panel, NULL, &m, "cpu"};
    if ((st = gp__rstream_run(comm, &rs, &in, k, &ops, e))) goto done;
    /* merge: exact integer sums of every column's limbs and counts, and of the row counts */
    acc[nw - 1] = m.rows;
    if (gp__rallsum_i64(comm, acc, nw)) gp__fail(e, GP_EMPI, "merging column statistics failed");
    if ((st = gp__agree(comm, e))) goto done;
    m.rows = acc[nw - 1];
    for (size_t c = 0; c < C; c++) {
        gp_rstats cs;
        gp_rstats_init(&cs, t);
        moments_of(&m, c, &cs);
        gp_rstats_moments(&cs, &mean[c], &std[c]);
    }
done:
    gp__rstream_close(&rs);
    free(acc);
    free(ebuf);
    free(mbuf);
    gp__rin_close(&in);
    return st;
}

/* ---- map + write driver (a chain without transpose) ---------------------------------------- */
/* The panel stream (rstream.c) maps panel p, on a worker thread while panel p + 1 is read
 * where that pays; the write of panel p follows on this thread (reads and writes are
 * collective MPI-IO, on one thread). */
typedef struct {
    const gp_map *map;     /* NULL: the rows are written as read */
    void *mbuf;            /* the mapped panel */
    gp_h5_out *out;
    hid_t otype;
    size_t cols, npanels;
    int rank;
} wctx;

static void write_map(gp_rpanel *pn, void *ctx)
{
    wctx *w = ctx;
    if (pn->rows) pn->rc = w->map->apply(w->map->ctx, pn->buf, w->mbuf, pn->rows, w->cols, 0, pn->msg, sizeof pn->msg);
}

static void write_panel(gp_rpanel *pn, void *ctx, gp_error *e)
{
    wctx *w = ctx;
    size_t zero = 0, p = pn->index;
    gp_h5_write_blocks(w->out, w->otype, pn->row0, pn->rows, 1, &zero, &w->cols, w->map ? w->mbuf : pn->buf, e);
    gp__fault("write", p, w->rank, e);
    if (!e->code && gp__signal_pending() && p + 1 < w->npanels)
        gp__fail(e, GP_EINTR, "%s: interrupted by signal %d at panel %zu/%zu", w->out->final_path, gp__signal_pending(),
                 p + 1, w->npanels);
}

/* map: NULL writes the rows as read; cu: the map's GPU context (NULL: the map runs on the CPU). */
static gp_status write_entry(MPI_Comm comm, const gp_job *j, const gp_job_entry *en, const gp_map *map,
                             const gp_cuda_map *cu, size_t mem, int force, size_t *panels, gp_error *e)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    gp_rin in;
    gp_h5_out out;
    gp_rstream rs = {0};
    int have_out = 0;
    void *mbuf = NULL;
    gp_status st = gp__rin_open(comm, en->file, en->dataset[0] ? en->dataset : NULL, GP_RIN_RAW, &in, e);
    if (st) { gp__rin_close(&in); return st; }
    if ((st = gp_h5_check_output(comm, en->file, en->output, force, e))) goto done;
    size_t R = in.h.rows, C = in.h.cols, ies = in.esize;
    hid_t otype = map ? (hid_t)map->out_type : in.h.type;
    size_t oes = H5Tget_size(otype);
    if (!mem) mem = gp__default_mem(comm);
    size_t maxrows = gp__split(R, nranks, 0).count;
    /* the read panel (a second one when overlapped) and the mapped one; at most 256 MiB over
     * the read and the mapped panel */
    size_t k = gp__rpanel_rows(C, ies + (map ? oes : 0), C * ies, 1, mem, 0, j->panel_rows, maxrows);
    if (!k) k = 1;
    *panels = maxrows ? (maxrows + k - 1) / k : 0;
    mbuf = map ? malloc(k * C * oes + 64) : NULL;
    gp_rwork wk = !map ? GP_RWORK_LIGHT : cu ? GP_RWORK_GPU : GP_RWORK_HEAVY;   /* bench_panels.sh */
    if (gp__rstream_open(comm, &rs, k * C * ies, NULL, wk) || (map && !mbuf))
        gp__fail(e, GP_ENOMEM, "%s: cannot allocate panel buffers (%zu rows); lower mem", en->file, k);
    if ((st = gp__agree(comm, e))) goto done;
    st = gp_h5_create_output(comm, en->output, en->output_dataset, otype, R, C, j->chunk_r, j->chunk_c, &out, e);
    have_out = 1;
    if (st) goto done;
    char src[PATH_MAX + 1100];
    snprintf(src, sizeof src, "%s:%s", en->file, in.h.dset_path);
    gp_h5_set_attr(&out, "gpipe_version", GP_VERSION, e);
    gp_h5_set_attr(&out, "gpipe_operation", "job", e);
    gp_h5_set_attr(&out, "gpipe_job", j->name, e);
    gp_h5_set_attr(&out, "gpipe_source", src, e);
    if ((st = gp__agree(comm, e))) goto done;
    wctx w = {map, mbuf, &out, otype, C, *panels, rank};
    gp_rstream_ops ops = {"map", NULL, map ? write_map : NULL, write_panel, &w, cu ? gp_cuda_map_desc(cu) : "cpu"};
    st = gp__rstream_run(comm, &rs, &in, k, &ops, e);
done:
    gp__rstream_close(&rs);   /* the worker is idle: rstream_run waits for it before returning */
    if (have_out) st = gp_h5_finish_output(comm, &out, e);
    free(mbuf);
    gp__rin_close(&in);
    return st;
}

/* ---- one entry ------------------------------------------------------------------------------ */
typedef struct {
    gp_mapctx mc;
    double *vecs[2 * GP_MAP_MAXOPS];
    int nvecs;
} entry_map;

static void entry_map_free(entry_map *m)
{
    for (int i = 0; i < m->nvecs; i++) free(m->vecs[i]);
    if (m->mc.cuda) gp_cuda_map_destroy(m->mc.cuda);
    memset(m, 0, sizeof *m);
}

static int keep_vec(entry_map *m, double *v)
{
    if (v) m->vecs[m->nvecs++] = v;
    return 0;
}

/* Reductions of stage s on (file, dataset). */
static gp_status run_reduction(MPI_Comm comm, const gp_job *j, const gp_jstage *s, const char *file,
                               const char *dataset, const gp_job_entry *en, size_t index, const gp_job_run_opts *o,
                               const char *device, size_t mem, gp_error *e)
{
    if (s->kind == GP_JS_STATS) {
        gp_stats_opts so = {0};
        so.input = file;
        so.dataset = dataset;
        so.json = o->json;
        so.mem = mem;
        so.panel_rows = j->panel_rows;
        so.quiet = 1;
        so.device = device;
        if (!o->json) {
            int rank;
            MPI_Comm_rank(comm, &rank);
            if (rank == 0) { printf("# [stats] of entry %zu\n", index); fflush(stdout); }
        }
        return gp_stats(comm, &so, e);
    }
    gp_reduce_opts ro = {0};
    char out[PATH_MAX] = "", odset[1024] = "";
    ro.input = file;
    ro.dataset = dataset;
    ro.op = s->op;
    ro.axis = s->axis;
    ro.result_input = s->result_input;
    if (s->output) {
        if (gp_job_template_expand(s->output, en->file, en->dataset, j->name, index, out, sizeof out) ||
            (s->output_dataset &&
             gp_job_template_expand(s->output_dataset, en->file, en->dataset, j->name, index, odset, sizeof odset)))
            return gp__fail(e, GP_EINVAL, "%s:%d: [reduce] output name too long", j->path, s->line);
        ro.output = out;
        ro.output_dataset = odset[0] ? odset : NULL;
    }
    ro.force = o->force || j->force;
    ro.json = o->json;
    ro.device = device;
    ro.mem = mem;
    ro.panel_rows = j->panel_rows;
    ro.quiet = 1;
    if (!o->json && !s->output) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0) { printf("# [reduce] op %s of entry %zu\n", gp_rop_name(s->op), index); fflush(stdout); }
    }
    return gp_reduce(comm, &ro, e);
}

static gp_status run_entry(MPI_Comm comm, const gp_job *j, const gp_job_entry *en, size_t index,
                           const gp_job_run_opts *o, gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const char *device = o->device ? o->device : j->device;
    size_t mem = o->mem ? o->mem : j->mem;
    int force = o->force || j->force;
    const char *dset = en->dataset[0] ? en->dataset : NULL;
    if (en->error[0]) return gp__fail(e, GP_EIO, "%s", en->error);
    int wpos = -1, tpos = -1, nmap = 0;
    for (int i = 0; i < j->nstages; i++) {
        if (j->stages[i].kind == GP_JS_WRITE) wpos = i;
        if (j->stages[i].kind == GP_JS_TRANSPOSE) tpos = i;
        nmap += gp_jstage_is_map(j->stages[i].kind);
    }
    gp_status st = GP_OK;
    /* reductions of the input: those before the first element-wise stage and the write */
    for (int i = 1; i < j->nstages && !st; i++) {
        const gp_jstage *s = &j->stages[i];
        if (gp_jstage_is_map(s->kind) || s->kind == GP_JS_TRANSPOSE || s->kind == GP_JS_WRITE) break;
        st = run_reduction(comm, j, s, en->file, dset, en, index, o, device, mem, e);
    }
    if (st || wpos < 0) return st;

    /* the map chain */
    entry_map em;
    memset(&em, 0, sizeof em);
    gp_map map;
    memset(&map, 0, sizeof map);
    if (nmap) {
        gp_h5_in in;
        memset(&in, 0, sizeof in);
        in.file = in.dset = in.type = H5I_INVALID_HID;
        if ((st = gp_h5_open_input(comm, en->file, dset, &in, e))) return st;
        gp_mapchain *ch = &em.mc.chain;
        char td[256];
        gp_h5_type_desc(in.type, td, sizeof td);
        if (file_rtype(in.type, &ch->in, &ch->in_swap))
            gp__fail(e, GP_EFORMAT, "%s: %s has type %s: element-wise stages need integers (1-8 B) or IEEE f32/f64",
                     en->file, in.dset_path, td);
        ch->cols = in.cols;
        size_t C = in.cols;
        char dset_path[1024];
        snprintf(dset_path, sizeof dset_path, "%s", in.dset_path);
        gp_h5_close_input(&in);
        if ((st = gp__agree(comm, e))) return st;
        for (int i = 1; i < j->nstages && !st; i++) {
            const gp_jstage *s = &j->stages[i];
            if (!gp_jstage_is_map(s->kind)) continue;
            gp_mapop *op = &ch->ops[ch->nops];
            memset(op, 0, sizeof *op);
            gp_rtype cur = gp_mapchain_out(ch);
            double *av = NULL, *bv = NULL;
            switch (s->kind) {
            case GP_JS_CAST:
                op->kind = GP_MAPOP_CAST;
                op->to = s->to;
                break;
            case GP_JS_SCALE:
            case GP_JS_AFFINE:
                op->kind = GP_MAPOP_AFFINE;
                op->to = gp_map_affine_type(cur);
                st = coef_load(comm, j, s, s->kind == GP_JS_SCALE ? "by" : "a", &s->a, 1.0, C, &op->a, &av, e);
                if (!st && s->kind == GP_JS_AFFINE) st = coef_load(comm, j, s, "b", &s->b, 0.0, C, &op->b, &bv, e);
                keep_vec(&em, av);
                keep_vec(&em, bv);
                op->av = av;
                op->bv = bv;
                break;
            case GP_JS_STANDARDIZE: {
                av = malloc((C ? C : 1) * sizeof *av);
                bv = malloc((C ? C : 1) * sizeof *bv);
                keep_vec(&em, av);
                keep_vec(&em, bv);
                if (!av || !bv) gp__fail(e, GP_ENOMEM, "out of memory for standardize coefficients");
                if ((st = gp__agree(comm, e))) break;
                /* mean into av, std into bv, then a = 1/std (1 where std is 0), b = -mean*a */
                st = gp_job_column_moments(comm, en->file, dset_path, ch, mem, j->panel_rows, av, bv, e);
                if (st) break;
                for (size_t c = 0; c < C; c++) {
                    double mean = av[c], sd = bv[c];
                    double a = sd == 0 ? 1.0 : 1.0 / sd;
                    av[c] = a;
                    bv[c] = -mean * a;
                }
                op->kind = GP_MAPOP_AFFINE;
                op->to = gp_map_affine_type(cur);
                op->av = av;
                op->bv = bv;
                break;
            }
            default: break;
            }
            if (!st) ch->nops++;
        }
        if (st) { entry_map_free(&em); return st; }
        em.mc.unfused = !j->fuse;
        /* the GPU map: coefficients uploaded once for the entry */
        int want_cuda = !strcmp(j->map_device, "cuda") || (!strcmp(j->map_device, "auto") && gp_cuda_device_count() > 0);
        if (want_cuda) {
            char msg[512] = "";
            int cnt = gp_cuda_device_count();
            int rc = gp_cuda_map_create(&em.mc.cuda, ch, cnt > 0 ? gp__local_rank(comm) % cnt : 0, GP_CMAP_AUTO, msg,
                                        sizeof msg);
            if (rc) gp__fail(e, rc, "map_device cuda: %s", msg);
            if ((st = gp__agree(comm, e))) { entry_map_free(&em); return st; }
        }
        gp_map_bind(&em.mc, &map);
    }

    /* the write */
    size_t panels = 0;
    if (tpos >= 0) {
        gp_transpose_opts to = {0};
        to.input = en->file;
        to.dataset = dset;
        to.output = en->output;
        to.output_dataset = en->output_dataset;
        to.force = force;
        to.device = device;
        to.mem = mem;
        to.panel_rows = j->panel_rows;
        to.threads = j->threads;
        to.strategy = j->strategy;
        to.chunk_rows = j->chunk_r;
        to.chunk_cols = j->chunk_c;
        to.map = nmap ? &map : NULL;
        to.quiet = 1;
        st = gp_transpose(comm, &to, e);
    } else {
        st = write_entry(comm, j, en, nmap ? &map : NULL, em.mc.cuda, mem, force, &panels, e);
    }
    entry_map_free(&em);
    if (st) return st;

    /* reductions of the output */
    for (int i = wpos + 1; i < j->nstages && !st; i++)
        st = run_reduction(comm, j, &j->stages[i], en->output, en->output_dataset, en, index, o, device, mem, e);
    return st;
}

static void status_json(const gp_job_run_opts *o, const gp_job *j, const gp_job_entry *en, size_t i, size_t n,
                        const char *status, const char *msg, double secs, const char *plan, gp_error *e)
{
    if (!o->json) return;
    json_t *obj = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:f}", "op", "job-entry", "job", j->name,
                            "jobfile", j->path, "entry", (json_int_t)(i + 1), "entries", (json_int_t)n,
                            "input", en->file, "dataset", en->dataset, "status", status, "seconds", secs);
    json_object_set_new(obj, "output", en->output[0] ? json_string(en->output) : json_null());
    json_object_set_new(obj, "output_dataset", en->output[0] ? json_string(en->output_dataset) : json_null());
    json_object_set_new(obj, "plan", json_string(plan));
    if (msg) json_object_set_new(obj, "error", json_string(msg));
    gp_error je = {0};
    gp__rjson(o->json, obj, &je);
    if (je.code && !e->code) *e = je;
}

gp_status gp_job_run(MPI_Comm comm, const gp_job *j, const gp_job_entry *entries, size_t n,
                     const gp_job_run_opts *o, size_t *nfailed, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    gp__signals_install();
    gp__watchdog_start(comm, j->path);
    int cont = o->continue_on_error >= 0 ? o->continue_on_error : j->continue_on_error;
    char plan[1024];
    gp_job_plan_string(j, plan, sizeof plan);
    double t0 = gp__now();
    size_t ok = 0, failed = 0, skipped = 0;
    gp_error first = {0};
    gp_error jerr = {0};   /* failures of the report itself (rank 0) */
    first.rank = -1;
    for (size_t i = 0; i < n; i++) {
        const gp_job_entry *en = &entries[i];
        char where[PATH_MAX + 1100];
        snprintf(where, sizeof where, "%s:%s", en->file, en->dataset[0] ? en->dataset : "(2-D dataset)");
        if (failed && !cont) {
            skipped++;
            if (rank == 0) {
                if (!o->quiet) fprintf(stderr, "gpipe: %s [%zu/%zu] skipped %s\n", j->name, i + 1, n, where);
                status_json(o, j, en, i, n, "skipped", NULL, 0, plan, &jerr);
            }
            continue;
        }
        double t = gp__now();
        gp_error e = {0};
        e.rank = -1;
        gp_status st = run_entry(comm, j, en, i + 1, o, &e);
        /* every library call agrees before returning; agree once more for the entry's own checks */
        if (!st) st = gp__agree(comm, &e);
        else if (!e.code) e.code = st;
        double secs = gp__now() - t;
        if (st) {
            failed++;
            if (!first.code) first = e;
            if (rank == 0) {
                if (!o->quiet) fprintf(stderr, "gpipe: %s [%zu/%zu] FAILED %s: %s\n", j->name, i + 1, n, where, e.msg);
                status_json(o, j, en, i, n, "failed", e.msg, secs, plan, &jerr);
            }
            if (st == GP_EINTR) cont = 0;   /* a signal stops the job */
        } else {
            ok++;
            if (rank == 0) {
                if (!o->quiet)
                    fprintf(stderr, "gpipe: %s [%zu/%zu] ok %s%s%s (%.3f s)\n", j->name, i + 1, n, where,
                            en->output[0] ? " -> " : "", en->output, secs);
                status_json(o, j, en, i, n, "ok", NULL, secs, plan, &jerr);
            }
        }
        fflush(stderr);
    }
    if (rank == 0 && o->json) {
        json_t *obj = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:f}", "op", "job", "job", j->name, "jobfile", j->path,
                                "entries", (json_int_t)n, "ok", (json_int_t)ok, "failed", (json_int_t)failed,
                                "skipped", (json_int_t)skipped, "seconds", gp__now() - t0);
        gp__rjson(o->json, obj, &jerr);
    }
    if (rank == 0 && !o->quiet)
        fprintf(stderr, "gpipe: %s: %zu entr%s, %zu ok, %zu failed, %zu skipped, %.3f s\n", j->name, n,
                n == 1 ? "y" : "ies", ok, failed, skipped, gp__now() - t0);
    *nfailed = failed;
    gp_status st = GP_OK;
    if (failed) {
        st = first.code;
        snprintf(err->msg, sizeof err->msg, "%s: %zu of %zu entr%s failed; first: %.900s", j->path, failed, n,
                 n == 1 ? "y" : "ies", first.msg);
        err->code = st;
        err->rank = first.rank;
    } else if (jerr.code) {
        *err = jerr;
        st = jerr.code;
    }
    /* a report that could not be written is an error of every rank */
    int code = st;
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code && !st) { st = code; err->code = code; snprintf(err->msg, sizeof err->msg, "%s: cannot write the report", j->path); }
    gp__watchdog_stop();
    return st;
}
