/* io/check.c — the serial check of an input before any rank trusts it (issue 8). HDF5 checks its
 * metadata as it parses it, but not everything gpipe relies on: with MPI-IO, a collective read
 * of a chunk or of contiguous data whose address lies past the end of the file returns zeros
 * without an error (HDF5 1.10.8 H5FD_mpio_read zero-fills what MPI-IO could not read), and a
 * dataset may declare petabytes that were never written.
 * So before the ranks read anything, the storage behind the dataset is checked here, on one
 * process, with the default (POSIX) driver: contiguous data and every allocated chunk must lie
 * inside the file and have the size the shape needs, external raw files must exist and be long
 * enough, and the never-written part (read as the fill value) must stay below
 * GPIPE_MAX_UNWRITTEN (default 1 TiB). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/h5.h"

#define DEFAULT_MAX_UNWRITTEN ((uint64_t)1 << 40)

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static const char *why_h5(char *buf, size_t n)
{
    char r[256];
    gp_h5_last_error(r, sizeof r);
    if (r[0]) snprintf(buf, n, " (HDF5: %s)", r);
    else buf[0] = 0;
    return buf;
}

static uint64_t max_unwritten(void)
{
    const char *s = getenv("GPIPE_MAX_UNWRITTEN");
    size_t v;
    if (s && *s && gp_parse_size(s, &v) == 0) return v;
    return DEFAULT_MAX_UNWRITTEN;
}

/* Contiguous data in external raw files (H5Pset_external): each must exist and hold its part. */
static void check_external(gp_h5_in *in, hid_t dcpl, int n, uint64_t need, gp_error *e)
{
    uint64_t covered = 0;
    for (int i = 0; i < n && !e->code; i++) {
        char name[PATH_MAX] = "";
        off_t off = 0;
        hsize_t size = 0;
        if (H5Pget_external(dcpl, (unsigned)i, sizeof name, name, &off, &size) < 0) {
            char why[300];
            gp__fail(e, GP_EFORMAT, "%s: %s: unreadable external storage list%s", in->path, in->dset_path,
                     why_h5(why, sizeof why));
            break;
        }
        /* HDF5 1.10 resolves a relative name from HDF5_EXTFILE_PREFIX, else from the cwd. */
        char full[PATH_MAX * 2];
        const char *prefix = getenv("HDF5_EXTFILE_PREFIX");
        if (name[0] != '/' && prefix && *prefix) snprintf(full, sizeof full, "%s/%s", prefix, name);
        else snprintf(full, sizeof full, "%s", name);
        struct stat st;
        if (stat(full, &st) != 0) {
            gp__fail(e, GP_EIO, "%s: %s keeps its data in the external file %s, which cannot be opened: %s", in->path,
                     in->dset_path, full, strerror(errno));
        } else if (size != H5F_UNLIMITED && ((uint64_t)st.st_size < (uint64_t)off ||
                                             (uint64_t)st.st_size - (uint64_t)off < size)) {
            gp__fail(e, GP_EFORMAT, "%s: %s: the external file %s has %lld bytes, its part of the data needs "
                     "%llu bytes from offset %lld (truncated?)", in->path, in->dset_path, full,
                     (long long)st.st_size, (unsigned long long)size, (long long)off);
        }
        covered = size == H5F_UNLIMITED ? UINT64_MAX : covered + size;
    }
    if (!e->code && covered < need)
        gp__fail(e, GP_EFORMAT, "%s: %s: its external files hold %llu bytes, its shape needs %llu (corrupt?)",
                 in->path, in->dset_path, (unsigned long long)covered, (unsigned long long)need);
}

/* The chunk index: counted (a walk of every index node, where a corrupt or cyclic index shows),
 * and for small indexes every allocated chunk inside the file, with the size the layout implies
 * when unfiltered; that walk stops once all of them were seen. Returns the number of
 * never-written chunk positions. */
