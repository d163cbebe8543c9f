/* pipeline/transpose.c — the transpose driver: plan, then for each panel (all ranks in lockstep)
 * read rows -> backend transpose -> all-to-all exchange -> collective write, into a temporary
 * output renamed into place only when every rank succeeded. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "io/h5.h"
#include "kernels/backend.h"
#include "kernels/cpu/cpu.h"
#include "pipeline/internal.h"

/* One collective write call moves at most this much per rank (a band of many panels is written
 * in pieces of whole rows of B, every rank making the same number of calls). */
#define GP_WRITE_MAX_BYTES ((size_t)256 << 20)

/* Per-stage seconds: kernel runs on the worker thread (overlapped); wait is the time the main
 * thread spent blocked on the worker or on the exchange, i.e. what overlap did not hide. */
enum { ST_SETUP, ST_READ, ST_H2D, ST_KERNEL, ST_EXCHANGE, ST_D2H, ST_WRITE, ST_WAIT, ST_FINISH, ST_N };
static const char *stage_name[ST_N] = {"setup", "read", "h2d", "kernel", "exchange", "d2h", "write", "wait", "finish"};

/* One panel's transpose, run on the worker thread. */
typedef struct {
    gp_backend *be;
    const void *src;
    void *dst;
    size_t rows, cols, esize;
    const gp_map *map;          /* optional stage before the transpose: src -> mid */
    void *mid;
    size_t col0;
    gp_xchg_panel *xp;          /* GPU-to-GPU exchange: transpose and exchange in one job */
    /* The block this rank keeps (A's columns [self_c0, +self_w)): with self_dst set it is not
     * put into dst but transposed straight into the receive buffer (row pitch self_ld), once
     * the main thread has opened the worker's gate (that buffer is still being written out). */
    gp_worker *worker;
    void *self_dst;
    size_t self_c0, self_w, self_ld;
    int rc;
    char msg[512];
    double seconds;
} job_arg;

static void transpose_job(void *p)
{
    job_arg *j = p;
    double t = gp__now();
    const void *src = j->src;
    if (j->rows && j->cols && j->map) {
        j->rc = j->map->apply(j->map->ctx, j->src, j->mid, j->rows, j->cols, j->col0, j->msg, sizeof j->msg);
        src = j->mid;
    }
    if (j->xp) { /* collective: runs even after a failed map, so that no peer waits forever */
        int rc = j->be->transpose_exchange(j->be, src, j->dst, j->xp, j->rc ? NULL : j->msg, j->rc ? 0 : sizeof j->msg);
        if (rc) j->rc = rc;
    } else if (j->self_dst) {
        /* the blocks for the other ranks into the send buffer (pitch rows), then the own one */
        const char *s8 = src;
        char *d8 = j->dst;
        size_t es = j->esize, c1 = j->self_c0 + j->self_w;
        double waited = 0;
        if (j->rows && j->self_c0 && !j->rc)
            j->rc = j->be->transpose_pitched(j->be, s8, j->cols, d8, j->rows, j->rows, j->self_c0, es, j->msg,
                                             sizeof j->msg);
        if (j->rows && c1 < j->cols && !j->rc)
            j->rc = j->be->transpose_pitched(j->be, s8 + c1 * es, j->cols, d8 + c1 * j->rows * es, j->rows, j->rows,
                                             j->cols - c1, es, j->msg, sizeof j->msg);
        double tg = gp__now();
        gp__worker_gate_wait(j->worker);
        waited = gp__now() - tg;
        if (j->rows && j->self_w && !j->rc)
            j->rc = j->be->transpose_pitched(j->be, s8 + j->self_c0 * es, j->cols, j->self_dst, j->self_ld, j->rows,
                                             j->self_w, es, j->msg, sizeof j->msg);
        j->seconds = gp__now() - t - waited;
        return;
    } else if (j->rows && j->cols && !j->rc)
        j->rc = j->be->transpose(j->be, src, j->dst, j->rows, j->cols, j->esize, j->msg, sizeof j->msg);
    j->seconds = gp__now() - t;
}

