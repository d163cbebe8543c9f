/* io/h5.c — parallel HDF5 for the pipeline (see h5.h): every call here that HDF5 defines as
 * collective is made by all ranks, with zero-size selections on ranks that have nothing to move. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include "io/h5.h"

/* ---- errors ---------------------------------------------------------------- */
static herr_t walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    char *buf = data;
    if (!buf[0] && err->desc && err->desc[0]) snprintf(buf, 256, "%s", err->desc);
    return 0;
}

void gp_h5_last_error(char *buf, size_t n)
{
    char tmp[256] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, tmp);
    H5Eclear2(H5E_DEFAULT);
    snprintf(buf, n, "%s", tmp);
}

/* Formats ": <hdf5 reason>" or "" into buf. */
static const char *h5why(char *buf, size_t n)
{
    char r[256];
    gp_h5_last_error(r, sizeof r);
    if (r[0]) snprintf(buf, n, " (HDF5: %s)", r);
    else buf[0] = 0;
    return buf;
}

/* ---- types ------------------------------------------------------------------- */
void gp_h5_type_desc(hid_t t, char *buf, size_t n)
{
    size_t sz = H5Tget_size(t);
    const char *ord = H5Tget_order(t) == H5T_ORDER_BE ? " BE" : " LE";
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
        snprintf(buf, n, "%c%zu%s", H5Tget_sign(t) == H5T_SGN_NONE ? 'u' : 'i', sz * 8, sz > 1 ? ord : "");
        break;
    case H5T_FLOAT: snprintf(buf, n, "f%zu%s", sz * 8, ord); break;
    case H5T_COMPOUND: {
        int nm = H5Tget_nmembers(t);
        size_t used = (size_t)snprintf(buf, n, "compound{");
        for (int i = 0; i < nm && used < n; i++) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            hid_t mt = H5Tget_member_type(t, (unsigned)i);
            char md[128];
            gp_h5_type_desc(mt, md, sizeof md);
            used += (size_t)snprintf(buf + used, n - used, "%s%s:%s", i ? "," : "", name ? name : "?", md);
            H5Tclose(mt);
            H5free_memory(name);
        }
        if (used < n) snprintf(buf + used, n - used, "} (%zu B)", sz);
        break;
    }
    case H5T_OPAQUE: {
        char *tag = H5Tget_tag(t);
        snprintf(buf, n, "opaque%s%s%s (%zu B)", tag && tag[0] ? " \"" : "", tag && tag[0] ? tag : "",
                 tag && tag[0] ? "\"" : "", sz);
        H5free_memory(tag);
        break;
    }
    case H5T_ENUM: snprintf(buf, n, "enum (%zu B)", sz); break;
    case H5T_ARRAY: snprintf(buf, n, "array (%zu B)", sz); break;
    case H5T_BITFIELD: snprintf(buf, n, "bitfield (%zu B)", sz); break;
    case H5T_TIME: snprintf(buf, n, "time (%zu B)", sz); break;
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0) snprintf(buf, n, "variable-length string");
        else snprintf(buf, n, "string (%zu B)", sz);
        break;
    case H5T_VLEN: snprintf(buf, n, "variable-length sequence"); break;
    case H5T_REFERENCE: snprintf(buf, n, "reference"); break;
    default: snprintf(buf, n, "unknown type"); break;
    }
}

/* Why a type nested in a compound/array cannot be moved as bytes, or NULL. */
static const char *nested_unsupported(hid_t t)
{
    switch (H5Tget_class(t)) {
    case H5T_VLEN: return "variable-length members";
    case H5T_REFERENCE: return "reference members";
    case H5T_STRING: return H5Tis_variable_str(t) > 0 ? "variable-length string members" : NULL;
    case H5T_COMPOUND: {
        int nm = H5Tget_nmembers(t);
        for (int i = 0; i < nm; i++) {
            hid_t mt = H5Tget_member_type(t, (unsigned)i);
            const char *why = nested_unsupported(mt);
            H5Tclose(mt);
            if (why) return why;
        }
        return NULL;
    }
    case H5T_ARRAY: {
        hid_t bt = H5Tget_super(t);
        const char *why = nested_unsupported(bt);
        H5Tclose(bt);
        return why;
    }
    default: return NULL;
    }
}

const char *gp_h5_type_unsupported(hid_t t)
{
    switch (H5Tget_class(t)) {
    case H5T_VLEN: return "variable-length data is not supported";
    case H5T_REFERENCE: return "references are not supported";
    case H5T_STRING:
        return H5Tis_variable_str(t) > 0 ? "variable-length strings are not supported"
                                         : "string datasets are not supported";
    default: break;
    }
    const char *why = nested_unsupported(t);
    if (!why) return NULL;
    static char buf[96];
    snprintf(buf, sizeof buf, "compound or array types with %s are not supported", why);
    return buf;
}

