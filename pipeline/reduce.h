/* pipeline/reduce.h — reductions, stats and verify (issue 5): the drivers' options, and the
 * panel kernels both backends implement with identical semantics (kernels/cpu/reduce.c,
 * kernels/cuda/reduce.cu). Exact sums go through pipeline/xacc.h, so every backend, rank count
 * and panel size produces the same bits. */
#ifndef GP_REDUCE_H
#define GP_REDUCE_H
#include <stddef.h>
#include <stdint.h>
#include "pipeline/xacc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types the kernels read (native byte order; HDF5 converts on read). f16 is read as f32. */
typedef enum {
    GP_RT_I8, GP_RT_I16, GP_RT_I32, GP_RT_I64,
    GP_RT_U8, GP_RT_U16, GP_RT_U32, GP_RT_U64,
    GP_RT_F32, GP_RT_F64, GP_RT_N
} gp_rtype;
typedef enum { GP_OP_SUM, GP_OP_MEAN, GP_OP_SUMSQ, GP_OP_NORM2, GP_OP_MIN, GP_OP_MAX, GP_OP_ABSMAX,
               GP_OP_ARGMIN, GP_OP_ARGMAX, GP_OP_N } gp_rop;
typedef enum { GP_AXIS_ALL, GP_AXIS_ROWS, GP_AXIS_COLS } gp_raxis;
/* What the kernels compute for an op. */
typedef enum { GP_RK_SUM, GP_RK_SQ, GP_RK_MIN, GP_RK_MAX, GP_RK_ABSMAX, GP_RK_ARGMIN, GP_RK_ARGMAX } gp_rkind;

const char *gp_rop_name(gp_rop op);
const char *gp_rtype_name(gp_rtype t);
size_t gp_rtype_size(gp_rtype t);
int gp_rtype_is_float(gp_rtype t);
int gp_rtype_is_unsigned(gp_rtype t);
gp_rkind gp_rop_kind(gp_rop op);
/* Accumulator format for an exact sum (kind SUM or SQ) of elements of type t. */
gp_xfmt gp_rfmt(gp_rtype t, gp_rkind k);
/* int64 words per target of a sum accumulator: limbs + NaN/+Inf/-Inf counts. */
static inline size_t gp_rwords(gp_xfmt f) { return (size_t)f.nl + GP_XSPECIAL; }

/* ---- panel kernels (CPU) ----------------------------------------------------------------
 * buf is rows x cols of type t, row-major. Sum kinds ADD into accumulators of gp_rwords(f)
 * int64 each, left normalised (so that accumulators of any number of panels and ranks merge by
 * plain int64 addition). Extremum kinds fold keys (gp_key_*) into key[] and count NaNs.
 * axis ALL: one target; ROWS: target i = row i of the panel; COLS: target j = column j. */
void gp_cpu_rsum(const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                 gp_xfmt f, int64_t *acc);
void gp_cpu_rext(const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                 uint64_t *key, int64_t *nan);
/* Identity key of an extremum kind (min, argmin: all ones; max, absmax, argmax: 0). */
GPX uint64_t gp_rext_identity(gp_rkind k) { return k == GP_RK_MIN || k == GP_RK_ARGMIN ? ~0ull : 0ull; }

/* argmin / argmax: (key, index) pairs. Keys are the extremum keys (gp_key_d / gp_key_i / the
 * unsigned value); a NaN gets the key that wins (argmin 0, argmax all ones: no non-NaN value
 * has it), so the result is the first NaN when there is one, as numpy.argmin/argmax. Ties go to
 * the smallest index: the order (key, index) is total, so panels, ranks and threads may merge
 * partial results in any order. An index of GP_RARG_NONE means "no element". */
