/* pipeline/reduce.c — `gpipe reduce`: stream row panels of the input (rstream.c: all ranks in
 * lockstep, the next panel read while the worker reduces this one), fold them into exact
 * accumulators on the CPU or the GPU, merge the accumulators over ranks by integer addition and
 * round once.
 * Also the pieces stats.c and verify.c share: typed input, panel sizing, device choice. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernels/backend.h"
#include "pipeline/internal.h"
#include "pipeline/reduce.h"

/* ---- typed input ---------------------------------------------------------------------------- */
static hid_t native_int(size_t size, int is_signed, gp_rtype *t)
{
    switch (size) {
    case 1: *t = is_signed ? GP_RT_I8 : GP_RT_U8; return is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8;
    case 2: *t = is_signed ? GP_RT_I16 : GP_RT_U16; return is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16;
    case 4: *t = is_signed ? GP_RT_I32 : GP_RT_U32; return is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
    case 8: *t = is_signed ? GP_RT_I64 : GP_RT_U64; return is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    default: return H5I_INVALID_HID;
    }
}

gp_status gp__rin_open(MPI_Comm comm, const char *path, const char *dataset, gp_rin_mode mode, gp_rin *in,
                       gp_error *e)
{
    memset(in, 0, sizeof *in);
    in->mtype = H5I_INVALID_HID;
    gp_status st = gp_h5_open_input(comm, path, dataset, &in->h, e);
    if (st) return st;
    gp_h5_type_desc(in->h.type, in->tdesc, sizeof in->tdesc);
    H5T_class_t cl = H5Tget_class(in->h.type);
    size_t sz = H5Tget_size(in->h.type);
    hid_t m = H5I_INVALID_HID;
    if (mode == GP_RIN_RAW) {
        in->mtype = H5Tcopy(in->h.type);
        in->esize = sz;
        return gp__agree(comm, e);
    }
    if (cl == H5T_INTEGER) {
        m = native_int(sz, H5Tget_sign(in->h.type) != H5T_SGN_NONE, &in->t);
    } else if (cl == H5T_FLOAT && sz <= 8) {
        in->t = sz == 8 ? GP_RT_F64 : GP_RT_F32;   /* f16 (and other small floats) read as f32 */
        m = sz == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    }
    if (m >= 0) {
        in->mtype = H5Tcopy(m);
        in->is_numeric = 1;
        in->esize = gp_rtype_size(in->t);
    } else if (mode == GP_RIN_NUMERIC) {
        gp__fail(e, GP_EFORMAT, "%s: %s has type %s: reductions need an integer or floating-point dataset "
                 "(i8..u64, f16, f32, f64)", path, in->h.dset_path, in->tdesc);
    } else {
        in->mtype = H5Tcopy(in->h.type);
        in->esize = sz;
    }
    return gp__agree(comm, e);
}

void gp__rin_close(gp_rin *in)
{
    if (in->mtype >= 0) H5Tclose(in->mtype);
    in->mtype = H5I_INVALID_HID;
    gp_h5_close_input(&in->h);
}

gp_status gp__rin_read(gp_rin *in, size_t row0, size_t nrows, size_t col0, size_t ncols, void *buf,
                       gp_error *e)
{
    if (ncols == (size_t)-1) return gp_h5_read_rows_as(&in->h, in->mtype, row0, nrows, buf, e);
    return gp_h5_read_block_as(&in->h, in->mtype, row0, nrows, col0, ncols, buf, e);
}

size_t gp__rpanel_rows(size_t cols, size_t esize, size_t per_row_extra, int nbuf, size_t mem,
                       size_t fixed, size_t panel_rows, size_t max_rows)
{
    size_t row = cols * esize * (size_t)nbuf + per_row_extra;
    size_t k;
    if (panel_rows) {
        k = panel_rows;
    } else {
        if (mem <= fixed) return 0;
        k = (mem - fixed) / (row ? row : 1);
        size_t cap = ((size_t)256 << 20) / ((cols * esize) != 0 ? cols * esize : 1);  /* <= 256 MiB panels */
        if (k > cap) k = cap;
        if (k == 0) return 0;
    }
    if (k > ((size_t)1 << 24)) k = (size_t)1 << 24;   /* kernels normalise at least this often */
    if (max_rows && k > max_rows) k = max_rows;
    return k ? k : 1;
}

size_t gp__rpanel_agree(MPI_Comm comm, size_t k)
{
    unsigned long long v = k;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    return (size_t)v;
}