/* ---- file access ------------------------------------------------------------- */
static hid_t mpio_fapl(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    H5Pset_alignment(fapl, (hsize_t)1 << 20, (hsize_t)1 << 20);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
    return fapl;
}

static hid_t coll_dxpl(void)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    return dxpl;
}

/* Rank-0 check that the input exists, is a regular file and has an HDF5 signature. */
static gp_status precheck_input(const char *path, gp_error *e)
{
    struct stat st;
    if (stat(path, &st) != 0) return gp__fail(e, GP_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return gp__fail(e, GP_EIO, "%s: is a directory, not an HDF5 file", path);
    if (access(path, R_OK) != 0)
        return gp__fail(e, GP_EIO, "%s: cannot read: %s", path, strerror(errno));
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return gp__fail(e, GP_EFORMAT, "%s: not an HDF5 file (no HDF5 signature found)", path);
    }
    return GP_OK;
}

typedef struct { char (*names)[1024]; int n, cap; } found2d;

static herr_t visit_cb(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    found2d *f = data;
    if (info->type != H5L_TYPE_HARD) return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) { H5Eclear2(H5E_DEFAULT); return 0; }
    if (H5Iget_type(o) == H5I_DATASET) {
        hid_t sp = H5Dget_space(o);
        if (H5Sget_simple_extent_ndims(sp) == 2 && f->n < f->cap)
            snprintf(f->names[f->n++], 1024, "/%s", name);
        else if (H5Sget_simple_extent_ndims(sp) == 2)
            f->n++;
        H5Sclose(sp);
    }
    H5Oclose(o);
    return 0;
}

/* A filter of the dataset's pipeline that this HDF5 cannot apply, described into buf; 0 if none. */
static int missing_filter(hid_t dset, char *buf, size_t n)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : 0, missing = 0;
    for (int i = 0; i < nf && !missing; i++) {
        unsigned flags, cd[16];
        size_t ncd = 16;
        char name[128] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, NULL);
        if (id >= 0 && H5Zfilter_avail(id) <= 0) {
            snprintf(buf, n, "filter %d%s%s%s", (int)id, name[0] ? " (" : "", name, name[0] ? ")" : "");
            missing = 1;
        }
    }
    if (dcpl >= 0) H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    return missing;
}

/* Resolve -d (or find the only 2-D dataset) and open it. */
gp_status gp__h5_open_dataset(gp_h5_in *in, const char *dataset, gp_error *e)
{
    char why[300];
    if (!dataset) {
        char names[4][1024];
        found2d f = {names, 0, 4};
        if (H5Lvisit(in->file, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &f) < 0)
            return gp__fail(e, GP_EFORMAT, "%s: cannot list the file's datasets (corrupt file?)%s", in->path, h5why(why, sizeof why));
        if (f.n == 0) return gp__fail(e, GP_EFORMAT, "%s: no 2-D dataset in the file; name one with -d", in->path);
        if (f.n > 1)
            return gp__fail(e, GP_EINVAL, "%s: %d 2-D datasets (%s, %s%s); choose one with -d", in->path, f.n,
                            names[0], names[1], f.n > 2 ? ", ..." : "");
        snprintf(in->dset_path, sizeof in->dset_path, "%s", names[0]);
    } else {
        snprintf(in->dset_path, sizeof in->dset_path, "%s%s", dataset[0] == '/' ? "" : "/", dataset);
    }
    /* Walk the path so a missing group, a dangling link and a group are told apart. */
    char partial[1024];
    const char *p = in->dset_path;
    while (*p) {
        const char *slash = strchr(p + 1, '/');
        size_t len = slash ? (size_t)(slash - in->dset_path) : strlen(in->dset_path);
        snprintf(partial, sizeof partial, "%.*s", (int)len, in->dset_path);
        if (strcmp(partial, "/") != 0) {
            htri_t ex = H5Lexists(in->file, partial, H5P_DEFAULT);
            if (ex <= 0) {
                H5Eclear2(H5E_DEFAULT);
                return gp__fail(e, GP_EFORMAT, "%s: no dataset %s (%s does not exist)", in->path,
                                in->dset_path, partial);
            }
        }
        if (!slash) break;
        p = slash;
    }
    hid_t o = H5Oopen(in->file, in->dset_path, H5P_DEFAULT);
    if (o < 0)
        return gp__fail(e, GP_EFORMAT, "%s: %s cannot be opened (dangling link?)%s", in->path, in->dset_path,
                        h5why(why, sizeof why));
    H5I_type_t it = H5Iget_type(o);
    if (it != H5I_DATASET) {
        H5Oclose(o);
        return gp__fail(e, GP_EFORMAT, "%s: %s is a %s, not a dataset", in->path, in->dset_path,
                        it == H5I_GROUP ? "group" : it == H5I_DATATYPE ? "named datatype" : "non-dataset object");
    }
    in->dset = o;
    return GP_OK;
}

