/* pipeline/gpipe.h — the library's face: what main.c (and any other client) calls.
 * Every entry point is collective over the communicator it is given; on failure each rank
 * returns the same negative gp_status and the same gp_error (message of the first failing rank). */
#ifndef GPIPE_H
#define GPIPE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>
#include "pipeline/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gp_error {
    gp_status code;   /* 0 when no error */
    int rank;         /* rank the message came from (-1: none) */
    char msg[1024];   /* one line, no trailing newline, names file/dataset and cause */
} gp_error;

/* How the blocks reach their owner: all-to-all of transposed row panels, or each rank reading the
 * column slab it owns and letting MPI-IO's collective buffering do the exchange; auto (the
 * default, 0) picks one per run (docs/ARCHITECTURE.md, "Which strategy"). */
typedef enum { GP_STRATEGY_AUTO = 0, GP_STRATEGY_ALLTOALL = 1, GP_STRATEGY_DIRECT = 2 } gp_strategy;

/* An element-wise stage fused into the transpose (job files: cast, scale, affine, standardize):
 * applied to each panel as it is read, before the transpose, on the worker thread. in is
 * rows x cols elements of the input's type; out receives rows x cols elements of out_type.
 * col0 is the panel's first column of A (for per-column coefficients). Returns 0 or a negative
 * gp_status with a message in err. */
typedef struct gp_map {
    int64_t out_type;   /* hid_t of the result type: the output dataset's type */
    int (*apply)(void *ctx, const void *in, void *out, size_t rows, size_t cols, size_t col0,
                 char *err, size_t errlen);
    void *ctx;
} gp_map;

typedef struct gp_transpose_opts {
    const char *input;          /* HDF5 file */
    const char *dataset;        /* NULL: the only 2-D dataset in the file */
    const char *output;         /* NULL: <dir>/<stem>.T.h5 */
    const char *output_dataset; /* NULL: same path as the input dataset */
    int force;                  /* overwrite an existing output */
    const char *device;         /* "auto" (default), "cpu", "cuda" */
    size_t mem;                 /* per-rank host budget in bytes, 0: automatic */
    size_t gpu_mem;             /* per-rank GPU budget in bytes, 0: what the GPU has free */
    size_t panel_rows;          /* rows per rank per panel, 0: from the budget */
    int threads;                /* CPU backend: transpose threads per rank, 0: automatic */
    gp_strategy strategy;
    const char *exchange;       /* "auto" (default), "mpi", "nccl" (GPU to GPU, one rank per GPU) */
    size_t chunk_rows, chunk_cols; /* output chunk shape, 0: contiguous */
    int progress;               /* 1: progress lines on stderr every few seconds (rank 0) */
    int resume;                 /* continue the interrupted run whose partial output exists */
    const gp_map *map;          /* NULL, or an element-wise stage applied before the transpose */
    int quiet;                  /* no summary on stderr */
    const char *json;           /* JSON-lines summary to this file ("-" = stdout), or NULL */
} gp_transpose_opts;

gp_status gp_transpose(MPI_Comm comm, const gp_transpose_opts *o, gp_error *err);

typedef struct gp_gen_opts {
    const char *output;
    const char *dataset;   /* default /data */
    size_t rows, cols;
    const char *dtype;     /* i8..u64 f16 f32 f64 c64 c128 with optional be/le suffix */
    size_t chunk_rows, chunk_cols; /* 0: contiguous */
    unsigned long long seed;
    int force;
    int quiet;
} gp_gen_opts;

gp_status gp_gen(MPI_Comm comm, const gp_gen_opts *o, gp_error *err);

/* Lists every dataset of a file (one line each) on `out`. Rank 0 reads; all ranks return. */
gp_status gp_info(MPI_Comm comm, const char *path, int json, FILE *out, gp_error *err);

/* Parsing helpers shared by the CLI and job files. */
gp_status gp_parse_size(const char *s, size_t *out);             /* 123, 64K, 2G, 1.5T */
gp_status gp_parse_shape(const char *s, size_t *r, size_t *c);   /* RxC, both >= 1 */
gp_status gp_parse_threads(const char *s, int *n);               /* 1..64 */
gp_status gp_parse_strategy(const char *s, gp_strategy *st);     /* auto, alltoall, direct */
const char *gp_strategy_name(gp_strategy st);
gp_status gp_parse_result_type(const char *s, int *input);       /* wide (0), input (1) */

#ifdef __cplusplus
}
#endif
#endif
