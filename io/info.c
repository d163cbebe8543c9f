/* io/info.c — `gpipe info`: every dataset of a file with shape, type, layout, chunks, filters
 * and sizes, as a table (or JSON lines). Rank 0 reads the file alone (in the sandbox of
 * io/probe.c when enabled); the result is agreed. An object whose metadata HDF5 cannot read is
 * listed as unreadable and makes the command fail (exit 2) after the listing. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "io/h5.h"

typedef struct { FILE *out; int json; int n; const char *path; gp_error *err; } info_ctx;

/* Records the first unreadable object (the HDF5 reason from the error stack). */
static void unreadable(info_ctx *c, const char *name, const char *what)
{
    char why[256];
    gp_h5_last_error(why, sizeof why);
    gp__fail(c->err, GP_EFORMAT, "%s: %s: unreadable %s (corrupt file?)%s%s%s", c->path, name, what,
             why[0] ? " (HDF5: " : "", why, why[0] ? ")" : "");
}

static void describe(hid_t d, const char *name, info_ctx *c)
{
    hid_t sp = H5Dget_space(d), t = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
    if (sp < 0 || t < 0 || dcpl < 0) {
        unreadable(c, name, "dataset header");
        if (!c->json) fprintf(c->out, "%-24s (unreadable)\n", name);
        if (sp >= 0) H5Sclose(sp);
        if (t >= 0) H5Tclose(t);
        if (dcpl >= 0) H5Pclose(dcpl);
        return;
    }
    int nd = H5Sget_simple_extent_ndims(sp);
    hsize_t dims[H5S_MAX_RANK] = {0}, ch[H5S_MAX_RANK] = {0};
    if (nd > 0) H5Sget_simple_extent_dims(sp, dims, NULL);
    char shape[256] = "", chunks[256] = "-", filters[256] = "-", td[512];
    size_t u = 0;
    if (nd == 0) snprintf(shape, sizeof shape, "scalar");
    for (int i = 0; i < nd && u < sizeof shape; i++)
        u += (size_t)snprintf(shape + u, sizeof shape - u, "%s%llu", i ? "x" : "", (unsigned long long)dims[i]);
    gp_h5_type_desc(t, td, sizeof td);
    H5D_layout_t lay = H5Pget_layout(dcpl);
    const char *layout = lay == H5D_CONTIGUOUS ? "contiguous" : lay == H5D_CHUNKED ? "chunked"
                       : lay == H5D_COMPACT ? "compact" : lay == H5D_VIRTUAL ? "virtual" : "?";
    if (lay == H5D_CHUNKED) {
        int cn = H5Pget_chunk(dcpl, H5S_MAX_RANK, ch);
        u = 0;
        for (int i = 0; i < cn && u < sizeof chunks; i++)
            u += (size_t)snprintf(chunks + u, sizeof chunks - u, "%s%llu", i ? "x" : "", (unsigned long long)ch[i]);
        int nf = H5Pget_nfilters(dcpl);
        u = 0;
        for (int i = 0; i < nf && u < sizeof filters; i++) {
            unsigned flags, cd[8];
            size_t ncd = 8;
            char fname[64] = "";
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
            u += (size_t)snprintf(filters + u, sizeof filters - u, "%s%s", i ? "," : "",
                                  fname[0] ? fname : id == H5Z_FILTER_DEFLATE ? "deflate" : "filter");
        }
        if (nf == 0) snprintf(filters, sizeof filters, "-");
    }
    size_t es = H5Tget_size(t);
    double logical = (double)es;
    for (int i = 0; i < nd; i++) logical *= (double)dims[i];
    H5Eclear2(H5E_DEFAULT);
    double stored = (double)H5Dget_storage_size(d);
    if (stored == 0 && H5Eget_num(H5E_DEFAULT) > 0) unreadable(c, name, lay == H5D_CHUNKED ? "chunk index" : "storage");
    char lb[32], sb[32];
    gp__human_bytes(logical, lb, sizeof lb);
    gp__human_bytes(stored, sb, sizeof sb);
    if (c->json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:f, s:f}", "dataset", name, "shape", shape,
                              "type", td, "element_bytes", (json_int_t)es, "layout", layout, "chunks", chunks,
                              "filters", filters, "bytes", logical, "stored_bytes", stored);
        char *s = json_dumps(j, JSON_COMPACT);
        fprintf(c->out, "%s\n", s);
        free(s);
        json_decref(j);
    } else {
        if (c->n == 0)
            fprintf(c->out, "%-24s %-16s %-28s %-10s %-12s %-10s %10s %10s\n", "dataset", "shape", "type",
                    "layout", "chunks", "filters", "size", "stored");
        fprintf(c->out, "%-24s %-16s %-28s %-10s %-12s %-10s %10s %10s\n", name, shape, td, layout, chunks,
                filters, lb, sb);
    }
    c->n++;
    H5Pclose(dcpl);
    H5Tclose(t);
    H5Sclose(sp);
}

static herr_t info_cb(hid_t g, const char *name, const H5L_info_t *li, void *data)
{
    info_ctx *c = data;
    char path[1100];
    snprintf(path, sizeof path, "/%s", name);
    if (li->type != H5L_TYPE_HARD) {
        if (!c->json) fprintf(c->out, "%-24s (%s link)\n", path, li->type == H5L_TYPE_SOFT ? "soft" : "external");
        return 0;
    }
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        unreadable(c, path, "object header");
        if (!c->json) fprintf(c->out, "%-24s (unreadable)\n", path);
        return 0;
    }
    if (H5Iget_type(o) == H5I_DATASET) describe(o, path, c);
    H5Oclose(o);
    return 0;
}

gp_status gp__info_list(const char *path, int json, FILE *out, gp_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        char why[256];
        gp_h5_last_error(why, sizeof why);
        return gp__fail(err, GP_EFORMAT, "%s: cannot open as HDF5 (HDF5: %s)", path, why);
    }
    info_ctx c = {out, json, 0, path, err};
    if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, info_cb, &c) < 0) {
        char why[256];
        gp_h5_last_error(why, sizeof why);
        gp__fail(err, GP_EFORMAT, "%s: cannot list the file (HDF5: %s)", path, why);
    }
    if (c.n == 0 && !json && !err->code) fprintf(out, "%s: no datasets\n", path);
    H5Fclose(file);
    H5Eclear2(H5E_DEFAULT);
    fflush(out);
    return err->code;
}

gp_status gp_info(MPI_Comm comm, const char *path, int json, FILE *out, gp_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    memset(err, 0, sizeof *err);
    err->rank = -1;
    if (rank == 0) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            gp__fail(err, GP_EIO, "%s: cannot open: %m", path);
        } else {
            fclose(f);
            if (H5Fis_hdf5(path) <= 0) {
                H5Eclear2(H5E_DEFAULT);
                gp__fail(err, GP_EFORMAT, "%s: not an HDF5 file (no HDF5 signature found)", path);
            } else {
                gp__probe_info(path, json, out, err);
            }
        }
    }
    return gp__agree(comm, err);
}