int gp__rallsum_i64(MPI_Comm comm, int64_t *v, size_t n)
{
    const size_t step = (size_t)1 << 26;
    for (size_t i = 0; i < n; i += step) {
        int c = (int)(n - i < step ? n - i : step);
        if (MPI_Allreduce(MPI_IN_PLACE, v + i, c, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS) return -1;
    }
    return 0;
}

static int allred_u64(MPI_Comm comm, uint64_t *v, size_t n, MPI_Op op)
{
    const size_t step = (size_t)1 << 26;
    for (size_t i = 0; i < n; i += step) {
        int c = (int)(n - i < step ? n - i : step);
        if (MPI_Allreduce(MPI_IN_PLACE, v + i, c, MPI_UINT64_T, op, comm) != MPI_SUCCESS) return -1;
    }
    return 0;
}

/* argmin/argmax over ranks, deterministic: the best key everywhere (MPI_MIN / MPI_MAX), then
 * the smallest index among the ranks that hold that key (MPI_MIN) — the (key, index) order of
 * gp_rarg_better, whatever the rank count. */
static int allred_arg(MPI_Comm comm, gp_rkind k, uint64_t *key, uint64_t *idx, size_t n)
{
    uint64_t *best = malloc((n ? n : 1) * 8);
    int ok = best != NULL, bad;
    if (best) memcpy(best, key, n * 8);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);   /* every rank takes the same path */
    if (!ok) { free(best); return -1; }
    bad = allred_u64(comm, best, n, k == GP_RK_ARGMIN ? MPI_MIN : MPI_MAX);
    if (!bad) {
        for (size_t i = 0; i < n; i++) {
            if (key[i] != best[i]) idx[i] = GP_RARG_NONE;
            key[i] = best[i];
        }
        bad = allred_u64(comm, idx, n, MPI_MIN);
    }
    free(best);
    return bad;
}

size_t gp__rmem(MPI_Comm comm, size_t mem)
{
    size_t m = gp__default_mem(comm);   /* collective: every rank calls it */
    return mem ? mem : m;
}

gp_status gp__rdevice(MPI_Comm comm, const char *device, int *use_cuda, gp_cuda_reduce **cu, gp_error *e)
{
    const char *d = device ? device : "auto";
    char msg[512] = "";
    *use_cuda = 0;
    *cu = NULL;
    if (!strcmp(d, "cpu")) return GP_OK;
    if (strcmp(d, "cuda") && strcmp(d, "auto")) return gp__fail(e, GP_EINVAL, "--device %s: expected auto, cpu or cuda", d);
    if (!strcmp(d, "auto") && gp_cuda_device_count() <= 0) return GP_OK;
    int rc = gp_cuda_reduce_create(cu, gp__local_rank(comm), msg, sizeof msg);
    if (rc) return gp__fail(e, rc, "--device %s: %s", d, msg[0] ? msg : gp_strerror(rc));
    *use_cuda = 1;
    return GP_OK;
}

void gp__rjson(const char *path, void *obj, gp_error *e)
{
    json_t *j = obj;
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "a");
    if (!f) {
        gp__fail(e, GP_EIO, "%s: cannot open the --json file", path);
    } else {
        char *s = json_dumps(j, JSON_COMPACT);
        fprintf(f, "%s\n", s ? s : "{}");
        free(s);
        if (f != stdout) fclose(f); else fflush(f);
    }
    json_decref(j);
}

/* ---- 1-D output: io/h5.c's gp_h5_create_output_1d, renamed by gp_h5_finish_output ---- */
static gp_status write_1d(gp_h5_out *out, hid_t mtype, size_t start, size_t n, const void *buf, gp_error *e)
{
    hid_t fs = H5Dget_space(out->dset), ms;
    hsize_t one = 1, st = start, cnt = n;
    if (n == 0) {
        H5Sselect_none(fs);
        ms = H5Screate_simple(1, &one, NULL);
        H5Sselect_none(ms);
    } else {
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cnt, NULL);
        ms = H5Screate_simple(1, &cnt, NULL);
    }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t rc = H5Dwrite(out->dset, mtype, ms, fs, dxpl, buf);
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    if (rc < 0) {
        char why[256];
        gp_h5_last_error(why, sizeof why);
        return gp__fail(e, GP_EIO, "%s: writing %s failed%s%s", out->final_path, out->dset_path, why[0] ? ": " : "", why);
    }
    return GP_OK;
}