static uint64_t check_chunks(gp_h5_in *in, hid_t dcpl, uint64_t fsize, uint64_t *cbytes_out, gp_error *e)
{
    char why[300];
    hsize_t cd[2] = {0, 0};
    if (H5Pget_chunk(dcpl, 2, cd) != 2 || !cd[0] || !cd[1]) {
        gp__fail(e, GP_EFORMAT, "%s: %s: unreadable chunk shape (corrupt file?)%s", in->path, in->dset_path,
                 why_h5(why, sizeof why));
        return 0;
    }
    int nfilters = H5Pget_nfilters(dcpl);
    uint64_t cbytes = sat_mul(sat_mul(cd[0], cd[1]), in->esize);
    uint64_t n0 = in->rows / cd[0] + (in->rows % cd[0] != 0), n1 = in->cols / cd[1] + (in->cols % cd[1] != 0);
    uint64_t ncoords = sat_mul(n0, n1);
    *cbytes_out = cbytes;
    hsize_t nalloc = 0;
    if (ncoords == 0) return 0;
    hid_t fs = H5Dget_space(in->dset);
    herr_t rc = fs >= 0 ? H5Dget_num_chunks(in->dset, fs, &nalloc) : -1;
    if (rc < 0)   /* before H5Sclose, which clears HDF5's error stack */
        gp__fail(e, GP_EFORMAT, "%s: %s: unreadable chunk index (corrupt file?)%s", in->path, in->dset_path,
                 why_h5(why, sizeof why));
    if (fs >= 0) H5Sclose(fs);
    if (rc < 0) return 0;
    if (nalloc > ncoords) {
        gp__fail(e, GP_EFORMAT, "%s: %s: the chunk index lists %llu chunks, the shape has room for %llu (corrupt file)",
                 in->path, in->dset_path, (unsigned long long)nalloc, (unsigned long long)ncoords);
        return 0;
    }
    uint64_t unwritten = ncoords - nalloc;
    /* The caller refuses a dataset with too much unwritten data before anything is walked.
     * HDF5 1.10.8 finds a chunk's address only by iterating the index (each lookup costs a
     * walk of it), so chunks are checked one by one only for small indexes (~0.3 s at the
     * limit); the counting walk above parsed every index node already, and larger datasets
     * are read independently, where HDF5 checks every chunk's address (io/h5.c). */
    if (nalloc == 0 || ncoords > GP_CHUNK_WALK_MAX || sat_mul(unwritten, cbytes) > max_unwritten()) return unwritten;
    uint64_t seen = 0;
    for (uint64_t i = 0; i < n0 && seen < nalloc && !e->code; i++) {
        for (uint64_t j = 0; j < n1 && seen < nalloc; j++) {
            hsize_t off[2] = {i * cd[0], j * cd[1]};
            unsigned mask = 0;
            haddr_t addr = HADDR_UNDEF;
            hsize_t size = 0;
            if (H5Dget_chunk_info_by_coord(in->dset, off, &mask, &addr, &size) < 0) {
                gp__fail(e, GP_EFORMAT, "%s: %s: unreadable chunk index entry of rows %llu.., columns %llu.. "
                         "(corrupt file?)%s", in->path, in->dset_path, (unsigned long long)off[0],
                         (unsigned long long)off[1], why_h5(why, sizeof why));
                break;
            }
            if (addr == HADDR_UNDEF) continue;
            seen++;
            if (size == 0 || addr > fsize || size > fsize - addr) {
                gp__fail(e, GP_EFORMAT, "%s: %s: the chunk of rows %llu.., columns %llu.. (%llu bytes at offset %llu) "
                         "lies past the end of the file (%llu bytes): truncated or corrupt file", in->path,
                         in->dset_path, (unsigned long long)off[0], (unsigned long long)off[1],
                         (unsigned long long)size, (unsigned long long)addr, (unsigned long long)fsize);
            } else if (nfilters == 0 && size != cbytes) {
                gp__fail(e, GP_EFORMAT, "%s: %s: the uncompressed chunk of rows %llu.., columns %llu.. is stored in "
                         "%llu bytes, its shape needs %llu (corrupt file)", in->path, in->dset_path,
                         (unsigned long long)off[0], (unsigned long long)off[1], (unsigned long long)size,
                         (unsigned long long)cbytes);
            }
        }
    }
    if (!e->code && seen < nalloc)
        gp__fail(e, GP_EFORMAT, "%s: %s: the chunk index counts %llu chunks but only %llu lie within the dataset "
                 "(corrupt file)", in->path, in->dset_path, (unsigned long long)nalloc, (unsigned long long)seen);
    H5Eclear2(H5E_DEFAULT);
    return unwritten;
}