#define GP_RARG_NONE (~0ull)
GPX int gp_rkind_is_arg(gp_rkind k) { return k == GP_RK_ARGMIN || k == GP_RK_ARGMAX; }
GPX uint64_t gp_rarg_nankey(gp_rkind k) { return k == GP_RK_ARGMIN ? 0ull : ~0ull; }
/* 1 when (k1, i1) beats (k2, i2). */
GPX int gp_rarg_better(int mn, uint64_t k1, uint64_t i1, uint64_t k2, uint64_t i2)
{
    return (mn ? k1 < k2 : k1 > k2) || (k1 == k2 && i1 < i2);
}
/* CPU: folds the panel into (key, idx) per target, idx as global indices: axis ALL the flat
 * row-major index (row0 + r) * cols + c, ROWS the column c, COLS the row row0 + r. Start from
 * key = gp_rext_identity(k), idx = GP_RARG_NONE. */
void gp_cpu_rarg(const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rkind k, gp_raxis axis,
                 uint64_t *key, uint64_t *idx);

/* ---- panel kernels (CUDA; kernels/cuda/reduce.cu, stubs without CUDA) ---------------------
 * Same contracts as the CPU kernels, on a host panel; device state lives in the context.
 * gp_cuda_rsum, axis ROWS of a float type: rowval[i] = the exact sum of row i rounded once (the
 * bits gp_xvalue gives for the CPU's accumulator; acc is not touched); every other case ADDs into
 * acc like gp_cpu_rsum. gp_cuda_rarg: like gp_cpu_rarg. */
typedef struct gp_cuda_reduce gp_cuda_reduce;
int gp_cuda_reduce_create(gp_cuda_reduce **out, int local_rank, char *err, size_t errlen);
void gp_cuda_reduce_destroy(gp_cuda_reduce *c);
const char *gp_cuda_reduce_desc(gp_cuda_reduce *c);
int gp_cuda_rsum(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                 gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen);
int gp_cuda_rext(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                 gp_raxis axis, uint64_t *key, int64_t *nan, char *err, size_t errlen);
int gp_cuda_rarg(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                 gp_rkind k, gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen);

/* Device panels (bench/bench_reduce_gpu.cu): the same kernels as the calls above on a panel that
 * is already in device memory (dx, 16-byte aligned), enqueued on the context's stream
 * (gp_cuda_reduce_stream) with no host copy and no wait. *_fetch waits for them and merges the
 * results into the host arrays exactly like the host calls (the calls above are upload + _dev +
 * _fetch). dx must still hold the panel at _fetch (rare targets the fast kernels cannot finish
 * exactly are recomputed from it). */
int gp_cuda_rsum_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                     gp_raxis axis, gp_xfmt f, char *err, size_t errlen);
int gp_cuda_rsum_fetch(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                       gp_raxis axis, gp_xfmt f, int64_t *acc, double *rowval, char *err, size_t errlen);
int gp_cuda_rext_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                     gp_raxis axis, char *err, size_t errlen);
int gp_cuda_rext_fetch(gp_cuda_reduce *c, size_t rows, size_t cols, gp_rtype t, gp_rkind k, gp_raxis axis,
                       uint64_t *key, int64_t *nan, char *err, size_t errlen);
int gp_cuda_rarg_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, gp_rtype t, gp_rkind k,
                     gp_raxis axis, char *err, size_t errlen);
int gp_cuda_rarg_fetch(gp_cuda_reduce *c, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rkind k,
                       gp_raxis axis, uint64_t *key, uint64_t *idx, char *err, size_t errlen);
/* The context's CUDA stream (a cudaStream_t), and a kernel that keeps the GPU busy for `cycles`
 * clocks on it (a benchmark queues the work it times behind it, so no host gap is timed). */
void *gp_cuda_reduce_stream(gp_cuda_reduce *c);
void gp_cuda_reduce_spin(gp_cuda_reduce *c, long long cycles);
/* Kernel configuration, e.g. "kernels=fast,bs=256,bps=8,unroll=4" (also read from the environment
 * variable GP_CUDA_REDUCE at create): kernels fast (default) or legacy (the first version: a
 * superaccumulator per target on every axis), threads per block (64..512), blocks per SM of the
 * grid-stride kernels (1..64, at most what fits), 16-byte loads in flight per thread for f32 sums
 * (2, 4, 8). Results never depend on it. */