/* ---- the reduce driver ------------------------------------------------------------------------- */
typedef struct {
    gp_rtype t;
    gp_rop op;
    gp_rkind k;
    gp_raxis axis;
    gp_xfmt f;
    size_t w;          /* words per sum accumulator */
    char otype;        /* output element: 'f' f64, 'i' i64, 'u' u64 */
    int rowval;        /* rows axis of a float sum on CUDA: the backend rounds each row (rowval[]) */
    size_t nsize;      /* --result-type input: bytes of the input type the results are narrowed to
                        * (an f64 to f32, an i64/u64 to the input's integer); 0: wide results */
    int nsigned;       /* narrowing to a signed integer type */
    char nwhy[96];     /* why of a result that does not fit the input type */
} rctx;

/* --result-type input: whether a wide result v fits the input type (floats always do: finalize
 * has rounded an f64 to the nearest f32, which may be +-Inf). */
static int narrow_fits(const rctx *x, uint64_t v)
{
    if (!x->nsize || x->otype == 'f' || (x->nsize == 8 && (x->otype == 'i') == x->nsigned)) return 1;
    const unsigned bits = 8u * (unsigned)x->nsize;
    if (x->otype == 'i') {   /* signed result: into [-2^(bits-1), 2^(bits-1)) or [0, 2^bits) */
        const int64_t s = (int64_t)v;
        if (!x->nsigned) return s >= 0 && (bits == 64 || (uint64_t)s < (1ull << bits));
        return s >= -(int64_t)(1ull << (bits - 1)) && s < (int64_t)(1ull << (bits - 1));
    }
    /* unsigned result (u64, or absmax of signed integers) */
    return x->nsigned ? v < (1ull << (bits - 1)) : (bits == 64 || v < (1ull << bits));
}

/* Packs n wide results (f64 holding an f32 / i64 / u64 in 8-byte slots) into dst as the narrow
 * type: exact, finalize has narrowed them. */
static void narrow_pack(const rctx *x, const uint64_t *v, size_t n, void *dst)
{
    for (size_t i = 0; i < n; i++) {
        if (x->otype == 'f') {
            float f = (float)gp_bitsd(v[i]);
            memcpy((char *)dst + 4 * i, &f, 4);
            continue;
        }
        switch (x->nsize) {   /* two's complement: the low bytes of a value that fits */
        case 1: ((uint8_t *)dst)[i] = (uint8_t)v[i]; break;
        case 2: ((uint16_t *)dst)[i] = (uint16_t)v[i]; break;
        case 4: ((uint32_t *)dst)[i] = (uint32_t)v[i]; break;
        default: ((uint64_t *)dst)[i] = v[i]; break;
        }
    }
}

/* The result of one target into *v (8 bytes) from its accumulator acc (or, when val is not NULL,
 * the exact sum already rounded by the backend), its extremum key and NaN count, or its argmin/
 * argmax index idx, over n elements. Returns 0, or -1 with why set (integer overflow, empty
 * extremum of integers, empty argmin/argmax). */
static int finalize(const rctx *x, const int64_t *acc, const double *val, uint64_t key, int64_t nan, uint64_t idx,
                    uint64_t n, uint64_t *v, const char **why)
{
    if (gp_rkind_is_arg(x->k)) {
        if (idx == GP_RARG_NONE) { *why = "is undefined (no elements)"; return -1; }
        *v = idx;
        return 0;
    }
    if (x->k == GP_RK_SUM || x->k == GP_RK_SQ) {
        if (x->otype != 'f') {
            if (gp_xint(acc, x->f, x->otype == 'u', v)) {
                *why = x->otype == 'u' ? "overflows uint64" : "overflows int64";
                return -1;
            }
            if (!narrow_fits(x, *v)) { *why = x->nwhy; return -1; }
            return 0;
        }
        double d = val ? *val : gp_xvalue(acc, x->f);
        if (x->op == GP_OP_MEAN) d = n ? d / (double)n : gp_bitsd(GP_CANON_NAN);
        if (x->op == GP_OP_NORM2) d = sqrt(d);
        if (x->nsize) d = (double)(float)d;   /* --result-type input of f32 data: the nearest f32 */
        if (d != d) d = gp_bitsd(GP_CANON_NAN);
        *v = gp_dbits(d);
        return 0;
    }
    if (nan) { *v = GP_CANON_NAN; return 0; }
    if (n == 0 || key == gp_rext_identity(x->k)) {
        if (n == 0 && x->otype == 'f') { *v = GP_CANON_NAN; return 0; }
        if (n == 0) { *why = "is undefined (no elements)"; return -1; }
    }
    if (gp_rtype_is_float(x->t)) *v = gp_dbits(gp_unkey_d(key));
    else if (gp_rtype_is_unsigned(x->t) || x->k == GP_RK_ABSMAX) *v = key;
    else *v = (uint64_t)gp_unkey_i(key);
    if (!narrow_fits(x, *v)) { *why = x->nwhy; return -1; }   /* absmax of INT_MIN */
    return 0;
}