uint64_t gp__h5_chunk_positions(hid_t dset, const hsize_t *dims)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    hsize_t cd[2] = {0, 0};
    int n = dcpl >= 0 ? H5Pget_chunk(dcpl, 2, cd) : -1;
    if (dcpl >= 0) H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    if (n != 2 || !cd[0] || !cd[1]) return 0;
    uint64_t n0 = dims[0] / cd[0] + (dims[0] % cd[0] != 0), n1 = dims[1] / cd[1] + (dims[1] % cd[1] != 0);
    return n0 && n1 > UINT64_MAX / n0 ? UINT64_MAX : n0 * n1;
}

/* The checks every rank makes once the dataset is open: a simple 2-D dataspace, a filter
 * pipeline this HDF5 can decode, a type gpipe can move as bytes, a layout parallel HDF5 can
 * read, a size in bytes that fits in 64 bits. Fills in rows, cols, esize, type, independent. */
gp_status gp__h5_check_dataset(gp_h5_in *in, gp_error *e)
{
    char why[300];
    const char *path = in->path;
    hid_t sp = H5Dget_space(in->dset);
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dims[H5S_MAX_RANK] = {0};
    if (nd > 0 && nd <= H5S_MAX_RANK) H5Sget_simple_extent_dims(sp, dims, NULL);
    H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
    if (sp >= 0) H5Sclose(sp);
    in->type = H5Dget_type(in->dset);
    hid_t dcpl = H5Dget_create_plist(in->dset);
    H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    in->filtered = layout == H5D_CHUNKED && H5Pget_nfilters(dcpl) > 0;
    in->contiguous = layout == H5D_CONTIGUOUS;
    if (dcpl >= 0) H5Pclose(dcpl);
    const char *bad = in->type >= 0 ? gp_h5_type_unsupported(in->type) : "unreadable datatype";
    if (sp < 0 || nd < 0) {
        gp__fail(e, GP_EFORMAT, "%s: %s: unreadable dataspace (corrupt file?)%s", path, in->dset_path,
                 h5why(why, sizeof why));
    } else if (sc != H5S_SIMPLE) {
        gp__fail(e, GP_EFORMAT, "%s: %s is %s, gpipe needs a 2-D dataset", path, in->dset_path,
                 sc == H5S_SCALAR ? "a scalar" : "empty (null dataspace)");
    } else if (nd != 2) {
        char shape[128] = "";
        size_t u = 0;
        for (int i = 0; i < nd && u < sizeof shape; i++)
            u += (size_t)snprintf(shape + u, sizeof shape - u, "%s%llu", i ? "x" : "", (unsigned long long)dims[i]);
        gp__fail(e, GP_EFORMAT, "%s: %s is %d-D (shape %s), gpipe needs a 2-D dataset", path, in->dset_path, nd,
                 shape);
    } else if (layout == H5D_LAYOUT_ERROR) {
        gp__fail(e, GP_EFORMAT, "%s: %s: unreadable storage layout (corrupt file?)%s", path, in->dset_path,
                 h5why(why, sizeof why));
    } else if (layout == H5D_VIRTUAL) {
        gp__fail(e, GP_EFORMAT, "%s: %s is a virtual dataset (VDS), which parallel HDF5 cannot read; copy it into "
                 "a regular dataset first (h5repack -l CONTI)", path, in->dset_path);
    } else if (missing_filter(in->dset, why, sizeof why)) {
        gp__fail(e, GP_EFORMAT, "%s: %s is compressed with %s, which this HDF5 library cannot decode", path,
                 in->dset_path, why);
    } else if (bad) {
        char td[256];
        gp_h5_type_desc(in->type, td, sizeof td);
        gp__fail(e, GP_EFORMAT, "%s: %s has type %s: %s", path, in->dset_path, td, bad);
    } else {
        in->rows = dims[0];
        in->cols = dims[1];
        /* HDF5 1.10.8's collective chunk I/O fails (MPI_ERR_TYPE in MPI_File_set_view, also
         * with H5FD_MPIO_INDIVIDUAL_IO) when some chunks were never written; such datasets
         * are read in independent mode (every rank still calls, so nothing else changes). */
        H5D_space_status_t ss;
        in->independent = H5Dget_space_status(in->dset, &ss) >= 0 && ss != H5D_SPACE_STATUS_ALLOCATED;
        /* A chunk index too large for io/check.c to check entry by entry: read independently.
         * A collective read goes through MPI-IO file views, and HDF5 1.10.8 fills the part
         * past the end of the file with zeros without an error (H5FD_mpio_read); an
         * independent read of a chunk is checked against the end of the file by HDF5. */
        if (layout == H5D_CHUNKED && gp__h5_chunk_positions(in->dset, dims) > GP_CHUNK_WALK_MAX) in->independent = 1;
        in->esize = H5Tget_size(in->type);
        if (in->esize == 0 || dims[0] > SIZE_MAX || dims[1] > SIZE_MAX ||
            (in->cols && in->rows > SIZE_MAX / in->cols / in->esize))
            gp__fail(e, GP_EFORMAT, "%s: %s: size %llux%llu of %zu-byte elements overflows 64-bit arithmetic "
                     "(corrupt or crafted file?)", path, in->dset_path, (unsigned long long)dims[0],
                     (unsigned long long)dims[1], in->esize);
    }
    H5Eclear2(H5E_DEFAULT);
    return e->code;
}