/* Choose the backend for --device; every rank reports, failures agreed by the caller. */
static gp_status make_backend(MPI_Comm comm, const char *device, int threads, gp_backend **b, gp_error *e)
{
    char msg[512] = "";
    const char *d = device ? device : "auto";
    const int tauto = gp__cpu_auto_threads(comm);   /* every rank: collective */
    int rc;
    if (strcmp(d, "cpu") == 0) {
        rc = gp_cpu_backend_create(b, msg, sizeof msg);
    } else if (strcmp(d, "cuda") == 0) {
        rc = gp_cuda_backend_create(b, gp__local_rank(comm), msg, sizeof msg);
    } else if (strcmp(d, "auto") == 0) {
        rc = gp_cuda_device_count() > 0 ? gp_cuda_backend_create(b, gp__local_rank(comm), msg, sizeof msg)
                                        : gp_cpu_backend_create(b, msg, sizeof msg);
    } else {
        return gp__fail(e, GP_EINVAL, "--device %s: expected auto, cpu or cuda", d);
    }
    if (rc) return gp__fail(e, rc, "--device %s: %s", d, msg[0] ? msg : gp_strerror(rc));
    if (!strcmp((*b)->name, "cpu")) {   /* --threads, else GPIPE_THREADS, else the rank's share */
        int t = tauto;
        const char *env = getenv("GPIPE_THREADS");
        if (threads > 0) t = threads;
        else if (env && gp_parse_threads(env, &t)) {
            (*b)->destroy(*b);
            *b = NULL;
            return gp__fail(e, GP_EINVAL, "GPIPE_THREADS=%s: expected a number of threads from 1 to 64", env);
        }
        gp_cpu_set_threads(t);
        if (t > 1) snprintf((*b)->desc, sizeof (*b)->desc, "cpu (%s, %d threads)", gp_cpu_isa_name(), t);
    }
    return GP_OK;
}


/* --strategy auto where the exchange is not NCCL (collective): direct when every rank is on one
 * node, there are fewer than GP_DIRECT_MAX_RANKS ranks, each rank's column slab has rows of at
 * least GP_DIRECT_MIN_RUN bytes, and the input's chunks are not filtered (a rank's slab would
 * decode every chunk it crosses, once per rank); else alltoall. Measured on one node
 * (bench/NOTES.md, "Exchange strategies" and the twenty-second session): direct was faster with
 * slab rows of 16 KiB (2 and 8 ranks, CPU and CUDA, in memory and out of core), tied at 4 KiB,
 * and slower below (1.2x at 1-2 KiB, 3x at 256 B: MPI-IO's collective read of short pieces).
 * Since alltoall's whole-row reads skip MPI-IO's two-phase path (io/h5.c), alltoall is 1.2-1.5x
 * faster than direct at 3, 4 and 8 ranks on a 16-core host (every shape, type, backend and file
 * system measured), while direct still wins at 2 ranks (1.6x there, and on a 2-core VM):
 * direct's slab read goes through OMPIO's aggregators, one per 8 ranks, so its cost grows with
 * the ranks it serves.
 * Across nodes nothing was measured, and the exchange stays with MPI's point-to-point.
 * One rank: direct (one slab of whole rows). */
#define GP_DIRECT_MAX_RANKS 3
#define GP_DIRECT_MIN_RUN ((size_t)8192)
static gp_strategy auto_strategy(MPI_Comm comm, const gp_h5_in *in)
{
    int P;
    MPI_Comm_size(comm, &P);
    if (P == 1) return GP_STRATEGY_DIRECT;            /* the same on every rank: no collective skipped */
    size_t run = in->cols / (size_t)P * in->esize;    /* the narrowest slab's row */
    int node1 = gp__single_node(comm);
    return node1 && P < GP_DIRECT_MAX_RANKS && run >= GP_DIRECT_MIN_RUN && !in->filtered ? GP_STRATEGY_DIRECT
                                                                                         : GP_STRATEGY_ALLTOALL;
}

/* --exchange: "mpi" (host buffers, pipeline/exchange.c) or "nccl" (device buffers, the
 * backend's transpose_exchange). auto picks NCCL when every rank drives its own GPU and every
 * rank can load NCCL; an explicit nccl that cannot run is an error. Collective. Sets *nccl. */