/* What the panels of a reduce work on: the accumulators of its targets (rows axis: the panel's
 * rows, finalized into res after each panel). */
typedef struct {
    const rctx *x;
    gp_cuda_reduce *cu;   /* NULL: the CPU */
    size_t cols, rb0;     /* rb0: this rank's first row */
    int64_t *acc;
    double *rowval;
    uint64_t *key;
    int64_t *nan;
    uint64_t *idx;
    uint64_t *res;        /* rows axis: this rank's results */
    const char *input;
} rctx_panels;

static void reduce_panel(gp_rpanel *pn, void *ctx)
{
    rctx_panels *j = ctx;
    const rctx *x = j->x;
    const size_t rows = pn->rows, cols = j->cols;
    if (x->axis == GP_AXIS_ROWS) {   /* fresh accumulators for this panel's rows */
        if (j->acc) memset(j->acc, 0, rows * x->w * 8);
        if (j->key) { for (size_t i = 0; i < rows; i++) j->key[i] = gp_rext_identity(x->k); memset(j->nan, 0, rows * 8); }
        if (j->idx) for (size_t i = 0; i < rows; i++) j->idx[i] = GP_RARG_NONE;
    }
    if (!rows || !cols) return;
    int sum = x->k == GP_RK_SUM || x->k == GP_RK_SQ, arg = gp_rkind_is_arg(x->k);
    if (j->cu) {
        if (sum)
            pn->rc = gp_cuda_rsum(j->cu, pn->buf, rows, cols, x->t, x->k, x->axis, x->f, j->acc,
                                  x->rowval ? j->rowval : NULL, pn->msg, sizeof pn->msg);
        else if (arg)
            pn->rc = gp_cuda_rarg(j->cu, pn->buf, rows, cols, pn->row0, x->t, x->k, x->axis, j->key, j->idx, pn->msg,
                                  sizeof pn->msg);
        else
            pn->rc = gp_cuda_rext(j->cu, pn->buf, rows, cols, x->t, x->k, x->axis, j->key, j->nan, pn->msg,
                                  sizeof pn->msg);
    } else if (sum) {
        gp_cpu_rsum(pn->buf, rows, cols, x->t, x->k, x->axis, x->f, j->acc);
    } else if (arg) {
        gp_cpu_rarg(pn->buf, rows, cols, pn->row0, x->t, x->k, x->axis, j->key, j->idx);
    } else {
        gp_cpu_rext(pn->buf, rows, cols, x->t, x->k, x->axis, j->key, j->nan);
    }
}

/* Rows axis: the panel's results, in order (the first that cannot be given fails the command). */
static void reduce_panel_done(gp_rpanel *pn, void *ctx, gp_error *err)
{
    rctx_panels *j = ctx;
    const rctx *x = j->x;
    if (x->axis != GP_AXIS_ROWS) return;
    size_t off = pn->row0 - j->rb0;
    for (size_t i = 0; i < pn->rows; i++) {
        const char *why = NULL;
        if (finalize(x, j->acc ? j->acc + i * x->w : NULL, x->rowval ? j->rowval + i : NULL, j->key ? j->key[i] : 0,
                     j->nan ? j->nan[i] : 0, j->idx ? j->idx[i] : 0, j->cols, &j->res[off + i], &why)) {
            gp__fail(err, GP_EINVAL, "%s: %s of row %zu %s", j->input, gp_rop_name(x->op), pn->row0 + i, why);
            return;
        }
    }
}

static const char *axis_name(gp_raxis a) { return a == GP_AXIS_ALL ? "all" : a == GP_AXIS_ROWS ? "rows" : "cols"; }

/* A result's bit pattern in its output type, as hex (f32: 8 digits; integers: 2 per byte). */
static void result_bits(const rctx *x, uint64_t v, char *hx, size_t n)
{
    if (x->nsize && x->otype == 'f') {
        float f = (float)gp_bitsd(v);
        uint32_t b;
        memcpy(&b, &f, 4);
        snprintf(hx, n, "%08x", b);
    } else if (x->nsize && x->nsize < 8) {
        snprintf(hx, n, "%0*llx", (int)(2 * x->nsize), (unsigned long long)(v & ((1ull << (8 * x->nsize)) - 1)));
    } else {
        snprintf(hx, n, "%016llx", (unsigned long long)v);
    }
}

static const char *result_dtype(const rctx *x, const gp_rin *in)
{
    if (x->nsize) return gp_rtype_name(in->t);
    return x->otype == 'f' ? "f64" : x->otype == 'i' ? "i64" : "u64";
}

