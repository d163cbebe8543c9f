/* pipeline/gen.c — `gpipe gen`: a random 2-D dataset of any supported type, written in parallel.
 * Each element is a hash of (seed, global index), so the file is the same for any rank count. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "io/h5.h"
#include "pipeline/internal.h"

typedef struct { const char *name; char kind; size_t size; } dtype_def; /* kind: i u f c */
static const dtype_def dtypes[] = {
    {"i8", 'i', 1}, {"i16", 'i', 2}, {"i32", 'i', 4}, {"i64", 'i', 8},
    {"u8", 'u', 1}, {"u16", 'u', 2}, {"u32", 'u', 4}, {"u64", 'u', 8},
    {"f16", 'f', 2}, {"f32", 'f', 4}, {"f64", 'f', 8}, {"c64", 'c', 8}, {"c128", 'c', 16},
};

static hid_t float_type(size_t size, int be)
{
    hid_t t;
    if (size == 2) {   /* IEEE half as h5py stores numpy's float16 */
        t = H5Tcopy(H5T_IEEE_F32LE);
        H5Tset_fields(t, 15, 10, 5, 0, 10);
        H5Tset_size(t, 2);
        H5Tset_ebias(t, 15);
    } else {
        t = H5Tcopy(size == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE);
    }
    if (be) H5Tset_order(t, H5T_ORDER_BE);
    return t;
}

/* Little-endian standard (or native) integer of a size in bytes. */
static hid_t int_type(size_t size, int is_signed, int native)
{
    switch (size) {
    case 1: return native ? (is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8) : (is_signed ? H5T_STD_I8LE : H5T_STD_U8LE);
    case 2: return native ? (is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16) : (is_signed ? H5T_STD_I16LE : H5T_STD_U16LE);
    case 4: return native ? (is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32) : (is_signed ? H5T_STD_I32LE : H5T_STD_U32LE);
    default: return native ? (is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64) : (is_signed ? H5T_STD_I64LE : H5T_STD_U64LE);
    }
}

static hid_t complex_type(hid_t part)
{
    size_t ps = H5Tget_size(part);
    hid_t t = H5Tcreate(H5T_COMPOUND, 2 * ps);
    H5Tinsert(t, "r", 0, part);
    H5Tinsert(t, "i", ps, part);
    return t;
}

/* File type and memory type of a dtype name, or -1 with *why set. */
static gp_status parse_dtype(const char *s, hid_t *ftype, hid_t *mtype, char *kind, size_t *msize)
{
    size_t len = strlen(s);
    int be = 0;
    char base[16];
    if (len > 2 && (strcmp(s + len - 2, "be") == 0 || strcmp(s + len - 2, "le") == 0)) {
        be = s[len - 2] == 'b';
        len -= 2;
    }
    if (len >= sizeof base) return GP_EINVAL;
    memcpy(base, s, len);
    base[len] = 0;
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++) {
        const dtype_def *d = &dtypes[i];
        if (strcmp(base, d->name) != 0) continue;
        *kind = d->kind;
        if (d->kind == 'i' || d->kind == 'u') {
            *ftype = H5Tcopy(int_type(d->size, d->kind == 'i', 0));
            if (be) H5Tset_order(*ftype, H5T_ORDER_BE);
            *mtype = H5Tcopy(int_type(d->size, d->kind == 'i', 1));
            *msize = d->size;
        } else if (d->kind == 'f') {
            *ftype = float_type(d->size, be);
            *mtype = H5Tcopy(H5T_NATIVE_DOUBLE);
            *msize = 8;
        } else {
            hid_t part = float_type(d->size / 2, be), dbl = H5Tcopy(H5T_NATIVE_DOUBLE);
            *ftype = complex_type(part);
            *mtype = complex_type(dbl);
            H5Tclose(part);
            H5Tclose(dbl);
            *msize = 16;
        }
        return GP_OK;
    }
    return GP_EINVAL;
}

