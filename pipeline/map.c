/* pipeline/map.c — map chains as gp_map stages for the drivers (fused: one pass; unfused: one
 * pass per op, for testing), type names, and the CUDA map's stubs in builds without CUDA. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/gpipe.h"
#include "pipeline/map.h"

int gp_map_parse_type(const char *s, gp_rtype *t)
{
    static const struct { const char *name; gp_rtype t; } names[] = {
        {"i8", GP_RT_I8}, {"i16", GP_RT_I16}, {"i32", GP_RT_I32}, {"i64", GP_RT_I64},
        {"u8", GP_RT_U8}, {"u16", GP_RT_U16}, {"u32", GP_RT_U32}, {"u64", GP_RT_U64},
        {"f32", GP_RT_F32}, {"f64", GP_RT_F64},
        {"int8", GP_RT_I8}, {"int16", GP_RT_I16}, {"int32", GP_RT_I32}, {"int64", GP_RT_I64},
        {"uint8", GP_RT_U8}, {"uint16", GP_RT_U16}, {"uint32", GP_RT_U32}, {"uint64", GP_RT_U64},
        {"float32", GP_RT_F32}, {"float64", GP_RT_F64}, {"float", GP_RT_F32}, {"double", GP_RT_F64}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) { *t = names[i].t; return 0; }
    return -1;
}

size_t gp_mapchain_table_bytes(const gp_mapchain *m)
{
    size_t n = 0;
    for (int k = 0; k < m->nops; k++) {
        if (m->ops[k].kind != GP_MAPOP_AFFINE) continue;
        if (m->ops[k].av) n += m->cols;
        if (m->ops[k].bv) n += m->cols;
    }
    return n * sizeof(double);
}

int64_t gp_map_native_hid(gp_rtype t)
{
    switch (t) {
    case GP_RT_I8: return H5T_NATIVE_INT8;
    case GP_RT_I16: return H5T_NATIVE_INT16;
    case GP_RT_I32: return H5T_NATIVE_INT32;
    case GP_RT_I64: return H5T_NATIVE_INT64;
    case GP_RT_U8: return H5T_NATIVE_UINT8;
    case GP_RT_U16: return H5T_NATIVE_UINT16;
    case GP_RT_U32: return H5T_NATIVE_UINT32;
    case GP_RT_U64: return H5T_NATIVE_UINT64;
    case GP_RT_F32: return H5T_NATIVE_FLOAT;
    default: return H5T_NATIVE_DOUBLE;
    }
}

/* One op at a time through intermediate buffers of each op's result type. */
static int apply_unfused(const gp_mapchain *m, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                         char *err, size_t errlen)
{
    if (m->nops <= 1) return gp_cpu_map(m, in, out, rows, cols, col0, err, errlen);
    void *buf[2] = {malloc(rows * cols * 8 + 8), malloc(rows * cols * 8 + 8)};
    int rc = 0;
    if (!buf[0] || !buf[1]) {
        snprintf(err, errlen, "cannot allocate the unfused map's intermediate buffers");
        rc = GP_ENOMEM;
    }
    const void *cur = in;
    gp_rtype t = m->in;
    int swap = m->in_swap;
    for (int k = 0; k < m->nops && !rc; k++) {
        gp_mapchain one = {.in = t, .in_swap = swap, .cols = m->cols, .nops = 1};
        one.ops[0] = m->ops[k];
        void *dst = k == m->nops - 1 ? out : buf[k % 2];
        rc = gp_cpu_map(&one, cur, dst, rows, cols, col0, err, errlen);
        cur = dst;
        t = m->ops[k].to;
        swap = 0;
    }
    free(buf[0]);
    free(buf[1]);
    return rc;
}

static int map_apply(void *ctx, const void *in, void *out, size_t rows, size_t cols, size_t col0, char *err,
                     size_t errlen)
{
    gp_mapctx *c = ctx;
    if (c->cuda) return gp_cuda_map_apply_host(c->cuda, in, out, rows, cols, col0, err, errlen);
    if (c->unfused) return apply_unfused(&c->chain, in, out, rows, cols, col0, err, errlen);
    return gp_cpu_map(&c->chain, in, out, rows, cols, col0, err, errlen);
}

void gp_map_bind(gp_mapctx *ctx, gp_map *m)
{
    m->out_type = gp_map_native_hid(gp_mapchain_out(&ctx->chain));
    m->apply = map_apply;
    m->ctx = ctx;
}

#ifndef GP_HAVE_CUDA
/* ---- builds without CUDA ------------------------------------------------------------------- */
int gp_cuda_map_create(gp_cuda_map **out, const gp_mapchain *m, int device, gp_cmap_mode mode, char *err,
                       size_t errlen)
{
    (void)m; (void)device; (void)mode;
    *out = NULL;
    if (err) snprintf(err, errlen, "gpipe was built without CUDA");
    return GP_ENODEV;
}
void gp_cuda_map_destroy(gp_cuda_map *c) { (void)c; }
int gp_cuda_map_uses_const(const gp_cuda_map *c) { (void)c; return 0; }
const char *gp_cuda_map_desc(const gp_cuda_map *c) { (void)c; return "none"; }
int gp_cuda_map_apply_dev(gp_cuda_map *c, const void *d_in, void *d_out, size_t rows, size_t cols, size_t col0,
                          gp_cmap_layout layout, int use_const, void *stream, char *err, size_t errlen)
{
    (void)c; (void)d_in; (void)d_out; (void)rows; (void)cols; (void)col0; (void)layout; (void)use_const; (void)stream;
    if (err) snprintf(err, errlen, "gpipe was built without CUDA");
    return GP_ENODEV;
}
int gp_cuda_map_check(gp_cuda_map *c, char *err, size_t errlen)
{
    (void)c;
    if (err) snprintf(err, errlen, "gpipe was built without CUDA");
    return GP_ENODEV;
}
int gp_cuda_map_apply_host(gp_cuda_map *c, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                           char *err, size_t errlen)
{
    (void)c; (void)in; (void)out; (void)rows; (void)cols; (void)col0;
    if (err) snprintf(err, errlen, "gpipe was built without CUDA");
    return GP_ENODEV;
}
#endif