int gp_cuda_reduce_tune(gp_cuda_reduce *c, const char *spec, char *err, size_t errlen);
const char *gp_cuda_reduce_tuning(gp_cuda_reduce *c);
/* Page-locks (cudaHostRegister) a host panel buffer the calls above will upload from; 1 when
 * done, 0 when refused (the buffer stays usable, uploads run at the pageable rate). Unpin it before
 * it is freed. */
int gp_cuda_reduce_pin(gp_cuda_reduce *c, void *buf, size_t bytes);
void gp_cuda_reduce_unpin(gp_cuda_reduce *c, void *buf);
/* Targets of the last _fetch that the fast kernels handed to the exact fallback. */
size_t gp_cuda_reduce_fallbacks(gp_cuda_reduce *c);

/* ---- stats (one pass) ---------------------------------------------------------------------- */
typedef struct gp_rstats {
    gp_xfmt fs, fq;                 /* formats of s and q */
    int64_t s[GP_XNL_MAX];          /* exact sum of the finite values */
    int64_t q[GP_XNL_MAX];          /* exact sum of their squares (f64: with the FMA error term) */
    uint64_t kmin, kmax;            /* keys of min and max over non-NaN values */
    int64_t count, finite, nan, pinf, ninf;
    int64_t qover;                  /* finite values whose square overflows f64 (std = Inf) */
    uint64_t checksum;              /* sum mod 2^64 of XXH3(value bytes, seed = row*cols + col) */
} gp_rstats;
void gp_rstats_init(gp_rstats *s, gp_rtype t);
/* Adds a panel whose first row is global row row0 of a matrix with `cols` columns. */
void gp_cpu_rstats(const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t, gp_rstats *s);
/* stats of a panel on the GPU (gpipe stats --device cuda): adds it into s like gp_cpu_rstats, the
 * same bits (exact sums by the sum kernels, the rest by one fingerprint-and-extrema kernel).
 * _dev: the panel is already in device memory (16-byte aligned); both wait for the results. */
int gp_cuda_rstats(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t row0, gp_rtype t,
                   gp_rstats *s, char *err, size_t errlen);
int gp_cuda_rstats_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, size_t row0, gp_rtype t,
                       gp_rstats *s, char *err, size_t errlen);
/* verify's fingerprints on the GPU: out[i] = sum mod 2^64 over the row (axis ROWS) or column
 * (axis COLS) i of a host panel of `esize`-byte elements (1, 2, 4 or 8) of gp_rhash(element, seed0
 * + r * rstep + c * cstep): what gp_rhash_run gives row by row or column by column. */
int gp_cuda_rhash(gp_cuda_reduce *c, const void *buf, size_t rows, size_t cols, size_t esize, uint64_t seed0,
                  uint64_t rstep, uint64_t cstep, gp_raxis axis, uint64_t *out, char *err, size_t errlen);
/* its last step alone (for the benchmark): fingerprint, extrema and NaN/Inf counts into s */
int gp_cuda_rstats_aux_dev(gp_cuda_reduce *c, const void *dx, size_t rows, size_t cols, size_t row0, gp_rtype t,
                           gp_rstats *s, char *err, size_t errlen);

/* The rest is host-side only (MPI, HDF5). */
#ifndef __CUDACC__
#ifdef __cplusplus
}
#endif
#include <mpi.h>
#include <hdf5.h>
#include "io/h5.h"
#include "pipeline/gpipe.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Merges over comm (exact: integer sums of normalised limbs). Collective. */
void gp_rstats_allreduce(MPI_Comm comm, gp_rstats *s);
/* mean and population std (ddof 0) of the finite values, from the exact s and q:
 * var = (n q - s^2) / n^2 with n q - s^2 computed exactly. */
void gp_rstats_moments(const gp_rstats *s, double *mean, double *std);

/* Per-element fingerprint of verify/stats: XXH3_64 of the value bytes seeded by the element's
 * linear index in A's coordinates. */
uint64_t gp_rhash(const void *val, size_t esize, uint64_t index);
/* Sum mod 2^64 of gp_rhash(p + i * esize, esize, seed + i * step) over i < n: a row (step 1) or
 * a column seen through a transpose (step = the row length), vectorised for 1, 2, 4, 8 bytes. */
