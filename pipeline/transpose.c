/* pipeline/transpose.c — the transpose driver: plan, then for each panel (all ranks in lockstep)
 * read rows -> backend transpose -> all-to-all exchange -> collective write, into a temporary
 * output renamed into place only when every rank succeeded. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/h5.h"
#include "kernels/backend.h"
#include "pipeline/internal.h"

/* Per-stage seconds: kernel runs on the worker thread (overlapped); wait is the time the main
 * thread spent blocked on the worker or on the exchange, i.e. what overlap did not hide. */
enum { ST_SETUP, ST_READ, ST_KERNEL, ST_EXCHANGE, ST_WRITE, ST_WAIT, ST_FINISH, ST_N };
static const char *stage_name[ST_N] = {"setup", "read", "kernel", "exchange", "write", "wait", "finish"};

/* One panel's transpose, run on the worker thread. */
typedef struct {
    gp_backend *be;
    const void *src;
    void *dst;
    size_t rows, cols, esize;
    int rc;
    char msg[512];
    double seconds;
} job_arg;

static void transpose_job(void *p)
{
    job_arg *j = p;
    double t = gp__now();
    if (j->rows && j->cols)
        j->rc = j->be->transpose(j->be, j->src, j->dst, j->rows, j->cols, j->esize, j->msg, sizeof j->msg);
    j->seconds = gp__now() - t;
}

/* Choose the backend for --device; every rank reports, failures agreed by the caller. */
static gp_status make_backend(MPI_Comm comm, const char *device, gp_backend **b, gp_error *e)
{
    char msg[512] = "";
    const char *d = device ? device : "auto";
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
    return GP_OK;
}