static gp_status setup_exchange(MPI_Comm comm, const gp_transpose_opts *o, gp_backend *be, gp_strategy strategy,
                                int *nccl, gp_error *e)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    const char *x = o->exchange ? o->exchange : "auto";
    int want = !strcmp(x, "nccl"), autom = !strcmp(x, "auto");
    *nccl = 0;
    if (!want && !autom) {
        if (strcmp(x, "mpi")) return gp__fail(e, GP_EINVAL, "--exchange %s: expected auto, mpi or nccl", x);
        return GP_OK;
    }
    if (strategy == GP_STRATEGY_DIRECT) {
        if (want) return gp__fail(e, GP_EINVAL, "--exchange nccl needs --strategy alltoall (direct has no exchange)");
        return GP_OK;
    }
    /* Why NCCL cannot run here, as seen by this rank ("" = it can). */
    char why[512] = "";
    if (!be->xchg_init)
        snprintf(why, sizeof why, "it needs the CUDA backend (--device cuda) built with NCCL; this rank uses %s",
                 be->desc);
    else if (!gp_cuda_nccl_version(why, sizeof why) && !why[0])
        snprintf(why, sizeof why, "NCCL is not available");
    /* one rank per GPU: every (host, device) pair distinct */
    char me[320], *all = NULL;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(me, sizeof me, "%s/%s", host, be->dev_id);
    int bad = why[0] != 0, dup = 0;
    if (!bad) {
        all = malloc(sizeof me * (size_t)P);
        if (!all) return gp__fail(e, GP_ENOMEM, "out of memory (exchange setup)");
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (!anybad) {
        MPI_Allgather(me, sizeof me, MPI_CHAR, all, sizeof me, MPI_CHAR, comm);
        for (int r = 0; r < P && !dup; r++)
            if (r != rank && !strcmp(all + (size_t)r * sizeof me, me)) dup = 1;
        if (dup) snprintf(why, sizeof why, "ranks share a GPU (%s): NCCL needs one rank per GPU", me);
    }
    free(all);
    if (autom) {
        int any = bad || dup, anyx = 0;
        MPI_Allreduce(&any, &anyx, 1, MPI_INT, MPI_MAX, comm);
        if (anyx || P == 1) return GP_OK;   /* one rank: nothing to exchange, MPI's self-copy is free */
    } else if (bad || dup) {
        gp__fail(e, GP_EINVAL, "--exchange nccl: %s", why);
    }
    gp_status st = gp__agree(comm, e);
    if (st) return st;
    unsigned char id[128] = {0};
    char msg[512] = "";
    int rc = rank == 0 ? gp_cuda_nccl_unique_id(id, sizeof id, msg, sizeof msg) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    if (rc) {
        if (rank == 0) gp__fail(e, rc, "--exchange nccl: %s", msg);
        return gp__agree(comm, e);
    }
    MPI_Bcast(id, sizeof id, MPI_BYTE, 0, comm);
    rc = be->xchg_init(be, id, P, rank, msg, sizeof msg);
    if (rc) gp__fail(e, rc, "--exchange nccl: %s", msg);
    if ((st = gp__agree(comm, e))) return st;
    *nccl = 1;
    return GP_OK;
}

/* Waits for the worker's NCCL job while watching for another rank's failure notice (tag 1 on
 * acomm): a rank whose job failed sends one to every rank, and a rank still waiting inside NCCL
 * for the failed rank's blocks aborts its exchange instead of hanging. Returns 1 when a notice
 * came (this rank's own job error is then only a consequence). */
static int wait_nccl_job(gp_worker *w, gp_backend *be, MPI_Comm acomm)
{
    int noticed = 0;
    while (!gp__worker_poll(w)) {
        int flag = 0;
        MPI_Status stt;
        MPI_Iprobe(MPI_ANY_SOURCE, 1, acomm, &flag, &stt);
        if (flag) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, stt.MPI_SOURCE, 1, acomm, MPI_STATUS_IGNORE);
            if (!noticed) be->xchg_abort(be);
            noticed = 1;
        }
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
    return noticed;
}

static void send_failure_notices(MPI_Comm acomm, int rank, int P)
{
    static int one = 1;
    for (int r = 0; r < P; r++) {
        if (r == rank) continue;
        MPI_Request q;
        if (MPI_Isend(&one, 1, MPI_INT, r, 1, acomm, &q) == MPI_SUCCESS) MPI_Request_free(&q);
    }
}

/* Rank 0's progress: a line every few seconds (one updating line on a terminal). */
typedef struct {
    int on, tty;
    size_t n;
    double bytes, t0, last;
} gp_progress;

static void progress_start(gp_progress *p, int on, size_t n, double bytes)
{
    p->on = on && n > 1;
    p->tty = isatty(2);
    p->n = n;
    p->bytes = bytes;
    p->t0 = p->last = gp__now();
}

static void progress_step(gp_progress *p, size_t done)
{
    if (!p->on) return;
    double now = gp__now();
    if (now - p->last < (p->tty ? 0.5 : 5.0) && done < p->n) return;
    if (now - p->t0 < 2.0 && done < p->n) return;   /* short runs stay quiet */
    p->last = now;
    double el = now - p->t0, frac = (double)done / (double)p->n;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    char rate[32];
    gp__human_rate(p->bytes * frac / el, rate, sizeof rate);
    fprintf(stderr, "%sgpipe: panel %zu/%zu  %5.1f%%  %s  elapsed %.0f s  ETA %.0f s%s",
            p->tty ? "\r" : "", done, p->n, 100 * frac, rate, el, eta, p->tty ? "\033[K" : "\n");
    fflush(stderr);
}

static void progress_end(gp_progress *p)
{
    if (p->on && p->tty && gp__now() - p->t0 >= 2.0) fputc('\n', stderr);
}

/* A buffer that will be filled `uses` times (the CPU backend's huge-page choice depends on it). */
/* A panel of A: whole rows (staged: every rank its own file extent) or, direct, each rank's
 * column slab of the same rows (MPI-IO's two-phase read redistributes them). */
static void read_panel(gp_h5_in *in, int direct, gp_range rr, gp_range rc, void *buf, gp_error *e)
{
    if (direct) gp_h5_read_block(in, rr.start, rr.count, rc.start, rc.count, buf, e);
    else gp_h5_read_rows(in, rr.start, rr.count, buf, e);
}