gp_status gp_h5_open_input(MPI_Comm comm, const char *path, const char *dataset, gp_h5_in *in,
                           gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(in, 0, sizeof *in);
    in->file = in->dset = in->type = H5I_INVALID_HID;
    snprintf(in->path, sizeof in->path, "%s", path);
    /* Rank 0 first looks at the file alone, in a separate process where it can (io/probe.c):
     * HDF5 parses the metadata of a crafted file there, so a crash or an endless loop in the
     * library becomes an error line, and the storage the ranks are about to read is checked. */
    if (rank == 0 && !precheck_input(path, e)) gp__probe_input(path, dataset, e);
    gp_status st = gp__agree(comm, e);
    if (st) return st;

    char why[300];
    hid_t fapl = mpio_fapl(comm);
    in->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (in->file < 0) gp__fail(e, GP_EFORMAT, "%s: cannot open as HDF5%s", path, h5why(why, sizeof why));
    H5Pclose(fapl);
    if ((st = gp__agree(comm, e))) return st;

    if (!gp__h5_open_dataset(in, dataset, e)) gp__h5_check_dataset(in, e);
    return gp__agree(comm, e);
}

void gp_h5_close_input(gp_h5_in *in)
{
    if (in->type >= 0) H5Tclose(in->type);
    if (in->dset >= 0) H5Dclose(in->dset);
    if (in->file >= 0) H5Fclose(in->file);
    in->type = in->dset = in->file = H5I_INVALID_HID;
}

/* How a collective read reaches MPI-IO. Whole rows of a contiguous dataset are one extent of
 * the file per rank, of a chunked one the rank's own chunks (or their parts), of a compact one
 * in the object header (no MPI-IO at all): each rank reads its own (H5FD_MPIO_INDIVIDUAL_IO; the
 * H5Dread stays collective). Blocks of columns go through MPI-IO's two-phase collective read, whose
 * aggregators turn many short pieces into long reads (OMPIO picks one aggregator per 8 ranks,
 * which then reads for all of them). The choice depends on the call, never on one rank's
 * selection: every rank of a collective read must take the same path (or the read hangs).
 * GPIPE_MPIIO=collective (always two-phase) or individual (never) overrides. */
static int individual_reads(int whole_rows)
{
    static int mode = -1;   /* 0 auto, 1 collective, 2 individual */
    if (mode < 0) {
        const char *s = getenv("GPIPE_MPIIO");
        mode = s && !strcmp(s, "collective") ? 1 : s && !strcmp(s, "individual") ? 2 : 0;
    }
    if (mode) return mode == 2;
    return whole_rows;
}

static gp_status read_sel(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, size_t col0, size_t ncols,
                          int whole_rows, void *buf, gp_error *e);

gp_status gp_h5_read_block(gp_h5_in *in, size_t row0, size_t nrows, size_t col0, size_t ncols, void *buf,
                           gp_error *e)
{
    return gp_h5_read_block_as(in, in->type, row0, nrows, col0, ncols, buf, e);
}

gp_status gp_h5_read_block_as(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, size_t col0,
                              size_t ncols, void *buf, gp_error *e)
{
    return read_sel(in, mem_type, row0, nrows, col0, ncols, 0, buf, e);
}

gp_status gp_h5_read_rows_as(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, void *buf, gp_error *e)
{
    return read_sel(in, mem_type, row0, nrows, 0, in->cols, 1, buf, e);
}

