/* kernels/cuda/cuda_kernels.h — the CUDA transpose kernels' launcher and the kernel bench.
 * C-callable; include only from code that is built when CUDA is enabled. */
#ifndef GP_CUDA_KERNELS_H
#define GP_CUDA_KERNELS_H
#include <stddef.h>
#include <cuda_runtime.h>
#include "kernels/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_dst (cols x rows) = transpose of d_src (rows x cols); both device pointers, dense row-major,
 * elements of esize bytes (any esize >= 1; bytes moved exactly). Asynchronous on stream.
 * Returns 0, GP_EINVAL (esize 0, overlapping buffers) or GP_EDEVICE (launch failed; the CUDA
 * error is left for cudaGetLastError/the caller's next sync to report). */
int gp_cuda_transpose_dev(const void *d_src, void *d_dst, size_t rows, size_t cols, size_t esize,
                          gp_tile_layout layout, cudaStream_t stream);

/* Same, with tuning bits for the benchmark (0 = what gp_cuda_transpose_dev runs):
 * GP_CUDA_TUNE_ALT picks the alternative tile shape / block size of the vector kernels,
 * GP_CUDA_TUNE_STREAM uses streaming cache hints (ld.global.cs / st.global.cs),
 * GP_CUDA_TUNE_COLMAJOR walks the tiles in column-major order (neighbouring blocks write
 * neighbouring dst tiles instead of reading neighbouring src tiles). */
enum { GP_CUDA_TUNE_ALT = 1, GP_CUDA_TUNE_STREAM = 2, GP_CUDA_TUNE_COLMAJOR = 4,
       /* two more tile shapes (swizzled layout only; kernels/cuda/transpose.cu) */
       GP_CUDA_TUNE_CFG_C = 8, GP_CUDA_TUNE_CFG_D = 16,
       /* the cp.async pipelined kernel (k_async); ALT, CFG_C, CFG_D, CFG_E, CFG_F pick its
        * shape, COLMAJOR and the layout apply; with STREAM the tile rows come through the bulk
        * copy engine (cp.async.bulk + mbarrier; layouts none, or pad for pad and swizzle) */
       GP_CUDA_TUNE_ASYNC = 32,
       /* tiles in panels (every vector kernel): row-major inside panels ~2 KB of src row wide,
        * with COLMAJOR column-major inside panels ~2 KB of dst row tall */
       GP_CUDA_TUNE_GROUP = 64,
       /* more shapes: k_vec / k_vec1h with fewer registers per load in flight (CFG_E, CFG_F,
        * both), or with ASYNC two k_async shapes with ~64 KB in flight per SM */
       GP_CUDA_TUNE_CFG_E = 128, GP_CUDA_TUNE_CFG_F = 256 };
int gp_cuda_transpose_dev_tuned(const void *d_src, void *d_dst, size_t rows, size_t cols,
                                size_t esize, gp_tile_layout layout, int tune,
                                cudaStream_t stream);

/* Tests only: cap k_async's persistent grid at `blocks` (0 = one wave of resident blocks), so
 * that small matrices run many tiles per block through the stage ring. Not thread-safe. */
void gp_cuda_async_grid_cap(int blocks);

/* Bench and tests only: the panel size of the GROUP tile orders in bytes (0 = 2048). Not
 * thread-safe. */
void gp_cuda_tile_group_bytes(size_t bytes);
/* The tuning bits gp_cuda_transpose_dev runs for an element size (0 for the other sizes). */
int gp_cuda_default_tune(size_t esize);

/* The device ordinal of a CUDA backend, and the NCCL exchange functions put into its table
 * (kernels/cuda/nccl.cu; nothing where nccl.h was missing at build time). */
int gp_cuda_backend_device(gp_backend *b);
void gp_cuda_nccl_attach(gp_backend *b);
/* nccl-tests' all-to-all on the backend's communicator (bench/bench_exchange.c's ceiling). */
int gp_cuda_nccl_alltoall(gp_backend *b, const void *d_send, void *d_recv, size_t bytes_per_peer, char *err,
                          size_t errlen);

/* The layout GP_TILE_DEFAULT resolves to for an element size (measured, see bench/NOTES.md). */
gp_tile_layout gp_cuda_default_layout(size_t esize);

/* Name of a layout: "default", "none", "pad", "swizzle", "naive". */
const char *gp_cuda_layout_name(gp_tile_layout layout);

/* `gpipe bench kernels [--size-mib N] [--reps N] [--json FILE|-] [--tune]`.
 * argv[0] is the first option (or the program name: a leading non-option is skipped).
 * Returns 0, or 2 with a message on stderr. */
int gp_cuda_bench_kernels(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
