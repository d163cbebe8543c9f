/* kernels/backend.h — the one table of compute functions the pipeline calls.
 * cpu/ and cuda/ each fill a gp_backend; the pipeline never sees #ifdef CUDA.
 * All buffers handed to a backend are host buffers from its own host_alloc(). */
#ifndef GP_BACKEND_H
#define GP_BACKEND_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shared-memory tile layout of the tiled GPU transpose (ignored on the CPU). */
typedef enum {
    GP_TILE_DEFAULT = 0, /* fastest measured layout for the element size */
    GP_TILE_NONE,        /* plain [T][T] tile: bank conflicts on the column read */
    GP_TILE_PAD,         /* one access width of padding per row (the 32x33 idea) */
    GP_TILE_SWIZZLE,     /* XOR swizzle of the column index by the row */
    GP_TILE_NAIVE        /* no shared memory at all (reference point for benches) */
} gp_tile_layout;

/* One panel of the GPU-to-GPU exchange (transpose_exchange): this rank's rows x cols of A in,
 * its w_me x K block of B out (K = sum of peer_rows; rank p's block in columns
 * [sum_{p' < p} peer_rows[p'], + peer_rows[p])), the write layout of pipeline/exchange.c, with
 * rows recv_ld elements apart (inside a write band of several panels). */
typedef struct gp_xchg_panel {
    size_t rows, cols, esize;
    int nranks, rank;
    const size_t *col_start, *col_count;  /* per rank q: A's columns that are q's rows of B */
    const size_t *peer_rows;              /* per rank p: its rows of A in this panel */
    double seconds[4];                    /* out: host->device, kernel, exchange, device->host */
    size_t recv_ld;                       /* recv's row pitch in elements (0: K); a write band's width */
} gp_xchg_panel;

typedef struct gp_backend gp_backend;
struct gp_backend {
    const char *name;   /* "cpu" or "cuda" */
    void *ctx;          /* backend private state */
    /* Host memory the backend can move fastest (pinned for CUDA). NULL on failure. */
    void *(*host_alloc)(gp_backend *b, size_t bytes);
    /* Optional (NULL: host_alloc): the same for a buffer that will be filled `uses` times (the
     * CPU backend asks for transparent huge pages only when that amortises their cost). */
    void *(*host_alloc_uses)(gp_backend *b, size_t bytes, size_t uses);
    void (*host_free)(gp_backend *b, void *p);
    /* dst (cols x rows) = transpose of src (rows x cols), elements of esize bytes, both dense
     * row-major. Element bytes are moved exactly (any esize >= 1). Returns 0 or a negative
     * gp_status and writes a message into err. */
    int (*transpose)(gp_backend *b, const void *src, void *dst, size_t rows, size_t cols,
                     size_t esize, char *err, size_t errlen);
    void (*destroy)(gp_backend *b);
    /* Optional (NULL where the backend has none): the same on sub-matrices, src with a row pitch
     * of src_pitch elements (>= cols), dst (cols x rows) with a row pitch of dst_pitch (>= rows).
     * The pipeline uses it to transpose the block a rank keeps straight into its receive buffer. */
    int (*transpose_pitched)(gp_backend *b, const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
                             size_t rows, size_t cols, size_t esize, char *err, size_t errlen);
    char desc[128];     /* e.g. "cuda:0 NVIDIA H200 (sm_90)" for logs */
    char dev_id[64];    /* the device's identity on its host (PCI bus id), "" on the CPU */
    size_t dev_mem_limit; /* device memory the backend may take (--gpu-mem), 0: what is free */

    /* Optional device-to-device exchange (NCCL); NULL where the backend has none.
     * xchg_init: collective over the ranks, id from gp_cuda_nccl_unique_id on rank 0.
     * transpose_exchange: collective; every rank calls it for every panel, even after a local
     * failure. xchg_abort: thread-safe; makes a pending or later exchange fail at once. */
    int (*xchg_init)(gp_backend *b, const void *id, int nranks, int rank, char *err, size_t errlen);
    int (*transpose_exchange)(gp_backend *b, const void *src, void *recv, gp_xchg_panel *p, char *err,
                              size_t errlen);
    void (*xchg_abort)(gp_backend *b);
    void (*xchg_destroy)(gp_backend *b);
    void *xctx;
};

/* CPU backend: always available. */
int gp_cpu_backend_create(gp_backend **out, char *err, size_t errlen);
/* The CPU transpose itself (cache-blocked), exposed for tests and benchmarks. */
void gp_cpu_transpose(const void *src, void *dst, size_t rows, size_t cols, size_t esize);
/* The same with row pitches in elements: src rows are ls apart, dst rows ld apart. */
void gp_cpu_transpose_pitched(const void *src, size_t ls, void *dst, size_t ld, size_t rows, size_t cols,
                              size_t esize);

/* CUDA backend: device = local_rank % visible devices. Returns GP_ENODEV (no device or built
 * without CUDA) so that --device auto can fall back to the CPU. */
int gp_cuda_backend_create(gp_backend **out, int local_rank, char *err, size_t errlen);
/* Number of visible CUDA devices (0 when built without CUDA or no driver). */
int gp_cuda_device_count(void);
/* NCCL, loaded at run time: the communicator id (rank 0; len >= 128) and the library version
 * (0 when unavailable; err says why). */
int gp_cuda_nccl_unique_id(void *id, size_t len, char *err, size_t errlen);
int gp_cuda_nccl_version(char *err, size_t errlen);
/* `gpipe bench kernels [options]`: argv[0] is "kernels". Returns the exit code (0 or 2). */
int gp_cuda_bench_kernels(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