static gp_status read_sel(gp_h5_in *in, hid_t mem_type, size_t row0, size_t nrows, size_t col0, size_t ncols,
                          int whole_rows, void *buf, gp_error *e)
{
    hid_t fs = H5Dget_space(in->dset), ms;
    if (nrows == 0 || ncols == 0) {
        hsize_t one = 1;
        H5Sselect_none(fs);
        ms = H5Screate_simple(1, &one, NULL);
        H5Sselect_none(ms);
    } else {
        hsize_t start[2] = {row0, col0}, count[2] = {nrows, ncols};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        ms = H5Screate_simple(2, count, NULL);
    }
    hid_t dxpl = coll_dxpl();
    if (in->independent) H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_INDEPENDENT);
    else if (individual_reads(whole_rows)) H5Pset_dxpl_mpio_collective_opt(dxpl, H5FD_MPIO_INDIVIDUAL_IO);
    herr_t rc = H5Dread(in->dset, mem_type, ms, fs, dxpl, buf);
    char why[300] = "";
    if (rc < 0) h5why(why, sizeof why);
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    if (rc < 0)
        return gp__fail(e, GP_EIO, "%s: %s: reading rows %zu..%zu, columns %zu..%zu failed%s", in->path,
                        in->dset_path, row0, row0 + nrows, col0, col0 + ncols, why);
    return GP_OK;
}

gp_status gp_h5_read_rows(gp_h5_in *in, size_t row0, size_t nrows, void *buf, gp_error *e)
{
    return gp_h5_read_rows_as(in, in->type, row0, nrows, buf, e);
}

gp_status gp_h5_input_signature(MPI_Comm comm, gp_h5_in *in, char *buf, size_t n, gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t sr = in->rows < 8 ? in->rows : 8, sc = in->cols < 512 ? in->cols : 512;
    unsigned char *sample = malloc(sr * sc * in->esize + 1);
    if (!sample) return gp__fail(e, GP_ENOMEM, "out of memory (input signature)");
    unsigned long long h = 0;
    for (int part = 0; part < 2; part++) {   /* the first and the last rows, read collectively */
        size_t r0 = part ? in->rows - sr : 0;  /* every rank makes both calls, even after a failure */
        if (!gp_h5_read_block(in, r0, rank == 0 ? sr : 0, 0, sc, sample, e) && rank == 0)
            h = XXH64(sample, sr * sc * in->esize, h);
    }
    free(sample);
    if (rank == 0 && !e->code) {
        struct stat st;
        char td[256];
        gp_h5_type_desc(in->type, td, sizeof td);
        if (stat(in->path, &st) != 0) {
            gp__fail(e, GP_EIO, "%s: cannot stat: %s", in->path, strerror(errno));
        } else {
            snprintf(buf, n, "size=%lld mtime=%lld.%09ld dataset=%s shape=%zux%zu type=%s sample=%016llx",
                     (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, in->dset_path,
                     in->rows, in->cols, td, h);
        }
    }
    gp_status s = gp__agree(comm, e);
    if (!s) MPI_Bcast(buf, (int)n, MPI_CHAR, 0, comm);
    return s;
}

/* ---- output ------------------------------------------------------------------ */
gp_status gp_h5_check_output(MPI_Comm comm, const char *input, const char *output, int force,
                             gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char dir[PATH_MAX], cin[PATH_MAX], cout[PATH_MAX];
        struct stat st, si;
        gp__path_dir(output, dir, sizeof dir);
        if (stat(dir, &st) != 0)
            gp__fail(e, GP_EIO, "%s: output directory %s: %s", output, dir, strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            gp__fail(e, GP_EIO, "%s: output directory %s is not a directory", output, dir);
        else if (access(dir, W_OK | X_OK) != 0)
            gp__fail(e, GP_EIO, "%s: output directory %s is not writable: %s", output, dir, strerror(errno));
        else if (input && ((gp__path_canon(input, cin, sizeof cin) == 0 &&
                            gp__path_canon(output, cout, sizeof cout) == 0 && strcmp(cin, cout) == 0) ||
                           (stat(input, &si) == 0 && stat(output, &st) == 0 && si.st_dev == st.st_dev &&
                            si.st_ino == st.st_ino)))
            gp__fail(e, GP_EINVAL, "%s: output is the input file; choose another with -o", output);
        else if (stat(output, &st) == 0 && !force)
            gp__fail(e, GP_EEXIST, "%s: output exists; use --force to overwrite it", output);
        else if (stat(output, &st) == 0 && S_ISDIR(st.st_mode))
            gp__fail(e, GP_EEXIST, "%s: output is a directory", output);
    }
    return gp__agree(comm, e);
}

/* fallocate the first `size` bytes of a file (keep_size: without changing its length); file
 * systems without fallocate are left alone. */
static void reserve_space(const char *path, off_t size, int keep_size, const char *output, gp_error *e)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        gp__fail(e, GP_EIO, "%s: cannot open %s: %s", output, path, strerror(errno));
        return;
    }
    if (size > 0 && fallocate(fd, keep_size ? FALLOC_FL_KEEP_SIZE : 0, 0, size) != 0 && errno != EOPNOTSUPP &&
        errno != ENOSYS) {
        char hb[32];
        gp__fail(e, GP_EIO, "%s: cannot reserve %s for the output: %s", output,
                 gp__human_bytes((double)size, hb, sizeof hb), strerror(errno));
    }
    close(fd);
}