static void check_storage(gp_h5_in *in, uint64_t fsize, gp_error *e)
{
    char why[300];
    hid_t dcpl = H5Dget_create_plist(in->dset);
    if (dcpl < 0) {
        gp__fail(e, GP_EFORMAT, "%s: %s: unreadable creation properties (corrupt file?)%s", in->path, in->dset_path,
                 why_h5(why, sizeof why));
        return;
    }
    uint64_t need = sat_mul(sat_mul(in->rows, in->cols), in->esize), unwritten = 0;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CONTIGUOUS) {
        int next = H5Pget_external_count(dcpl);
        if (next > 0) {
            check_external(in, dcpl, next, need, e);
        } else {
            haddr_t addr = H5Dget_offset(in->dset);
            H5Eclear2(H5E_DEFAULT);
            if (addr == HADDR_UNDEF) {
                unwritten = need;
            } else {
                hsize_t stored = H5Dget_storage_size(in->dset);
                if (stored != need)
                    gp__fail(e, GP_EFORMAT, "%s: %s: its contiguous storage holds %llu bytes, its shape %zux%zu of "
                             "%zu-byte elements needs %llu (corrupt file)", in->path, in->dset_path,
                             (unsigned long long)stored, in->rows, in->cols, in->esize, (unsigned long long)need);
                else if (addr > fsize || need > fsize - addr)
                    gp__fail(e, GP_EFORMAT, "%s: %s: its data (%llu bytes at offset %llu) lies past the end of the "
                             "file (%llu bytes): truncated or corrupt file", in->path, in->dset_path,
                             (unsigned long long)need, (unsigned long long)addr, (unsigned long long)fsize);
            }
        }
    } else if (layout == H5D_CHUNKED) {
        uint64_t cbytes = 0, positions = check_chunks(in, dcpl, fsize, &cbytes, e);
        unwritten = sat_mul(positions, cbytes);
        if (unwritten > need) unwritten = need;   /* edge chunks are partial */
    }
    H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    uint64_t lim = max_unwritten();
    if (!e->code && unwritten > lim) {
        char td[256], a[32], b[32], c[32];
        gp_h5_type_desc(in->type, td, sizeof td);
        gp__fail(e, GP_EFORMAT, "%s: %s declares %zux%zu %s (%s) of which %s were never written (no storage in the "
                 "file, only the fill value): more than GPIPE_MAX_UNWRITTEN=%s; corrupt or crafted file? (raise "
                 "GPIPE_MAX_UNWRITTEN to process it)", in->path, in->dset_path, in->rows, in->cols, td,
                 gp__human_bytes((double)need, a, sizeof a), gp__human_bytes((double)unwritten, b, sizeof b),
                 gp__human_bytes((double)lim, c, sizeof c));
    }
}

gp_status gp_h5_check_input(const char *path, const char *dataset, gp_error *e)
{
    char why[300];
    gp_h5_in in;
    memset(&in, 0, sizeof in);
    in.file = in.dset = in.type = H5I_INVALID_HID;
    snprintf(in.path, sizeof in.path, "%s", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct stat st;
    if (stat(path, &st) != 0) return gp__fail(e, GP_EIO, "%s: cannot open: %s", path, strerror(errno));
    in.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (in.file < 0) {
        gp__fail(e, GP_EFORMAT, "%s: cannot open as HDF5%s", path, why_h5(why, sizeof why));
    } else if (!gp__h5_open_dataset(&in, dataset, e) && !gp__h5_check_dataset(&in, e)) {
        check_storage(&in, (uint64_t)st.st_size, e);
    }
    gp_h5_close_input(&in);
    H5Eclear2(H5E_DEFAULT);
    return e->code;
}