uint64_t gp_rhash_run(const void *p, size_t n, size_t esize, uint64_t seed, uint64_t step);

/* ---- drivers -------------------------------------------------------------------------------- */
typedef struct gp_reduce_opts {
    const char *input, *dataset;
    gp_rop op;
    gp_raxis axis;
    const char *output, *output_dataset;   /* output NULL: no HDF5 output */
    int force;
    const char *json;                      /* NULL, "-" (stdout) or a file (appended) */
    const char *device;                    /* auto, cpu, cuda */
    size_t mem, panel_rows;
    int quiet;
    int result_input;                      /* --result-type input: results in the input's type (f32 for
                                            * f32 data, the integer type for integers); 0: wide (f64,
                                            * i64, u64) */
} gp_reduce_opts;
gp_status gp_reduce(MPI_Comm comm, const gp_reduce_opts *o, gp_error *err);

typedef struct gp_stats_opts {
    const char *input, *dataset, *json;
    const char *device;             /* auto (NULL), cpu or cuda */
    size_t mem, panel_rows;
    int quiet;
} gp_stats_opts;
gp_status gp_stats(MPI_Comm comm, const gp_stats_opts *o, gp_error *err);

typedef struct gp_verify_opts {
    const char *a, *b, *dset_a, *dset_b, *json;
    const char *device;             /* auto (NULL), cpu or cuda: where the fingerprints are computed */
    int transposed;
    size_t mem, panel_rows;
    int quiet;
} gp_verify_opts;
/* Returns GP_OK with *differ = 0 (equal) or 1 (different; a message naming a location in
 * *msg on every rank), or an error. */
gp_status gp_verify(MPI_Comm comm, const gp_verify_opts *o, int *differ, char *msg, size_t msglen,
                    gp_error *err);

/* ---- shared by the drivers (reduce.c) ------------------------------------------------------- */
typedef struct gp_rin {
    gp_h5_in h;                     /* file, dataset, file type, rows, cols */
    hid_t mtype;                    /* memory type HDF5 converts to on read (native order) */
    gp_rtype t;                     /* kernels' element type (numeric inputs) */
    size_t esize;                   /* bytes of one element in memory */
    int is_numeric;                 /* 0: raw bytes (file type as memory type) */
    char tdesc[256];                /* the file type, e.g. "f32 BE" */
} gp_rin;
typedef enum {
    GP_RIN_ANY = 0,      /* numeric types converted to native, anything else read as raw bytes */
    GP_RIN_NUMERIC = 1,  /* numeric types converted to native; anything else is an error */
    GP_RIN_RAW = 2       /* the file type as the memory type, byte order included (the maps swap) */
} gp_rin_mode;
gp_status gp__rin_open(MPI_Comm comm, const char *path, const char *dataset, gp_rin_mode mode, gp_rin *in,
                       gp_error *e);
void gp__rin_close(gp_rin *in);
/* Collective read of rows [row0, +nrows) x cols [col0, +ncols) in the memory type (nrows may
 * be 0); ncols = (size_t)-1: every column. */
gp_status gp__rin_read(gp_rin *in, size_t row0, size_t nrows, size_t col0, size_t ncols, void *buf,
                       gp_error *e);
/* Per-rank budget: --mem or the default (collective). */
size_t gp__rmem(MPI_Comm comm, size_t mem);
/* Backend choice for --device: *use_cuda set; on cuda, *cu created. Agreed by the caller. */
gp_status gp__rdevice(MPI_Comm comm, const char *device, int *use_cuda, gp_cuda_reduce **cu, gp_error *e);
/* Append one JSON line (jansson object, stolen) to path ("-": stdout). Rank 0 only. */
void gp__rjson(const char *path, void *json_obj, gp_error *e);
/* Rows per panel so that nbuf panel buffers plus `fixed` bytes fit in mem (at least 1). */
size_t gp__rpanel_rows(size_t cols, size_t esize, size_t per_row_extra, int nbuf, size_t mem,
                       size_t fixed, size_t panel_rows, size_t max_rows);