static void *xalloc(gp_backend *b, size_t bytes, size_t uses)
{
    if (!bytes) bytes = 64;
    return b->host_alloc_uses ? b->host_alloc_uses(b, bytes, uses) : b->host_alloc(b, bytes);
}

static void write_json(const char *path, json_t *j, int quiet, gp_error *e)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "a");
    if (!f) { gp__fail(e, GP_EIO, "%s: cannot open the --json file", path); return; }
    char *s = json_dumps(j, JSON_COMPACT);
    fprintf(f, "%s\n", s);
    free(s);
    if (f != stdout) fclose(f); else fflush(f);
    (void)quiet;
}

gp_status gp_transpose(MPI_Comm comm, const gp_transpose_opts *o, gp_error *err)
{
    int rank, nranks;
    gp__begin(comm, err, &rank, &nranks);
    double t0 = gp__now(), tstage[ST_N] = {0};
    gp__signals_install();
    gp__watchdog_start(comm, o->input);   /* --timeout: no progress for that long aborts the job */

    gp_backend *be = NULL;
    gp_h5_in in;
    gp_h5_out out;
    gp_plan plan = {0};
    void *rbuf[2] = {0}, *sbuf[2] = {0}, *xbuf[2] = {0}, *mbuf[2] = {0};
    gp_exchange xch[2] = {{0}};
    gp_worker *worker = NULL;
    size_t *xcs = NULL, *xcc = NULL, *xpk = NULL;
    int nccl = 0, bb_host = 1;
    MPI_Comm acomm = MPI_COMM_NULL;
    int have_out = 0;
    char output[PATH_MAX];
    memset(&in, 0, sizeof in);
    in.file = in.dset = in.type = H5I_INVALID_HID;

    gp_status st = gp_h5_open_input(comm, o->input, o->dataset, &in, err);
    if (st) goto done;

    if (o->output) {
        snprintf(output, sizeof output, "%s", o->output);
    } else {
        char dir[PATH_MAX], stem[PATH_MAX];
        gp__path_dir(o->input, dir, sizeof dir);
        gp__path_stem(o->input, stem, sizeof stem);
        snprintf(output, sizeof output, "%s/%s.T.h5", dir, stem);
    }
    if ((st = gp_h5_check_output(comm, o->input, output, o->force, err))) goto done;

    size_t mem = o->mem ? o->mem : gp__default_mem(comm);
    /* With a fused map stage the output's type (and element size) is the map's. */
    hid_t otype = o->map ? (hid_t)o->map->out_type : in.type;
    size_t in_es = in.esize, es = H5Tget_size(otype);
    make_backend(comm, o->device, o->threads, &be, err);
    if ((st = gp__agree(comm, err))) goto done;
    gp_strategy strat = o->strategy;
    if ((st = setup_exchange(comm, o, be, strat == GP_STRATEGY_AUTO ? GP_STRATEGY_ALLTOALL : strat, &nccl, err)))
        goto done;
    if (strat == GP_STRATEGY_AUTO) strat = nccl ? GP_STRATEGY_ALLTOALL : auto_strategy(comm, &in);
    size_t mid_es = o->map ? es : 0;   /* the map stage's output buffer beside each read buffer */
    if (gp__plan_make2(&plan, strat, in.rows, in.cols, es > in_es ? es : in_es, nranks, rank, mem, o->panel_rows,
                       mid_es, err))
        gp__prefix(err, "%s: %s: ", o->input, in.dset_path);
    plan.esize = es;   /* budget sized for the larger element; the exchange moves output elements */
    if ((st = gp__agree(comm, err))) goto done;
    if (nccl) MPI_Comm_dup(comm, &acomm);
    be->dev_mem_limit = o->gpu_mem;
    if (nccl && o->gpu_mem) {
        /* the NCCL path keeps a whole panel on the GPU: in, transposed, received (w x P k) */
        size_t per_row = es * (2 * in.cols + plan.col_blocks[0].count * (size_t)nranks);
        size_t kg = o->gpu_mem / per_row;
        if (kg == 0) {
            char a[32], b[32];
            gp__fail(err, GP_ENOMEM, "--gpu-mem %s is too small for --exchange nccl: one row of %zu columns needs %s",
                     gp__human_bytes((double)o->gpu_mem, a, sizeof a), in.cols,
                     gp__human_bytes((double)per_row, b, sizeof b));
        } else if (plan.panel_rows > kg) {
            if (o->panel_rows) {
                gp__fail(err, GP_ENOMEM, "--panel-rows %zu needs more GPU memory than --gpu-mem allows (at most %zu rows)",
                         o->panel_rows, kg);
            } else {
                gp__plan_free(&plan);
                gp__plan_make2(&plan, strat, in.rows, in.cols, es > in_es ? es : in_es, nranks, rank, mem, kg,
                               mid_es, err);
                plan.esize = es;
            }
        }
        if ((st = gp__agree(comm, err))) goto done;
    }

    /* Buffers: read (a block of A), send (its transpose), band (the write layout: this rank's
     * rows of B x the band's columns, each panel's received blocks at its column offset); with
     * the direct strategy there is no exchange and the transpose is written straight from the
     * band buffer (a band is one panel). Band buffers of more than one panel are plain memory
     * unless a GPU copies into them (NCCL): pinning gigabytes costs more than it saves. */
    int direct = plan.strategy == GP_STRATEGY_DIRECT;
    size_t k = plan.panel_rows, C = in.cols, w_me = plan.col_blocks[rank].count;
    size_t wmax = plan.col_blocks[0].count;
    size_t read_elems = direct ? k * wmax : k * C;
    size_t band_cap = gp__plan_band_capacity(&plan), band_elems = direct ? read_elems : w_me * band_cap;
    int nbb = plan.band_bufs;
    bb_host = nccl || direct || plan.band_panels == 1 || !strcmp(be->name, "cpu");
    /* times each buffer is filled: read/send buffers alternate over the panels, band buffers over
     * the bands (the direct strategy's band is one panel: band_panels = 1) */
    const size_t panel_uses = (plan.npanels + 1) / 2;
    const size_t nbands = (plan.npanels + plan.band_panels - 1) / plan.band_panels;
    const size_t band_uses = (nbands + (size_t)nbb - 1) / (size_t)nbb;
    for (int i = 0; i < 2; i++) {
        rbuf[i] = xalloc(be, read_elems * in_es, panel_uses);
        mbuf[i] = o->map ? xalloc(be, read_elems * es, panel_uses) : NULL;
        sbuf[i] = direct || nccl ? NULL : xalloc(be, read_elems * es, panel_uses);
        if (i < nbb) {
            size_t bytes = band_elems * es > 0 ? band_elems * es : 64;
            xbuf[i] = bb_host ? xalloc(be, bytes, band_uses) : aligned_alloc(64, (bytes + 63) / 64 * 64);
        }
    }
    xcs = calloc((size_t)nranks, sizeof *xcs);
    xcc = calloc((size_t)nranks, sizeof *xcc);
    xpk = calloc((size_t)nranks, sizeof *xpk);
    worker = gp__worker_create();
    if (!rbuf[0] || !xbuf[0] || !rbuf[1] || (nbb > 1 && !xbuf[1]) || (!direct && !nccl && (!sbuf[0] || !sbuf[1])) ||
        (o->map && (!mbuf[0] || !mbuf[1])) || !xcs || !xcc || !xpk || !worker) {
        char a[32];
        gp__fail(err, GP_ENOMEM, "cannot allocate %s of panel buffers (%zu rows per panel); lower --mem or --panel-rows",
                 gp__human_bytes((double)plan.mem_bytes, a, sizeof a), k);
    }
    if ((st = gp__agree(comm, err))) goto done;

    /* The output: a new temporary file with its journal, or the partial one of an interrupted
     * run (--resume), checked against the input's signature. */
    const char *odset = o->output_dataset ? o->output_dataset : in.dset_path;
    char sig[512] = "", jsig[512] = "", jrows[64] = "0";
    size_t rows_done = 0;
    if ((st = gp_h5_input_signature(comm, &in, sig, sizeof sig, err))) goto done;
    if (o->resume) {
        st = gp_h5_open_partial(comm, output, odset, &out, err);
        have_out = 1;
        if (st) goto done;
        if (!gp_h5_journal_read(&out, "gpipe_input_signature", jsig, sizeof jsig, err) &&
            !gp_h5_journal_read(&out, "gpipe_rows_done", jrows, sizeof jrows, err)) {
            hid_t sp = H5Dget_space(out.dset), ot = H5Dget_type(out.dset);
            hsize_t dims[2] = {0, 0};
            int nd = H5Sget_simple_extent_ndims(sp);
            if (nd == 2) H5Sget_simple_extent_dims(sp, dims, NULL);
            rows_done = strtoull(jrows, NULL, 10);
            if (strcmp(sig, jsig))
                gp__fail(err, GP_EINVAL, "%s: cannot resume: the input changed since the interrupted run "
                         "(was: %s; now: %s); run without --resume to start over", o->input, jsig, sig);
            else if (nd != 2 || dims[0] != in.cols || dims[1] != in.rows || H5Tequal(ot, otype) <= 0)
                gp__fail(err, GP_EFORMAT, "%s: cannot resume: %s in %s does not match the input", output,
                         out.dset_path, out.tmp_path);
            else if (rows_done > in.rows)
                gp__fail(err, GP_EFORMAT, "%s: cannot resume: journal says %zu rows done of %zu", output,
                         rows_done, in.rows);
            H5Tclose(ot);
            H5Sclose(sp);
        }
        if ((st = gp__agree(comm, err))) goto done;
    } else {
        /* --chunk, or chunks matched to the write bands (out of core; bench/NOTES.md: 512 MiB at
         * 2 ranks in 32 bands 0.73-0.99 s against 1.49-1.78 s contiguous) */
        size_t chr = o->chunk_rows, chc = o->chunk_cols;
        if (!chr || !chc) gp__plan_out_chunk(&plan, &chr, &chc);
        st = gp_h5_create_output(comm, output, odset, otype, in.cols, in.rows, chr, chc, &out, err);
        have_out = 1;
        if (st) goto done;
        char src[PATH_MAX + 1100];
        snprintf(src, sizeof src, "%s:%s", o->input, in.dset_path);
        gp_h5_set_attr(&out, "gpipe_version", GP_VERSION, err);
        gp_h5_set_attr(&out, "gpipe_operation", "transpose", err);
        gp_h5_set_attr(&out, "gpipe_source", src, err);
        const char *job = getenv("SLURM_JOB_ID");
        if (job) gp_h5_set_attr(&out, "slurm_job_id", job, err);
        if ((st = gp__agree(comm, err))) goto done;
        gp_h5_journal_write(&out, "gpipe_input_signature", sig, err);
        gp_h5_journal_write(&out, "gpipe_rows_done", "0", err);
        if ((st = gp__agree(comm, err))) goto done;
    }
    gp__plan_skip_rows(&plan, rows_done);
    const char *jenv = getenv("GPIPE_JOURNAL_SECONDS");
    double journal_every = jenv ? atof(jenv) : 5.0, journal_last = gp__now();
    tstage[ST_SETUP] = gp__now() - t0;

    /* Software pipeline over panels, two buffers of each kind (read, send), one or two band
     * buffers. Iteration i:
     *   wait exchange i-2 (frees send[i%2], fills its columns of its band buffer) | worker:
     *   transpose i (read[i%2] -> send[i%2]) | post exchange i-1 | write: when panel i-2 is the
     *   last of its band, the band's columns not yet written (else nothing, unless the journal
     *   is due: then the band's columns up to panel i-2, so that the journal records only
     *   written rows) | read i+1 into read[(i+1)%2] | wait transpose i.  The transpose runs while
     *   this thread is inside HDF5; the exchange progresses under both. Every collective is
     *   entered by every rank in the same order.
     * Direct and NCCL: the panel's transpose (NCCL: and exchange) goes into its band buffer on
     * the worker and is written one iteration later (lag 1). */
    size_t n = plan.npanels, lag = direct || nccl ? 1 : 2;
    job_arg job;   /* outlives the loop: a failed journal agreement leaves it with the job running */
    /* The block a rank sends itself skips MPI: the worker transposes it into recv itself
     * (GPIPE_SELF_MPI=1 sends it through MPI like the others, for comparison). */
    const char *smpi = getenv("GPIPE_SELF_MPI");
    int self_local = !direct && !nccl && be->transpose_pitched && !(smpi && smpi[0] == '1');
    for (int r = 0; r < nranks; r++) {
        xcs[r] = plan.col_blocks[r].start;
        xcc[r] = plan.col_blocks[r].count;
    }
    gp_xchg_panel xp = {0, C, es, nranks, rank, xcs, xcc, xpk, {0, 0, 0, 0}, 0};
    gp_progress prog;
    progress_start(&prog, rank == 0 && o->progress, n, (double)in.rows * (double)C * (double)es);
    double t;
    gp_range rr, rc;
    size_t written = plan.first_row;   /* rows of A (columns of B) before this are written */
    size_t write_max = GP_WRITE_MAX_BYTES;   /* GPIPE_WRITE_MAX=SIZE: for measurements */
    const char *wenv = getenv("GPIPE_WRITE_MAX");
    if (wenv && gp_parse_size(wenv, &write_max)) write_max = GP_WRITE_MAX_BYTES;
    if (n) {
        gp__plan_read_block(&plan, rank, 0, &rr, &rc);
        t = gp__now();
        read_panel(&in, direct, rr, rc, rbuf[0], err);
        gp__fault("read", 0, rank, err);
        tstage[ST_READ] += gp__now() - t;
        if ((st = gp__agree(comm, err))) goto done;
    }
    for (size_t i = 0; i < n + lag; i++) {
        if (!direct && !nccl && i >= 2) {
            t = gp__now();
            gp__exchange_wait(&xch[i % 2], err);
            tstage[ST_WAIT] += gp__now() - t;
        }
        /* this iteration's write: panel c done; band buffer reuse (gate) */
        size_t c = i >= lag ? i - lag : 0;
        int writes_band = i >= lag && gp__plan_band_last(&plan, c) == c;
        job = (job_arg){be, NULL, NULL, 0, 0, es, o->map, NULL, 0, NULL, worker, NULL, 0, 0, 0, 0, "", 0};
        int gate_later = 0;
        if (i < n) {
            gp__plan_read_block(&plan, rank, i, &rr, &rc);
            gp_range band = gp__plan_band(&plan, i);
            char *bb = xbuf[(i / plan.band_panels) % (size_t)nbb];
            size_t poff = rr.start - band.start;   /* direct: 0 (the band is the panel) */
            if (!direct) {
                gp_range r0 = gp__plan_panel(&plan, 0, i);
                poff = r0.start - band.start;
            }
            job.src = rbuf[i % 2];
            job.dst = direct ? bb : nccl ? bb + poff * es : sbuf[i % 2];
            if (nccl) {
                for (int r = 0; r < nranks; r++) xpk[r] = gp__plan_panel(&plan, r, i).count;
                xp.rows = rr.count;
                xp.recv_ld = band.count;
                job.xp = &xp;
            }
            job.rows = rr.count;
            job.cols = rc.count;
            job.mid = mbuf[i % 2];
            job.col0 = rc.start;
            if (self_local) {
                size_t off = 0;
                for (int r = 0; r < rank; r++) off += gp__plan_panel(&plan, r, i).count;
                job.self_dst = bb + (poff + off) * es;
                job.self_c0 = plan.col_blocks[rank].start;
                job.self_w = w_me;
                job.self_ld = band.count;
                /* the band buffer still holds an earlier band that this iteration writes */
                gate_later = writes_band && i / plan.band_panels != c / plan.band_panels &&
                             (i / plan.band_panels) % (size_t)nbb == (c / plan.band_panels) % (size_t)nbb;
            }
            gp_error fe = {0, -1, ""};
            if (nccl && gp__fault("nccl", i, rank, &fe)) {   /* this rank never joins exchange i */
                job.rc = fe.code;
                snprintf(job.msg, sizeof job.msg, "%s", fe.msg);
            } else {
                gp__worker_start(worker, transpose_job, &job);
                if (!gate_later) gp__worker_gate_open(worker);
            }
        }
        if (!direct && !nccl && i >= 1 && i <= n) {
            size_t s = i - 1;
            gp_range band = gp__plan_band(&plan, s);
            char *bb = (char *)xbuf[(s / plan.band_panels) % (size_t)nbb] +
                       (gp__plan_panel(&plan, 0, s).start - band.start) * es;
            t = gp__now();
            if (self_local)
                gp__exchange_post_others(comm, &plan, s, sbuf[s % 2], bb, band.count, &xch[s % 2], err);
            else
                gp__exchange_post(comm, &plan, s, sbuf[s % 2], bb, band.count, &xch[s % 2], err);
            gp__fault("exchange", s, rank, err);
            tstage[ST_EXCHANGE] += gp__now() - t;
        }
        if (i >= lag) {
            /* Journal: every few seconds (rank 0's clock decides for all), once every rank's
             * write of this band succeeded, record the rows of A that are done. A journal entry
             * in the middle of a band first writes the band's columns received so far. */
            int due = gp__now() - journal_last >= journal_every && c + 1 < n;
            MPI_Bcast(&due, 1, MPI_INT, 0, comm);
            size_t upto = gp__plan_rows_done(&plan, c);
            t = gp__now();
            if ((writes_band || due) && upto > written) {
                gp_range band = gp__plan_band(&plan, c);
                const char *bb = (const char *)xbuf[(c / plan.band_panels) % (size_t)nbb] + (written - band.start) * es;
                gp_h5_write_pitched(&out, otype, plan.col_blocks[rank].start, w_me, wmax, written, upto - written, bb,
                                    band.count, write_max, err);
                written = upto;
            }
            if (gate_later) gp__worker_gate_open(worker);   /* the band buffer is free: the worker may fill it */
            gp__fault("write", c, rank, err);
            tstage[ST_WRITE] += gp__now() - t;
            progress_step(&prog, c + 1);
            if (due) {
                if ((st = gp__agree(comm, err))) goto done;
                char v[32];
                snprintf(v, sizeof v, "%zu", upto);
                t = gp__now();
                if (!gp_h5_journal_write(&out, "gpipe_rows_done", v, err)) out.keep_on_failure = 1;
                tstage[ST_WRITE] += gp__now() - t;
                journal_last = gp__now();
            }
        }
        if (i + 1 < n) {
            gp__plan_read_block(&plan, rank, i + 1, &rr, &rc);
            t = gp__now();
            read_panel(&in, direct, rr, rc, rbuf[(i + 1) % 2], err);
            gp__fault("read", i + 1, rank, err);
            tstage[ST_READ] += gp__now() - t;
        }
        if (i < n) {
            t = gp__now();
            int noticed = 0;
            if (nccl)
                noticed = wait_nccl_job(worker, be, acomm);
            else
                gp__worker_wait(worker);
            tstage[ST_WAIT] += gp__now() - t;
            if (nccl) {
                tstage[ST_H2D] += xp.seconds[0];
                tstage[ST_KERNEL] += xp.seconds[1];
                tstage[ST_EXCHANGE] += xp.seconds[2];
                tstage[ST_D2H] += xp.seconds[3];
                if (job.rc && !noticed) send_failure_notices(acomm, rank, nranks);
            } else {
                tstage[ST_KERNEL] += job.seconds;
            }
            if (job.rc && !noticed)
                gp__fail(err, job.rc, "%s: %s of panel %zu on %s failed: %s", o->input,
                         nccl ? "transpose and NCCL exchange" : "transpose", i, be->desc, job.msg);
            gp__fault("kernel", i, rank, err);
            if (nccl) gp__fault("exchange", i, rank, err);
        }
        if (gp__signal_pending() && i + 1 < n + lag)
            gp__fail(err, GP_EINTR, "%s: interrupted by signal %d at panel %zu/%zu", output,
                     gp__signal_pending(), i < n ? i + 1 : n, n);
        if ((st = gp__agree(comm, err))) goto done;
        gp__watchdog_beat();
    }
    progress_end(&prog);

done:;
    /* On every path: no exchange left in flight, no job left running. */
    gp__exchange_wait(&xch[0], err);
    gp__exchange_wait(&xch[1], err);
    gp__worker_destroy(worker);
    if (st && nccl) be->xchg_abort(be);   /* the communicator is torn down without waiting */
    double tf = gp__now();
    if (have_out) {
        st = gp_h5_finish_output(comm, &out, err);
        if (st && out.keep_on_failure && out.tmp_path[0]) {
            size_t len = strlen(err->msg);
            snprintf(err->msg + len, sizeof err->msg - len, "; partial output kept in %s: rerun with --resume to finish",
                     out.tmp_path);
        }
    }
    tstage[ST_FINISH] = gp__now() - tf;
    double elapsed = gp__now() - t0;
    if (!st) {
        double tmax[ST_N];
        MPI_Reduce(tstage, tmax, ST_N, MPI_DOUBLE, MPI_MAX, 0, comm);
        double bytes = (double)in.rows * (double)in.cols * (double)in.esize;
        if (rank == 0) {
            char hb[32], td[256], rate[32];
            gp_h5_type_desc(in.type, td, sizeof td);
            gp__human_rate(bytes / elapsed, rate, sizeof rate);
            if (!o->quiet)
                fprintf(stderr, "gpipe: transposed %s:%s (%zux%zu %s, %s) -> %s:%s on %d rank%s (%s) in %.3f s, %s\n",
                        o->input, in.dset_path, in.rows, in.cols, td, gp__human_bytes(bytes, hb, sizeof hb),
                        output, o->output_dataset ? o->output_dataset : in.dset_path, nranks,
                        nranks > 1 ? "s" : "", be ? be->desc : "?", elapsed, rate);
            if (o->json) {
                json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:[I,I], s:s, s:I, s:i, s:s, s:s, s:I, s:I, s:f, s:f}",
                                      "op", "transpose", "input", o->input, "dataset", in.dset_path,
                                      "output", output, "shape", (json_int_t)in.rows, (json_int_t)in.cols,
                                      "dtype", td, "esize", (json_int_t)in.esize, "ranks", nranks,
                                      "backend", be ? be->desc : "?", "exchange", nccl ? "nccl" : "mpi", "panel_rows", (json_int_t)plan.panel_rows,
                                      "panels", (json_int_t)plan.npanels, "seconds", elapsed,
                                      "gbps", bytes / elapsed / 1e9);
                json_t *stages = json_object();
                for (int i = 0; i < ST_N; i++) json_object_set_new(stages, stage_name[i], json_real(tmax[i]));
                json_object_set_new(j, "stage_seconds_max", stages);
                size_t nbands = plan.npanels ? (plan.npanels + plan.band_panels - 1) / plan.band_panels : 0;
                json_object_set_new(j, "strategy", json_string(gp_strategy_name(plan.strategy)));
                json_object_set_new(j, "band_panels", json_integer((json_int_t)plan.band_panels));
                json_object_set_new(j, "bands", json_integer((json_int_t)nbands));
                json_object_set_new(j, "buffer_bytes", json_integer((json_int_t)plan.mem_bytes));
                write_json(o->json, j, o->quiet, err);
                json_decref(j);
            }
        }
    }
    free(xcs);
    free(xcc);
    free(xpk);
    if (acomm != MPI_COMM_NULL) MPI_Comm_free(&acomm);
    if (be) {
        for (int i = 0; i < 2; i++) {
            if (rbuf[i]) be->host_free(be, rbuf[i]);
            if (mbuf[i]) be->host_free(be, mbuf[i]);
            if (sbuf[i]) be->host_free(be, sbuf[i]);
            if (xbuf[i] && bb_host) be->host_free(be, xbuf[i]);
            else free(xbuf[i]);
        }
        be->destroy(be);
    }
    gp__plan_free(&plan);
    gp_h5_close_input(&in);
    gp__watchdog_stop();
    return st;
}