static json_t *json_value(char otype, uint64_t v)
{
    if (otype == 'i') return json_integer((json_int_t)(int64_t)v);
    if (otype == 'u') {
        if (v <= (uint64_t)INT64_MAX) return json_integer((json_int_t)v);
        char b[32];
        snprintf(b, sizeof b, "%llu", (unsigned long long)v);
        return json_string(b);     /* beyond JSON's safe integers: a decimal string */
    }
    double d = gp_bitsd(v);
    if (d != d) return json_string("nan");
    if (isinf(d)) return json_string(d > 0 ? "inf" : "-inf");
    return json_real(d);
}

/* f32 results (--result-type input of f32 data) are printed with the 9 digits that identify a
 * float. */
static void print_value(FILE *f, const rctx *x, uint64_t v)
{
    if (x->otype == 'i') fprintf(f, "%lld", (long long)(int64_t)v);
    else if (x->otype == 'u') fprintf(f, "%llu", (unsigned long long)v);
    else {
        double d = gp_bitsd(v);
        if (d != d) fprintf(f, "nan");
        else fprintf(f, x->nsize ? "%.9g" : "%.17g", d);
    }
}

gp_status gp_reduce(MPI_Comm comm, const gp_reduce_opts *o, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    double t0 = gp__now(), tsetup = 0;
    gp__watchdog_start(comm, o->input);

    gp_rin in;
    memset(&in, 0, sizeof in);
    in.mtype = in.h.file = in.h.dset = in.h.type = H5I_INVALID_HID;
    gp_cuda_reduce *cu = NULL;
    int use_cuda = 0, have_out = 0;
    gp_rstream rs = {0};
    int64_t *acc = NULL, *nan = NULL;
    double *rowval = NULL;
    uint64_t *key = NULL, *idx = NULL, *res = NULL, *all = NULL;
    gp_h5_out out;
    memset(&out, 0, sizeof out);
    out.file = out.dset = H5I_INVALID_HID;
    rctx x = {0};
    size_t k = 0, npanels = 0;

    gp_status st = gp__rin_open(comm, o->input, o->dataset, GP_RIN_NUMERIC, &in, err);
    if (st) goto done;
    x.t = in.t;
    x.op = o->op;
    x.k = gp_rop_kind(o->op);
    x.axis = o->axis;
    x.f = gp_rfmt(in.t, x.k);
    x.w = gp_rwords(x.f);
    int is_sum = x.k == GP_RK_SUM || x.k == GP_RK_SQ, is_arg = gp_rkind_is_arg(x.k);
    if (is_arg) x.otype = 'i';
    else if (gp_rtype_is_float(in.t) || o->op == GP_OP_MEAN || o->op == GP_OP_SUMSQ || o->op == GP_OP_NORM2) x.otype = 'f';
    else if (gp_rtype_is_unsigned(in.t) || o->op == GP_OP_ABSMAX) x.otype = 'u';
    else x.otype = 'i';
    if (o->result_input && !is_arg && in.t != GP_RT_F64) {   /* f64 and indices are already their type */
        const int isf = gp_rtype_is_float(in.t);
        if (isf && H5Tget_size(in.h.type) != 4) {
            gp__fail(err, GP_EINVAL, "%s: %s is %s: --result-type input gives f32 or f64 results only; use "
                     "--result-type wide (f64)", o->input, in.h.dset_path, in.tdesc);
        } else if (!isf && (o->op == GP_OP_MEAN || o->op == GP_OP_NORM2)) {
            gp__fail(err, GP_EINVAL, "%s: the %s of %s values is not an integer: --result-type input needs sum, sumsq, "
                     "min, max or absmax here (or --result-type wide: f64)", o->input, gp_rop_name(o->op), in.tdesc);
        } else {
            x.nsize = gp_rtype_size(in.t);
            x.nsigned = !isf && !gp_rtype_is_unsigned(in.t);
            if (!isf && o->op == GP_OP_SUMSQ) x.otype = 'u';   /* the exact integer, not its f64 */
            snprintf(x.nwhy, sizeof x.nwhy, "overflows %s, the input type (--result-type wide gives 64 bits)",
                     gp_rtype_name(in.t));
        }
    }
    if ((st = gp__agree(comm, err))) goto done;

    size_t R = in.h.rows, C = in.h.cols, es = in.esize;
    if (o->output && (st = gp_h5_check_output(comm, o->input, o->output, o->force, err))) goto done;
    size_t mem = gp__rmem(comm, o->mem);
    gp__rdevice(comm, o->device, &use_cuda, &cu, err);
    if ((st = gp__agree(comm, err))) goto done;
    x.rowval = use_cuda && is_sum && x.axis == GP_AXIS_ROWS && gp_rtype_is_float(in.t);

    gp_range rb = gp__split(R, nranks, rank);
    size_t maxrows = gp__split(R, nranks, 0).count;
    size_t ntarget = x.axis == GP_AXIS_ALL ? 1 : x.axis == GP_AXIS_COLS ? C : 0;
    size_t tbytes = is_sum ? x.w * 8 : 16;                    /* per target */
    /* CPU per-column partials (kernels/cpu/reduce.c): integers 40 B; floats a 16-byte expansion,
     * plus a 24-byte run for f32 sums */
    size_t scratch = is_sum ? 40 : 0;
    size_t fixed = ntarget * (tbytes + (x.axis == GP_AXIS_COLS ? scratch : 0)) + rb.count * 8;
    size_t per_row = x.axis == GP_AXIS_ROWS ? tbytes + (x.rowval ? 8 : 0) : 0;
    k = gp__rpanel_agree(comm, gp__rpanel_rows(C, es, per_row, 2, mem, fixed, o->panel_rows, maxrows));
    if (!k) {
        char a[32], b[32];
        gp__fail(err, GP_ENOMEM, "%s: --mem %s is too small: the %s accumulators alone need %s", o->input,
                 gp__human_bytes((double)mem, a, sizeof a), axis_name(x.axis), gp__human_bytes((double)fixed, b, sizeof b));
    }
    if ((st = gp__agree(comm, err))) goto done;
    size_t nacc = x.axis == GP_AXIS_ROWS ? k : ntarget;
    int nomem = gp__rstream_open(comm, &rs, k * C * es, use_cuda ? cu : NULL, GP_RWORK_LIGHT);
    if (is_sum) {
        acc = calloc(nacc ? nacc * x.w : 1, 8);
        if (x.rowval) rowval = calloc(k, 8);
    } else {
        key = malloc((nacc ? nacc : 1) * 8);
        nan = calloc(nacc ? nacc : 1, 8);
        if (is_arg) idx = malloc((nacc ? nacc : 1) * 8);
    }
    res = calloc(rb.count + C + 1, 8);
    if (nomem || (is_sum ? !acc || (x.rowval && !rowval) : (!key || !nan || (is_arg && !idx))) || !res)
        gp__fail(err, GP_ENOMEM, "%s: cannot allocate the panel buffers (%zu rows per panel); lower --mem or --panel-rows",
                 o->input, k);
    if ((st = gp__agree(comm, err))) goto done;
    if (key)
        for (size_t i = 0; i < nacc; i++) key[i] = gp_rext_identity(x.k);
    if (idx)
        for (size_t i = 0; i < nacc; i++) idx[i] = GP_RARG_NONE;

    /* panels, in lockstep: read p + 1 while the worker reduces p */
    tsetup = gp__now() - t0;
    rctx_panels rp = {&x, use_cuda ? cu : NULL, C, rb.start, acc, rowval, key, nan, idx, res, o->input};
    gp_rstream_ops ops = {"reduce", NULL, reduce_panel, reduce_panel_done, &rp, NULL};
    if ((st = gp__rstream_run(comm, &rs, &in, k, &ops, err))) goto done;
    npanels = rs.npanels;

    /* merge over ranks: integer sums of normalised limbs (exact), min/max of keys */
    size_t nres = 0, res0 = 0;   /* this rank's block of results */
    if (x.axis != GP_AXIS_ROWS) {
        int bad = 0;
        if (is_sum) bad = gp__rallsum_i64(comm, acc, ntarget * x.w);
        else if (is_arg) bad = allred_arg(comm, x.k, key, idx, ntarget);
        else bad = allred_u64(comm, key, ntarget, x.k == GP_RK_MIN ? MPI_MIN : MPI_MAX) ||
                   gp__rallsum_i64(comm, nan, ntarget);
        if (bad) gp__fail(err, GP_EMPI, "%s: merging the partial results over ranks failed", o->input);
        if ((st = gp__agree(comm, err))) goto done;
        gp_range cb = x.axis == GP_AXIS_ALL ? (gp_range){0, rank == 0 ? 1 : 0} : gp__split(C, nranks, rank);
        if (x.axis == GP_AXIS_ALL && rank != 0) cb.start = 1;
        res0 = cb.start;
        nres = cb.count;
        uint64_t n = x.axis == GP_AXIS_ALL ? (uint64_t)R * C : R;
        for (size_t i = 0; i < nres; i++) {
            size_t tix = x.axis == GP_AXIS_ALL ? 0 : res0 + i;
            const char *why = NULL;
            if (finalize(&x, acc ? acc + tix * x.w : NULL, NULL, key ? key[tix] : 0, nan ? nan[tix] : 0,
                         idx ? idx[tix] : 0, n, &res[i], &why)) {
                if (x.axis == GP_AXIS_ALL)
                    gp__fail(err, GP_EINVAL, "%s: %s of all elements %s", o->input, gp_rop_name(x.op), why);
                else
                    gp__fail(err, GP_EINVAL, "%s: %s of column %zu %s", o->input, gp_rop_name(x.op), tix, why);
                break;
            }
        }
    } else {
        res0 = rb.start;
        nres = rb.count;
    }
    if ((st = gp__agree(comm, err))) goto done;
    size_t ntotal = x.axis == GP_AXIS_ALL ? 1 : x.axis == GP_AXIS_ROWS ? R : C;

    hid_t mt = x.otype == 'f' ? H5T_NATIVE_DOUBLE : x.otype == 'i' ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    hid_t ft = x.otype == 'f' ? H5T_IEEE_F64LE : x.otype == 'i' ? H5T_STD_I64LE : H5T_STD_U64LE;
    void *wbuf = res;   /* what is written: the wide results, or packed into the input type */
    if (x.nsize) {
        switch (in.t) {
        case GP_RT_I8: mt = H5T_NATIVE_INT8; ft = H5T_STD_I8LE; break;
        case GP_RT_I16: mt = H5T_NATIVE_INT16; ft = H5T_STD_I16LE; break;
        case GP_RT_I32: mt = H5T_NATIVE_INT32; ft = H5T_STD_I32LE; break;
        case GP_RT_I64: mt = H5T_NATIVE_INT64; ft = H5T_STD_I64LE; break;
        case GP_RT_U8: mt = H5T_NATIVE_UINT8; ft = H5T_STD_U8LE; break;
        case GP_RT_U16: mt = H5T_NATIVE_UINT16; ft = H5T_STD_U16LE; break;
        case GP_RT_U32: mt = H5T_NATIVE_UINT32; ft = H5T_STD_U32LE; break;
        case GP_RT_U64: mt = H5T_NATIVE_UINT64; ft = H5T_STD_U64LE; break;
        default: mt = H5T_NATIVE_FLOAT; ft = H5T_IEEE_F32LE; break;
        }
    }
    if (o->output) {
        char dpath[1100];
        snprintf(dpath, sizeof dpath, "%s", o->output_dataset ? o->output_dataset
                 : x.axis == GP_AXIS_ROWS ? "/rows" : x.axis == GP_AXIS_COLS ? "/cols" : "/all");
        st = gp_h5_create_output_1d(comm, o->output, dpath, ft, ntotal, &out, err);
        have_out = 1;
        if (st) goto done;
        char src[PATH_MAX + 1100], what[64];
        snprintf(src, sizeof src, "%s:%s", o->input, in.h.dset_path);
        snprintf(what, sizeof what, "reduce %s %s", gp_rop_name(x.op), axis_name(x.axis));
        gp_h5_set_attr(&out, "gpipe_version", GP_VERSION, err);
        gp_h5_set_attr(&out, "gpipe_operation", what, err);
        gp_h5_set_attr(&out, "gpipe_source", src, err);
        if ((st = gp__agree(comm, err))) goto done;
        if (x.nsize && nres) {
            wbuf = malloc(nres * x.nsize);
            if (wbuf) narrow_pack(&x, res, nres, wbuf);
            else gp__fail(err, GP_ENOMEM, "%s: cannot allocate %zu results", o->input, nres);
        }
        if (!(st = gp__agree(comm, err)))   /* every rank or none enters the collective write */
            write_1d(&out, mt, res0, nres, wbuf ? wbuf : res, err);
        if (wbuf != res) free(wbuf);
        if (st) goto done;
        if ((st = gp__agree(comm, err))) goto done;
    }
    /* values to rank 0 for stdout / JSON */
    int want_values = !o->output || o->json;
    if (want_values && x.axis != GP_AXIS_ALL) {
        int *cnts = calloc((size_t)nranks, sizeof *cnts), *displ = calloc((size_t)nranks, sizeof *displ);
        int mine = (int)nres;
        if (rank == 0) all = malloc((ntotal ? ntotal : 1) * 8);
        if (ntotal > (size_t)INT32_MAX || !cnts || !displ || (rank == 0 && !all))
            gp__fail(err, GP_ENOMEM, "%s: %zu results are too many to print; write them with -o", o->input, ntotal);
        if (!(st = gp__agree(comm, err))) {
            MPI_Gather(&mine, 1, MPI_INT, cnts, 1, MPI_INT, 0, comm);
            for (int r = 1; r < nranks; r++) displ[r] = displ[r - 1] + cnts[r - 1];
            MPI_Gatherv(res, mine, MPI_UINT64_T, all, cnts, displ, MPI_UINT64_T, 0, comm);
        }
        free(cnts);
        free(displ);
        if (st) goto done;
    } else if (want_values) {
        all = malloc(8);
        if (all) all[0] = res[0];
    }

done:;
    gp__rstream_close(&rs);
    if (have_out) st = gp_h5_finish_output(comm, &out, err);
    double elapsed = gp__now() - t0;
    if (!st && rank == 0) {
        size_t ntotal = x.axis == GP_AXIS_ALL ? 1 : x.axis == GP_AXIS_ROWS ? in.h.rows : in.h.cols;
        double bytes = (double)in.h.rows * (double)in.h.cols * (double)in.esize;
        const char *be = use_cuda ? gp_cuda_reduce_desc(cu) : "cpu";
        if (!o->output && !o->json && all) {
            if (x.axis == GP_AXIS_ALL && gp_rkind_is_arg(x.k))   /* the flat row-major index, then where it is */
                printf("%llu (row %llu, col %llu)\n", (unsigned long long)all[0],
                       (unsigned long long)(all[0] / in.h.cols), (unsigned long long)(all[0] % in.h.cols));
            else if (x.axis == GP_AXIS_ALL) { print_value(stdout, &x, all[0]); putchar('\n'); }
            else for (size_t i = 0; i < ntotal; i++) { printf("%zu ", i); print_value(stdout, &x, all[i]); putchar('\n'); }
            fflush(stdout);
        }
        if (o->json) {
            json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:[I,I], s:s, s:s, s:i, s:s, s:I, s:I, s:f, s:f}",
                                  "op", gp_rop_name(x.op), "axis", axis_name(x.axis), "input", o->input,
                                  "dataset", in.h.dset_path, "shape", (json_int_t)in.h.rows, (json_int_t)in.h.cols,
                                  "dtype", in.tdesc, "result_dtype", result_dtype(&x, &in),
                                  "ranks", nranks, "backend", be, "panel_rows", (json_int_t)k,
                                  "panels", (json_int_t)npanels, "seconds", elapsed, "gbps", bytes / elapsed / 1e9);
            if (o->output) {
                json_object_set_new(j, "output", json_string(o->output));
            }
            if (all && x.axis == GP_AXIS_ALL) {
                char hx[32];
                result_bits(&x, all[0], hx, sizeof hx);
                json_object_set_new(j, "value", json_value(x.otype, all[0]));
                json_object_set_new(j, "bits", json_string(hx));
                if (gp_rkind_is_arg(x.k)) {
                    json_object_set_new(j, "row", json_integer((json_int_t)(all[0] / in.h.cols)));
                    json_object_set_new(j, "col", json_integer((json_int_t)(all[0] % in.h.cols)));
                }
            } else if (all) {
                json_t *arr = json_array(), *bits = json_array();
                for (size_t i = 0; i < ntotal; i++) {
                    char hx[32];
                    result_bits(&x, all[i], hx, sizeof hx);
                    json_array_append_new(arr, json_value(x.otype, all[i]));
                    json_array_append_new(bits, json_string(hx));
                }
                json_object_set_new(j, "values", arr);
                json_object_set_new(j, "bits", bits);
            }
            gp__rjson(o->json, j, err);
        }
        if (!o->quiet) {
            char hb[32], rate[32];
            gp__human_rate(bytes / elapsed, rate, sizeof rate);
            fprintf(stderr, "gpipe: %s over %s of %s:%s (%zux%zu %s, %s) on %d rank%s (%s), %zu panel%s of %zu rows, "
                    "%.3f s, %s (rank 0: setup %.3f s, read %.3f s, %skernel %.3f s, %s)\n", gp_rop_name(x.op), axis_name(x.axis),
                    o->input, in.h.dset_path, in.h.rows, in.h.cols, in.tdesc, gp__human_bytes(bytes, hb, sizeof hb),
                    nranks, nranks > 1 ? "s" : "", be, npanels, npanels == 1 ? "" : "s", k, elapsed, rate, tsetup,
                    rs.tread, gp__rstream_desc(&rs), rs.twork, gp__rstream_mode(&rs));
        }
    }
    free(acc);
    free(key);
    free(nan);
    free(idx);
    free(rowval);
    free(res);
    free(all);
    if (cu) gp_cuda_reduce_destroy(cu);
    gp__rin_close(&in);
    gp__watchdog_stop();
    return st;
}