/* The smallest panel rows over the ranks (collective): every rank must stream the same panels,
 * and what fits a rank's --mem depends on its own rows (per-row results) and device (a GPU rank
 * keeps per-row sums: --device auto with a GPU on some ranks only). */
size_t gp__rpanel_agree(MPI_Comm comm, size_t k);
/* Exact, reproducible MPI merge of int64 words by summation (counts of any size). */
int gp__rallsum_i64(MPI_Comm comm, int64_t *v, size_t n);

/* ---- the panel stream (rstream.c): read panel p + 1 while a worker thread works on panel p ---- */
typedef struct gp_rpanel {         /* what the work sees of one panel */
    size_t index;                  /* panel number */
    size_t row0, rows;             /* its first row in the file and the rows read here (may be 0) */
    const void *buf;               /* rows x cols elements in the memory type */
    int rc;                        /* set by the work: nonzero fails the panel, msg says why */
    char msg[512];
} gp_rpanel;
typedef struct gp_rstream_ops {
    const char *what;              /* "<input>: <what> of panel <p> on <backend> failed: <msg>" */
    /* optional: how many of the n rows from row0 of a panel to read (0 skips them) */
    size_t (*select)(size_t row0, size_t n, void *ctx);
    void (*work)(gp_rpanel *pn, void *ctx);                   /* on the worker thread (optional) */
    /* optional: then on this thread, on every rank once the work's errors are agreed (so it may
     * be collective) */
    void (*done)(gp_rpanel *pn, void *ctx, gp_error *e);
    void *ctx;
    const char *backend;           /* where the work runs, for messages (NULL: cu's or "cpu") */
} gp_rstream_ops;
typedef struct gp_rstream {
    void *buf[2];                  /* two panel buffers of `bytes` */
    size_t bytes, npanels;         /* npanels: of the last run (every rank the same) */
    int pinned;                    /* both buffers page-locked for cu's uploads */
    int serial;                    /* one buffer, the work on this thread between the reads */
    struct gp_worker *worker;
    gp_cuda_reduce *cu;            /* the GPU, or NULL */
    double tread, twork;           /* this rank's seconds in reads and in work, over all runs */
} gp_rstream;
typedef enum {
    GP_RWORK_LIGHT = 0,   /* memory-bound CPU work (a max, a sum; nothing: a copy) */
    GP_RWORK_HEAVY = 1,   /* CPU work worth a second CPU (stats, fingerprints, column moments, maps) */
    GP_RWORK_GPU = 2      /* work that mostly waits on a GPU */
} gp_rwork;
/* Buffers of `bytes` (two and a worker thread when overlapped: with cu or GPU work, or heavy
 * CPU work where a rank has a second CPU; one mode for all ranks, overlapped if any rank wants
 * it), pinned for cu (if not NULL). Collective. -1: out of memory (gp__rstream_close still
 * required). Panels are sized for two buffers either way: one buffer of twice the size measured
 * slower (bench/NOTES.md, twenty-fifth session). */
int gp__rstream_open(MPI_Comm comm, gp_rstream *s, size_t bytes, gp_cuda_reduce *cu, gp_rwork work);
void gp__rstream_close(gp_rstream *s);
/* "upload from pinned panels + ", "upload from pageable panels + " or "" (no GPU). */
const char *gp__rstream_desc(const gp_rstream *s);
/* "read and work in turn" (one buffer) or "read beside work" (two, a worker thread). */
const char *gp__rstream_mode(const gp_rstream *s);
/* Streams this rank's rows of `in` (gp__split over comm) in panels of k rows through ops.
 * Collective; errors (the work's, a read's, the done callback's) are agreed on after each
 * panel. */
gp_status gp__rstream_run(MPI_Comm comm, gp_rstream *s, gp_rin *in, size_t k, const gp_rstream_ops *ops,
                          gp_error *e);
#endif /* !__CUDACC__ */

#ifdef __cplusplus
}
#endif
#endif