/* Value of element idx: 64 random bits; floats uniform in [-1, 1). */
static void gen_fill(void *buf, size_t first, size_t n, char kind, size_t msize, unsigned long long seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t idx = first + i;
        uint64_t h = XXH64(&idx, sizeof idx, seed);
        if (kind == 'i' || kind == 'u') {
            memcpy((char *)buf + i * msize, &h, msize);   /* little-endian hosts: low bytes */
        } else if (kind == 'f') {
            ((double *)buf)[i] = (double)(h >> 11) * 0x1p-52 - 1.0;
        } else {
            uint64_t h2 = XXH64(&idx, sizeof idx, seed ^ 0x9E3779B97F4A7C15ull);
            ((double *)buf)[2 * i] = (double)(h >> 11) * 0x1p-52 - 1.0;
            ((double *)buf)[2 * i + 1] = (double)(h2 >> 11) * 0x1p-52 - 1.0;
        }
    }
}

gp_status gp_gen(MPI_Comm comm, const gp_gen_opts *o, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    hid_t ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
    char kind = 0;
    size_t msize = 0;
    void *buf = NULL;
    gp_h5_out out;
    int have_out = 0;
    gp_status st;
    double t0 = gp__now();

    if (!o->rows || !o->cols) gp__fail(err, GP_EINVAL, "--shape: both dimensions must be at least 1");
    else if (!o->dtype || parse_dtype(o->dtype, &ftype, &mtype, &kind, &msize))
        gp__fail(err, GP_EINVAL, "--dtype %s: unknown type (expected i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128, optional suffix be or le)",
                 o->dtype ? o->dtype : "(none)");
    else if (o->rows > SIZE_MAX / o->cols / 16)
        gp__fail(err, GP_EINVAL, "--shape %zux%zu: too large", o->rows, o->cols);
    if ((st = gp__agree(comm, err))) goto done;
    if ((st = gp_h5_check_output(comm, NULL, o->output, o->force, err))) goto done;

    gp_range mine = gp__split(o->rows, nranks, rank);
    size_t slab = ((size_t)64 << 20) / (msize * o->cols);
    if (slab == 0) slab = 1;
    size_t maxrows = gp__split(o->rows, nranks, 0).count;
    size_t nslabs = (maxrows + slab - 1) / slab;
    buf = malloc((slab < mine.count ? slab : (mine.count ? mine.count : 1)) * o->cols * msize);
    if (!buf) gp__fail(err, GP_ENOMEM, "out of memory (gen buffer)");
    if ((st = gp__agree(comm, err))) goto done;

    st = gp_h5_create_output(comm, o->output, o->dataset ? o->dataset : "/data", ftype, o->rows, o->cols,
                             o->chunk_rows, o->chunk_cols, &out, err);
    have_out = 1;
    if (st) goto done;
    gp_h5_set_attr(&out, "gpipe_version", GP_VERSION, err);
    gp_h5_set_attr(&out, "gpipe_operation", "gen", err);
    if ((st = gp__agree(comm, err))) goto done;

    for (size_t s = 0; s < nslabs; s++) {
        size_t off = s * slab, n = 0;
        if (off < mine.count) n = mine.count - off < slab ? mine.count - off : slab;
        if (n) gen_fill(buf, (mine.start + off) * o->cols, n * o->cols, kind, msize, o->seed);
        size_t c0 = 0, nc = o->cols;
        gp_h5_write_blocks(&out, mtype, mine.start + off, n, 1, &c0, &nc, buf, err);
        if ((st = gp__agree(comm, err))) goto done;
    }
done:
    if (have_out) st = gp_h5_finish_output(comm, &out, err);
    if (!st && rank == 0 && !o->quiet) {
        char hb[32];
        fprintf(stderr, "gpipe: generated %s:%s (%zux%zu %s, %s) on %d rank%s in %.3f s\n", o->output,
                o->dataset ? o->dataset : "/data", o->rows, o->cols, o->dtype,
                gp__human_bytes((double)o->rows * (double)o->cols * (double)H5Tget_size(ftype), hb, sizeof hb),
                nranks, nranks > 1 ? "s" : "", gp__now() - t0);
    }
    free(buf);
    if (ftype >= 0) H5Tclose(ftype);
    if (mtype >= 0) H5Tclose(mtype);
    return st;
}