void gp_h5_tmp_path(const char *output, char *buf, size_t n)
{
    char dir[PATH_MAX], base[PATH_MAX];
    gp__path_dir(output, dir, sizeof dir);
    gp__path_base(output, base, sizeof base);
    snprintf(buf, n, "%s/.%s.gpipe-tmp", dir, base);
}

/* An empty output: no handles, the final, temporary and dataset paths set. */
static void out_init(gp_h5_out *out, const char *output, const char *dset_path)
{
    memset(out, 0, sizeof *out);
    out->file = out->dset = H5I_INVALID_HID;
    snprintf(out->final_path, sizeof out->final_path, "%s", output);
    snprintf(out->dset_path, sizeof out->dset_path, "%s%s", dset_path[0] == '/' ? "" : "/", dset_path);
    gp_h5_tmp_path(output, out->tmp_path, sizeof out->tmp_path);
}

gp_status gp_h5_open_partial(MPI_Comm comm, const char *output, const char *dset_path, gp_h5_out *out,
                             gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    out_init(out, output, dset_path);
    if (rank == 0 && access(out->tmp_path, F_OK) != 0)
        gp__fail(e, GP_EIO, "%s: nothing to resume: no partial output %s from an interrupted run", output,
                 out->tmp_path);
    gp_status st = gp__agree(comm, e);
    if (st) {
        out->tmp_path[0] = 0;   /* not ours to remove */
        return st;
    }
    char why[300];
    hid_t fapl = mpio_fapl(comm);
    out->file = H5Fopen(out->tmp_path, H5F_ACC_RDWR, fapl);
    if (out->file < 0)
        gp__fail(e, GP_EIO, "%s: cannot open the partial output %s%s", output, out->tmp_path, h5why(why, sizeof why));
    H5Pclose(fapl);
    if (out->file >= 0) {
        out->dset = H5Dopen2(out->file, out->dset_path, H5P_DEFAULT);
        if (out->dset < 0)
            gp__fail(e, GP_EFORMAT, "%s: the partial output %s has no dataset %s%s", output, out->tmp_path,
                     out->dset_path, h5why(why, sizeof why));
    }
    out->keep_on_failure = 1;
    return gp__agree(comm, e);
}

#define GP_JOURNAL_BYTES 512

gp_status gp_h5_journal_write(gp_h5_out *out, const char *key, const char *value, gp_error *e)
{
    char why[300] = "", buf[GP_JOURNAL_BYTES] = {0};
    snprintf(buf, sizeof buf, "%s", value);
    if (H5Fflush(out->file, H5F_SCOPE_GLOBAL) < 0) {
        h5why(why, sizeof why);
        return gp__fail(e, GP_EIO, "%s: flushing to disk failed%s", out->tmp_path, why);
    }
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, GP_JOURNAL_BYTES);
    hid_t a;
    if (H5Aexists(out->file, key) > 0) {
        a = H5Aopen(out->file, key, H5P_DEFAULT);
    } else {
        hid_t sp = H5Screate(H5S_SCALAR);
        a = H5Acreate2(out->file, key, t, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(sp);
    }
    herr_t rc = a >= 0 ? H5Awrite(a, t, buf) : -1;
    if (rc >= 0) rc = H5Aclose(a) < 0 ? -1 : 0;
    else if (a >= 0) H5Aclose(a);
    if (rc >= 0) rc = H5Fflush(out->file, H5F_SCOPE_GLOBAL);
    if (rc < 0) h5why(why, sizeof why);
    H5Tclose(t);
    if (rc < 0) return gp__fail(e, GP_EIO, "%s: writing the journal failed%s", out->tmp_path, why);
    return GP_OK;
}

gp_status gp_h5_journal_read(gp_h5_out *out, const char *key, char *buf, size_t n, gp_error *e)
{
    char tmp[GP_JOURNAL_BYTES] = {0};
    if (H5Aexists(out->file, key) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return gp__fail(e, GP_EFORMAT, "%s: not a gpipe partial output (no journal entry %s)", out->tmp_path, key);
    }
    hid_t a = H5Aopen(out->file, key, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, GP_JOURNAL_BYTES);
    herr_t rc = a >= 0 ? H5Aread(a, t, tmp) : -1;
    if (a >= 0) H5Aclose(a);
    H5Tclose(t);
    if (rc < 0) {
        char why[300];
        return gp__fail(e, GP_EFORMAT, "%s: unreadable journal entry %s%s", out->tmp_path, key, h5why(why, sizeof why));
    }
    snprintf(buf, n, "%s", tmp);
    return GP_OK;
}