static void *xalloc(gp_backend *b, size_t bytes)
{
    return b->host_alloc(b, bytes ? bytes : 64);
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
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    memset(err, 0, sizeof *err);
    err->rank = -1;
    double t0 = gp__now(), tstage[ST_N] = {0};
    gp__signals_install();

    gp_backend *be = NULL;
    gp_h5_in in;
    gp_h5_out out;
    gp_plan plan = {0};
    void *rbuf[2] = {0}, *sbuf[2] = {0}, *xbuf[2] = {0};
    gp_exchange xch[2] = {{0}};
    gp_worker *worker = NULL;
    size_t *col0 = NULL, *ncols = NULL;
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
    make_backend(comm, o->device, &be, err);
    if (!err->code)
        gp__plan_make(&plan, in.rows, in.cols, in.esize, nranks, rank, mem, o->panel_rows, err);
    if ((st = gp__agree(comm, err))) goto done;

    size_t k = plan.panel_rows, C = in.cols, es = in.esize, w_me = plan.col_blocks[rank].count;
    for (int i = 0; i < 2; i++) {
        rbuf[i] = xalloc(be, k * C * es);
        sbuf[i] = xalloc(be, k * C * es);
        xbuf[i] = xalloc(be, w_me * k * (size_t)nranks * es);
    }
    col0 = calloc((size_t)nranks, sizeof *col0);
    ncols = calloc((size_t)nranks, sizeof *ncols);
    worker = gp__worker_create();
    if (!rbuf[0] || !sbuf[0] || !xbuf[0] || !rbuf[1] || !sbuf[1] || !xbuf[1] || !col0 || !ncols || !worker) {
        char a[32];
        gp__fail(err, GP_ENOMEM, "cannot allocate %s of panel buffers (%zu rows per panel); lower --mem or --panel-rows",
                 gp__human_bytes((double)gp__plan_bytes(C, es, nranks, k), a, sizeof a), k);
    }
    if ((st = gp__agree(comm, err))) goto done;

    const char *odset = o->output_dataset ? o->output_dataset : in.dset_path;
    st = gp_h5_create_output(comm, output, odset, in.type, in.cols, in.rows, 0, 0, &out, err);
    have_out = 1;
    if (st) goto done;
    {
        char src[PATH_MAX + 1100];
        snprintf(src, sizeof src, "%s:%s", o->input, in.dset_path);
        gp_h5_set_attr(&out, "gpipe_version", GP_VERSION, err);
        gp_h5_set_attr(&out, "gpipe_operation", "transpose", err);
        gp_h5_set_attr(&out, "gpipe_source", src, err);
        const char *job = getenv("SLURM_JOB_ID");
        if (job) gp_h5_set_attr(&out, "slurm_job_id", job, err);
        if ((st = gp__agree(comm, err))) goto done;
    }
    tstage[ST_SETUP] = gp__now() - t0;

    /* Software pipeline over panels, two buffers of each kind. Iteration i:
     *   wait exchange i-2 (frees send[i%2], fills recv[i%2]) | worker: transpose i (read[i%2] ->
     *   send[i%2]) | post exchange i-1 | write i-2 from recv[i%2] | read i+1 into read[(i+1)%2] |
     *   wait transpose i.  The transpose runs while this thread is inside HDF5; the exchange
     *   progresses under both. Every collective is entered by every rank in the same order. */
    size_t n = plan.npanels;
    double t;
    if (n) {
        gp_range r0 = gp__plan_panel(&plan, rank, 0);
        t = gp__now();
        gp_h5_read_rows(&in, r0.start, r0.count, rbuf[0], err);
        tstage[ST_READ] += gp__now() - t;
        if ((st = gp__agree(comm, err))) goto done;
    }
    for (size_t i = 0; i < n + 2; i++) {
        if (i >= 2) {
            t = gp__now();
            gp__exchange_wait(&xch[i % 2], err);
            tstage[ST_WAIT] += gp__now() - t;
        }
        job_arg job = {be, NULL, NULL, 0, C, es, 0, "", 0};
        if (i < n) {
            job.src = rbuf[i % 2];
            job.dst = sbuf[i % 2];
            job.rows = gp__plan_panel(&plan, rank, i).count;
            gp__worker_start(worker, transpose_job, &job);
        }
        if (i >= 1 && i <= n) {
            t = gp__now();
            gp__exchange_post(comm, &plan, i - 1, sbuf[(i - 1) % 2], xbuf[(i - 1) % 2], &xch[(i - 1) % 2], err);
            tstage[ST_EXCHANGE] += gp__now() - t;
        }
        if (i >= 2) {
            for (int r = 0; r < nranks; r++) {
                gp_range pr = gp__plan_panel(&plan, r, i - 2);
                col0[r] = pr.start;
                ncols[r] = pr.count;
            }
            t = gp__now();
            gp_h5_write_blocks(&out, in.type, plan.col_blocks[rank].start, w_me, nranks, col0, ncols, xbuf[i % 2], err);
            tstage[ST_WRITE] += gp__now() - t;
        }
        if (i + 1 < n) {
            gp_range rn = gp__plan_panel(&plan, rank, i + 1);
            t = gp__now();
            gp_h5_read_rows(&in, rn.start, rn.count, rbuf[(i + 1) % 2], err);
            tstage[ST_READ] += gp__now() - t;
        }
        if (i < n) {
            t = gp__now();
            gp__worker_wait(worker);
            tstage[ST_WAIT] += gp__now() - t;
            tstage[ST_KERNEL] += job.seconds;
            if (job.rc)
                gp__fail(err, job.rc, "%s: transpose of panel %zu on %s failed: %s", o->input, i, be->desc, job.msg);
        }
        if (gp__signal_pending() && i + 1 < n + 2)
            gp__fail(err, GP_EINTR, "interrupted by signal %d at panel %zu/%zu; no output written (%s)",
                     gp__signal_pending(), i < n ? i + 1 : n, n, output);
        if ((st = gp__agree(comm, err))) goto done;
    }

done:;
    /* On every path: no exchange left in flight, no job left running. */
    gp__exchange_wait(&xch[0], err);
    gp__exchange_wait(&xch[1], err);
    gp__worker_destroy(worker);
    double tf = gp__now();
    if (have_out) st = gp_h5_finish_output(comm, &out, err);
    tstage[ST_FINISH] = gp__now() - tf;
    double elapsed = gp__now() - t0;
    if (!st) {
        double tmax[ST_N];
        MPI_Reduce(tstage, tmax, ST_N, MPI_DOUBLE, MPI_MAX, 0, comm);
        double bytes = (double)in.rows * (double)in.cols * (double)in.esize;
        if (rank == 0) {
            char hb[32], td[256];
            gp_h5_type_desc(in.type, td, sizeof td);
            if (!o->quiet)
                fprintf(stderr, "gpipe: transposed %s:%s (%zux%zu %s, %s) -> %s:%s on %d rank%s (%s) in %.3f s, %.2f GB/s\n",
                        o->input, in.dset_path, in.rows, in.cols, td, gp__human_bytes(bytes, hb, sizeof hb),
                        output, o->output_dataset ? o->output_dataset : in.dset_path, nranks,
                        nranks > 1 ? "s" : "", be ? be->desc : "?", elapsed, bytes / elapsed / 1e9);
            if (o->json) {
                json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:[I,I], s:s, s:I, s:i, s:s, s:I, s:I, s:f, s:f}",
                                      "op", "transpose", "input", o->input, "dataset", in.dset_path,
                                      "output", output, "shape", (json_int_t)in.rows, (json_int_t)in.cols,
                                      "dtype", td, "esize", (json_int_t)in.esize, "ranks", nranks,
                                      "backend", be ? be->desc : "?", "panel_rows", (json_int_t)plan.panel_rows,
                                      "panels", (json_int_t)plan.npanels, "seconds", elapsed,
                                      "gbps", bytes / elapsed / 1e9);
                json_t *stages = json_object();
                for (int i = 0; i < ST_N; i++) json_object_set_new(stages, stage_name[i], json_real(tmax[i]));
                json_object_set_new(j, "stage_seconds_max", stages);
                write_json(o->json, j, o->quiet, err);
                json_decref(j);
            }
        }
    }
    free(col0);
    free(ncols);
    if (be) {
        for (int i = 0; i < 2; i++) {
            if (rbuf[i]) be->host_free(be, rbuf[i]);
            if (sbuf[i]) be->host_free(be, sbuf[i]);
            if (xbuf[i]) be->host_free(be, xbuf[i]);
        }
        be->destroy(be);
    }
    gp__plan_free(&plan);
    gp_h5_close_input(&in);
    return st;
}
