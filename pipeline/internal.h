/* pipeline/internal.h — gp__ helpers shared inside the library: error agreement across ranks,
 * the row/panel plan, the block exchange, small utilities. Not installed. */
#ifndef GP_INTERNAL_H
#define GP_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "pipeline/gpipe.h"

/* ---- errors (error.c) ---------------------------------------------------- */
/* Record a local failure (the first one wins); returns code. */
gp_status gp__fail(gp_error *e, gp_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Put context (e.g. "FILE: DATASET: ") before the recorded message, if any. */
void gp__prefix(gp_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Collective: all ranks learn whether any rank failed. Returns 0 or the failing code; on failure
 * every rank's e holds the message of the lowest failing rank (prefixed "rank N: " when N != 0
 * and the other ranks did not fail the same way). */
gp_status gp__agree(MPI_Comm comm, gp_error *e);
/* Start of every collective entry point: rank and size, MPI errors returned (not fatal), HDF5's
 * automatic error printing off, e cleared. */
void gp__begin(MPI_Comm comm, gp_error *e, int *rank, int *nranks);

/* ---- plan (plan.c) --------------------------------------------------------- */
typedef struct { size_t start, count; } gp_range;
/* Block idx of n items split in `parts` near-equal blocks (first n%parts get one more). */
gp_range gp__split(size_t n, int parts, int idx);

typedef struct gp_plan {
    size_t rows, cols, esize;   /* input A: rows x cols */
    int nranks, rank;
    gp_range *col_blocks;       /* A's columns = output rows of each rank (nranks) */
    size_t panel_rows;          /* k: rows per rank per panel (direct: rows of A per panel) */
    size_t npanels;             /* every rank steps through all of them (lockstep) */
    gp_strategy strategy;
    size_t first_row;           /* rows of A before this are already done (--resume) */
    /* Write bands: S consecutive panels (band b = panels [b S, (b+1) S)) are received into one
     * band buffer (this rank's rows of B x the band's rows of A, row pitch = the band's width)
     * and written together; band_bufs buffers (2: band b is written while band b+1 is being
     * received; 1 when one band holds every panel). Direct: S = 1, the band is the panel. */
    size_t band_panels;         /* S >= 1 */
    int band_bufs;              /* 1 or 2 */
    size_t mem_bytes;           /* every buffer of the plan, per rank (<= --mem when one is given) */
} gp_plan;
/* Bytes one rank needs for panels of k rows with bands of one panel (S = 1): read, send and
 * receive buffers, each twice (double-buffered so that reading, transposing, exchanging and
 * writing overlap). The smallest plan for k; gp__plan_make never picks a k above mem / this(1). */
size_t gp__plan_bytes(gp_strategy st, size_t cols, size_t esize, int nranks, size_t k);
gp_status gp__plan_make(gp_plan *p, gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks,
                        int rank, size_t mem, size_t panel_rows, gp_error *e);
/* The same with a map stage's buffer of mid_esize-byte elements beside each read buffer
 * (0: none). The plan is the same on every rank (it depends on the shape, not on the rank). */
gp_status gp__plan_make2(gp_plan *p, gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks,
                         int rank, size_t mem, size_t panel_rows, size_t mid_esize, gp_error *e);
/* Bytes of every buffer of a plan per rank: two read (+ map) + send buffers of k rows and
 * band_bufs band buffers of S panels (direct: two read + transposed buffers of k x w). */
size_t gp__plan_buffer_bytes(gp_strategy st, size_t rows, size_t cols, size_t esize, int nranks, size_t k,
                             size_t band_panels, int band_bufs, size_t mid_esize);
/* Columns of B (rows of A) one band buffer holds: min(S P k, rows) (direct: k). */
size_t gp__plan_band_capacity(const gp_plan *p);
/* The output's chunk shape when the user gives none: 0 x 0 (contiguous) when one band holds all
 * the rows of A, since each rank's output is then one run of the file; else the widest rank's
 * rows of B x one rank's panels of a band (smaller than HDF5's 4 GiB per chunk), so that a
 * rank's write of a band is whole chunks, each one contiguous run, instead of a short run per
 * row of B. */
void gp__plan_out_chunk(const gp_plan *p, size_t *chunk_rows, size_t *chunk_cols);
/* The band of panel s: rows of A [start, +count) = the columns of B written with it; and the
 * last panel of that band (its write follows that panel's exchange). */
gp_range gp__plan_band(const gp_plan *p, size_t s);
size_t gp__plan_band_last(const gp_plan *p, size_t s);
/* Restrict the plan to rows [first_row, rows) of A (bands restart at first_row). */
void gp__plan_skip_rows(gp_plan *p, size_t first_row);
/* The rows of A completely handled once panel s is written: [0, end). */
size_t gp__plan_rows_done(const gp_plan *p, size_t s);
void gp__plan_free(gp_plan *p);
/* Rows (global indices of A) of rank r in panel (band) s: [(s P + r) k, +k) clipped to A;
 * count 0 when r has none. */
gp_range gp__plan_panel(const gp_plan *p, int r, size_t s);
/* The block of A that rank r reads in panel s: rows x cols. */
void gp__plan_read_block(const gp_plan *p, int r, size_t s, gp_range *rows, gp_range *cols);
/* The column strips of B that this rank writes in panel s (its rows of B x each strip), in
 * increasing column order; returns their number (<= nranks). */
int gp__plan_write_strips(const gp_plan *p, size_t s, size_t *col0, size_t *ncols);

/* ---- exchange (exchange.c) --------------------------------------------------- */
/* Panel s all-to-all: send = this rank's transposed panel (cols x k_me, rows for rank q are
 * contiguous); recv = w_me x K (K = sum of every rank's k in panel s), rank p's block in columns
 * [sum_{p'<p} k_p', +k_p). Counts of any size (derived datatypes, no int overflow). */
gp_status gp__exchange_panel(MPI_Comm comm, const gp_plan *p, size_t s, const void *send,
                             void *recv, gp_error *e);
/* The same in two halves, so the exchange of one panel overlaps other work: post returns at
 * once; wait completes it (and must be called even after an error, to release everything). */
typedef struct gp_exchange {
    MPI_Request *req;
    MPI_Datatype *types;
    int n, ntypes;
    size_t panel;
} gp_exchange;
/* recv: where column 0 of the panel goes; ld: recv's row pitch in elements (0: K, a dense
 * w_me x K block; a band buffer's width when the panel lands inside a band). */
gp_status gp__exchange_post(MPI_Comm comm, const gp_plan *p, size_t s, const void *send, void *recv,
                            size_t ld, gp_exchange *x, gp_error *e);
/* The same without this rank's block to itself (the caller put it into recv already). */
gp_status gp__exchange_post_others(MPI_Comm comm, const gp_plan *p, size_t s, const void *send, void *recv,
                                   size_t ld, gp_exchange *x, gp_error *e);
gp_status gp__exchange_wait(gp_exchange *x, gp_error *e);

/* ---- fault injection (fault.c): GPIPE_FAULT=STAGE:PANEL[:RANK[:kill|hang]] ------- */
/* Called after each stage of each panel; also tells the watchdog where the rank is. */
gp_status gp__fault(const char *stage, size_t panel, int rank, gp_error *e);

/* ---- watchdog (watchdog.c): --timeout / GPIPE_WATCHDOG=SECONDS ------------------- */
/* The configured limit (GPIPE_WATCHDOG; the CLI's --timeout sets it), 0 when off. */
double gp__watchdog_seconds(void);
/* Start (collective entry points; nested calls only count) and stop the watchdog thread. what:
 * the input, for the message. A no-op when the limit is 0. */
void gp__watchdog_start(MPI_Comm comm, const char *what);
void gp__watchdog_stop(void);
void gp__watchdog_beat(void);                         /* progress: a panel done */
void gp__watchdog_at(const char *stage, size_t panel); /* progress: a stage done (gp__fault) */
void gp__watchdog_waiting(int on);                    /* inside an agreement (gp__agree) */

/* ---- signals (signals.c) ------------------------------------------------------- */
void gp__signals_install(void);   /* SIGTERM, SIGINT, SIGUSR1 -> stop at a panel boundary */
int gp__signal_pending(void);     /* the signal received, or 0 */

/* ---- worker (worker.c): one background thread running one job at a time --------- */
typedef struct gp_worker gp_worker;
typedef void (*gp_job_fn)(void *arg);
gp_worker *gp__worker_create(void);            /* NULL on failure */
void gp__worker_start(gp_worker *w, gp_job_fn fn, void *arg);
void gp__worker_wait(gp_worker *w);            /* returns when the job has finished */
int gp__worker_poll(gp_worker *w);             /* 1 when no job is running (never blocks) */
void gp__worker_destroy(gp_worker *w);
/* A gate inside a job: closed by worker_start; the job may block in gate_wait until the main
 * thread calls gate_open (worker_wait and worker_destroy open it too, so nothing hangs). */
void gp__worker_gate_open(gp_worker *w);
void gp__worker_gate_wait(gp_worker *w);       /* called from the job */

/* ---- utilities (util.c) -------------------------------------------------------- */
double gp__now(void);
const char *gp__human_bytes(double b, char *buf, size_t n);  /* "1.50 GiB" */
const char *gp__human_rate(double bytes_per_s, char *buf, size_t n);  /* "2.31 GB/s", "3.1 MB/s" */
/* Path helpers: directory part ("." if none), base name, stem (base without .h5/.hdf5/.he5). */
void gp__path_dir(const char *path, char *out, size_t n);
void gp__path_base(const char *path, char *out, size_t n);
void gp__path_stem(const char *path, char *out, size_t n);
/* Canonical absolute path of a file that may not exist yet (its directory must). 0 or -1. */
int gp__path_canon(const char *path, char *out, size_t n);
/* Default per-rank host budget: half the node's available memory (or cgroup limit) shared by
 * the node's ranks; the minimum over all ranks. Collective. */
size_t gp__default_mem(MPI_Comm comm);
/* Rank among the ranks of the same node. */
int gp__local_rank(MPI_Comm comm);
int gp__single_node(MPI_Comm comm);
int gp__cpu_auto_threads(MPI_Comm comm);   /* CPU transpose threads by the node's CPU masks (collective) */
#endif