/* The body of both create functions: a temporary file with one dataset of ndims dimensions. */
static gp_status create_output(MPI_Comm comm, const char *output, const char *dset_path, hid_t type, int ndims,
                               const hsize_t *dims, const hsize_t *chunk, gp_h5_out *out, gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    out_init(out, output, dset_path);

    char why[300];
    hid_t fapl = mpio_fapl(comm);
    out->file = H5Fcreate(out->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (out->file < 0)
        gp__fail(e, GP_EIO, "%s: cannot create the output file%s", output, h5why(why, sizeof why));
    H5Pclose(fapl);
    gp_status st = gp__agree(comm, e);
    if (st) return st;
    /* The data's blocks first, while the file is still small: when they cannot be had (full disk,
     * or more than the file system allows in one file), closing the file stays cheap and clean
     * (HDF5 1.10.8 crashes at MPI_Finalize when closing a file fails to set its size). */
    uint64_t need = H5Tget_size(type);
    for (int i = 0; i < ndims; i++) need = dims[i] && need > UINT64_MAX / dims[i] ? UINT64_MAX : need * dims[i];
    if (rank == 0) {
        if (need > (uint64_t)INT64_MAX) {
            char a[32];
            gp__fail(e, GP_EIO, "%s: cannot reserve %s for the output: File too large", output,
                     gp__human_bytes((double)need, a, sizeof a));
        } else {
            reserve_space(out->tmp_path, (off_t)need, 1, output, e);
        }
    }
    if ((st = gp__agree(comm, e))) return st;

    hid_t space = H5Screate_simple(ndims, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    if (chunk) {
        hsize_t ch[H5S_MAX_RANK];
        int ok = 1;
        for (int i = 0; i < ndims; i++) {
            ok = ok && chunk[i] && dims[i];
            ch[i] = chunk[i] < dims[i] ? chunk[i] : dims[i];
        }
        if (ok) H5Pset_chunk(dcpl, ndims, ch);
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    out->dset = H5Dcreate2(out->file, out->dset_path, type, space, lcpl, dcpl, H5P_DEFAULT);
    if (out->dset < 0)
        gp__fail(e, GP_EIO, "%s: cannot create dataset %s%s", output, out->dset_path, h5why(why, sizeof why));
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    if ((st = gp__agree(comm, e))) return st;
    /* Reserve the file's blocks now: some MPI-IO layers lose writes on a full file system
     * without an error (seen with Open MPI's OMPIO on tmpfs), so a full disk must fail here. */
    hsize_t size = 0;
    H5Fget_filesize(out->file, &size);
    if (rank == 0) reserve_space(out->tmp_path, (off_t)size, 0, output, e);
    return gp__agree(comm, e);
}

gp_status gp_h5_create_output(MPI_Comm comm, const char *output, const char *dset_path, hid_t type,
                              size_t rows, size_t cols, size_t chunk_r, size_t chunk_c,
                              gp_h5_out *out, gp_error *e)
{
    hsize_t dims[2] = {rows, cols}, chunk[2] = {chunk_r, chunk_c};
    return create_output(comm, output, dset_path, type, 2, dims, chunk_r && chunk_c ? chunk : NULL, out, e);
}

gp_status gp_h5_create_output_1d(MPI_Comm comm, const char *output, const char *dset_path, hid_t type,
                                 size_t n, gp_h5_out *out, gp_error *e)
{
    hsize_t dims[1] = {n};
    return create_output(comm, output, dset_path, type, 1, dims, NULL, out, e);
}

gp_status gp_h5_write_blocks(gp_h5_out *out, hid_t mem_type, size_t row0, size_t nrows,
                             int nblocks, const size_t *col0, const size_t *ncols, const void *buf,
                             gp_error *e)
{
    hid_t fs = H5Dget_space(out->dset), ms;
    size_t total = 0;
    for (int i = 0; i < nblocks; i++) total += ncols[i];
    if (nrows == 0 || total == 0) {
        hsize_t one = 1;
        H5Sselect_none(fs);
        ms = H5Screate_simple(1, &one, NULL);
        H5Sselect_none(ms);
    } else {
        int first = 1;
        for (int i = 0; i < nblocks; i++) {
            if (!ncols[i]) continue;
            hsize_t start[2] = {row0, col0[i]}, count[2] = {nrows, ncols[i]};
            H5Sselect_hyperslab(fs, first ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL, count, NULL);
            first = 0;
        }
        hsize_t mdims[2] = {nrows, total};
        ms = H5Screate_simple(2, mdims, NULL);
    }
    hid_t dxpl = coll_dxpl();
    herr_t rc = H5Dwrite(out->dset, mem_type, ms, fs, dxpl, buf);
    char why[300] = "";
    if (rc < 0) h5why(why, sizeof why);
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    if (rc < 0) {
        return gp__fail(e, GP_EIO, "%s: writing rows %zu..%zu of %s failed%s", out->final_path, row0,
                        row0 + nrows, out->dset_path, why);
    }
    return GP_OK;
}

gp_status gp_h5_write_pitched(gp_h5_out *out, hid_t mem_type, size_t row0, size_t nrows, size_t nrows_max,
                              size_t col0, size_t ncols, const void *buf, size_t ld, size_t max_bytes,
                              gp_error *e)
{
    size_t es = H5Tget_size(mem_type), rowb = ncols * es, calls = 1;
    if (max_bytes && rowb && nrows_max) {
        size_t per = max_bytes / rowb ? max_bytes / rowb : 1;   /* rows per call */
        calls = (nrows_max + per - 1) / per;
    }
    if (ld < ncols) ld = ncols;
    gp_status st = GP_OK;
    for (size_t c = 0; c < calls; c++) {
        gp_range part = gp__split(nrows, (int)calls, (int)c);
        hid_t fs = H5Dget_space(out->dset), ms;
        if (part.count == 0 || ncols == 0) {
            hsize_t one = 1;
            H5Sselect_none(fs);
            ms = H5Screate_simple(1, &one, NULL);
            H5Sselect_none(ms);
        } else {
            hsize_t start[2] = {row0 + part.start, col0}, count[2] = {part.count, ncols};
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
            hsize_t mdims[2] = {part.count, ld}, m0[2] = {0, 0};
            ms = H5Screate_simple(2, mdims, NULL);
            if (ld != ncols) H5Sselect_hyperslab(ms, H5S_SELECT_SET, m0, NULL, count, NULL);
        }
        hid_t dxpl = coll_dxpl();
        herr_t rc = H5Dwrite(out->dset, mem_type, ms, fs, dxpl, (const char *)buf + part.start * ld * es);
        char why[300] = "";
        if (rc < 0) h5why(why, sizeof why);
        H5Pclose(dxpl);
        H5Sclose(ms);
        H5Sclose(fs);
        if (rc < 0 && !st)   /* keep calling: the write is collective */
            st = gp__fail(e, GP_EIO, "%s: writing rows %zu..%zu of %s failed%s", out->final_path, row0,
                          row0 + nrows, out->dset_path, why);
    }
    return st;
}

gp_status gp_h5_set_attr(gp_h5_out *out, const char *name, const char *value, gp_error *e)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value) + 1);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(out->dset, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a >= 0 ? H5Awrite(a, t, value) : -1;
    char why[300] = "";
    if (rc < 0) h5why(why, sizeof why);
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    if (rc < 0) {
        return gp__fail(e, GP_EIO, "%s: cannot write attribute %s%s", out->final_path, name, why);
    }
    return GP_OK;
}

/* Data durable before the name appears: fsync the file (and, after the rename, its directory). */
static void sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) { fsync(fd); close(fd); }
}

