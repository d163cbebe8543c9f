/* pipeline/map.h — element-wise map stages of job files (issue 6): cast, scale, affine and
 * standardize, fused into one chain that runs in one pass over a panel (kernels/cpu/map.c,
 * kernels/cuda/map.cu), on its own or inside the transpose (gp_transpose_opts.map).
 *
 * Semantics (identical on every backend, fused or not; docs/jobs.md):
 *   - a value travels as an f64; each op's result is rounded to that op's result type `to`:
 *     affine: x*a + b as two correctly rounded f64 operations (never contracted to an FMA), then
 *     rounded to f32 when `to` is f32 (round to nearest even); cast to f32/f64: round to nearest
 *     even (IEEE, as HDF5 and numpy), overflow gives +-Inf; cast to an integer type: round half
 *     to even, then NaN or a value outside the type's range is an error (never a silent wrap).
 *   - integer inputs beyond 2^53 in magnitude are rounded when loaded (they travel as f64).
 *   Because every op rounds to its own result type, running the ops one pass each (unfused)
 *   gives the same bits as the fused chain. */
#ifndef GP_MAP_H
#define GP_MAP_H
#include <stddef.h>
#include <stdint.h>
#include "pipeline/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_MAP_MAXOPS 16

typedef enum { GP_MAPOP_AFFINE = 0, GP_MAPOP_CAST = 1 } gp_mapop_kind;

typedef struct gp_mapop {
    int kind;              /* gp_mapop_kind */
    gp_rtype to;           /* result type: AFFINE f32 or f64; CAST any gp_rtype */
    double a, b;           /* AFFINE scalars (used where av / bv is NULL) */
    const double *av, *bv; /* AFFINE per-column vectors (gp_mapchain.cols entries) or NULL */
} gp_mapop;

typedef struct gp_mapchain {
    gp_rtype in;           /* element type of the input panel */
    int in_swap;           /* 1: input elements are in the opposite byte order (big-endian files) */
    size_t cols;           /* columns of the whole matrix A: length of every per-column vector */
    int nops;
    gp_mapop ops[GP_MAP_MAXOPS];
} gp_mapchain;

/* Result type of the chain (its input type when it has no op). */
gp_rtype gp_mapchain_out(const gp_mapchain *m);
/* Result type of an affine op on values of type t: f32 stays f32, everything else gives f64. */
static inline gp_rtype gp_map_affine_type(gp_rtype t) { return t == GP_RT_F32 ? GP_RT_F32 : GP_RT_F64; }
/* Parse "i8".."u64", "f32", "f64" (also int8.., uint8.., float32, float64, float, double). */
int gp_map_parse_type(const char *s, gp_rtype *t);
/* Bytes of per-column coefficient table the chain needs on a device (a and b of every op with a
 * vector, f64 each). */
size_t gp_mapchain_table_bytes(const gp_mapchain *m);

/* CPU: out (rows x cols of the chain's result type) = chain(in) (rows x cols of m->in, row
 * major); column c of the panel is column col0 + c of A. Returns 0, or GP_EINVAL with a message
 * (a cast of NaN or of an out-of-range value to an integer type, naming the panel row and the
 * column of A). in and out may not overlap. */
int gp_cpu_map(const gp_mapchain *m, const void *in, void *out, size_t rows, size_t cols, size_t col0,
               char *err, size_t errlen);

/* ---- CUDA (kernels/cuda/map.cu; without CUDA every call returns GP_ENODEV) -------------------
 * Per-column coefficients live in __constant__ memory (one 64000-byte table per process, taken
 * by the first context that asks for it) when the table fits and a warp reads one coefficient
 * (GP_CMAP_COLS layout: the buffer is the transposed panel, a row per column of A), else they
 * are read through the read-only path (const __restrict__ + __ldg). They are uploaded once, when
 * the context is created. */
typedef enum { GP_CMAP_AUTO = 0, GP_CMAP_CONST = 1, GP_CMAP_LDG = 2 } gp_cmap_mode;
typedef enum {
    GP_CMAP_ROWS = 0,  /* buffer rows x cols of A: coefficient of (r, c) is col0 + c */
    GP_CMAP_COLS = 1   /* buffer of the transposed panel, rows x cols with row r = column col0 + r */
} gp_cmap_layout;
#define GP_CMAP_CONST_BYTES 64000
typedef struct gp_cuda_map gp_cuda_map;
/* device < 0: the current device. mode AUTO: constant when it fits (and is free), else ldg;
 * CONST fails (GP_EINVAL) when the table does not fit or another context holds it. */
int gp_cuda_map_create(gp_cuda_map **out, const gp_mapchain *m, int device, gp_cmap_mode mode, char *err,
                       size_t errlen);
void gp_cuda_map_destroy(gp_cuda_map *c);
/* 1 when the coefficients are in constant memory. */
int gp_cuda_map_uses_const(const gp_cuda_map *c);
const char *gp_cuda_map_desc(const gp_cuda_map *c);
/* Device buffers, asynchronous on stream (a cudaStream_t, NULL: the legacy default stream).
 * use_const -1: the context's choice; 0/1 force the path (1 only when the context holds the
 * constant table). Errors of the values (casts) are collected on the device: call
 * gp_cuda_map_check after synchronising. */
int gp_cuda_map_apply_dev(gp_cuda_map *c, const void *d_in, void *d_out, size_t rows, size_t cols, size_t col0,
                          gp_cmap_layout layout, int use_const, void *stream, char *err, size_t errlen);
/* Synchronises the context's stream and reports the first value error since the last check. */
int gp_cuda_map_check(gp_cuda_map *c, char *err, size_t errlen);
/* Host buffers: copies in, maps on the device (GP_CMAP_ROWS), copies out; synchronous. Same
 * contract as gp_cpu_map (the bits are identical). Call from one thread at a time. */
int gp_cuda_map_apply_host(gp_cuda_map *c, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                           char *err, size_t errlen);

/* ---- gp_map adapters for the drivers (pipeline/map.c) ------------------------------------- */
typedef struct gp_mapctx {
    gp_mapchain chain;
    int unfused;           /* 1: one pass per op (intermediate buffers), for testing fusion */
    gp_cuda_map *cuda;     /* non-NULL: run on the GPU (coefficients uploaded once) */
} gp_mapctx;
/* Fills a gp_map (apply/ctx/out_type) that runs ctx's chain; ctx must outlive it. */
void gp_map_bind(gp_mapctx *ctx, struct gp_map *m);
/* hid_t of the native HDF5 type of t. */
int64_t gp_map_native_hid(gp_rtype t);

#ifdef __cplusplus
}
#endif
#endif