gp_status gp_h5_finish_output(MPI_Comm comm, gp_h5_out *out, gp_error *e)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char why[300];
    if (out->dset >= 0 && H5Dclose(out->dset) < 0)
        gp__fail(e, GP_EIO, "%s: closing dataset failed%s", out->final_path, h5why(why, sizeof why));
    if (out->file >= 0 && H5Fclose(out->file) < 0)
        gp__fail(e, GP_EIO, "%s: closing the file failed%s", out->final_path, h5why(why, sizeof why));
    out->dset = out->file = H5I_INVALID_HID;
    gp_status st = gp__agree(comm, e);
    if (rank == 0 && out->tmp_path[0]) {
        if (st) {
            if (!out->keep_on_failure) unlink(out->tmp_path);
        } else if (sync_file(out->tmp_path), rename(out->tmp_path, out->final_path) != 0) {
            gp__fail(e, GP_EIO, "%s: cannot rename %s into place: %s", out->final_path, out->tmp_path,
                     strerror(errno));
            unlink(out->tmp_path);
        }
    }
    if (rank == 0 && !st && !e->code) {
        char dir[PATH_MAX];
        gp__path_dir(out->final_path, dir, sizeof dir);
        sync_file(dir);
    }
    return st ? st : gp__agree(comm, e);
}
