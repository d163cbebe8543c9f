/* pipeline/rstream.c — the panel stream that reduce, stats, verify and the job files' passes
 * without a transpose share. A rank's block of rows (gp__split) goes by in panels of k rows
 * (every rank in lockstep: the reads are collective). Overlapped, through two buffers: panel
 * p + 1 is read while a worker thread runs the command's work on panel p; serial, through one:
 * the work runs between the reads (want_overlap says which). With a GPU the buffers are
 * page-locked, so its uploads run at full speed (best effort: refused, they stay pageable). */
#include <stdlib.h>
#include <string.h>
#include "pipeline/internal.h"
#include "pipeline/reduce.h"

/* Overlap pays where the work has a CPU of its own or runs on the GPU. Measured on a 2-core VM
 * (bench/NOTES.md, "one panel buffer where the work has no CPU of its own"): a rank bound to one
 * core (mpirun's default at 1-2 ranks, one rank per core under Slurm) runs the worker on the same
 * core as the reads, so nothing overlaps and the second buffer's page faults are pure cost
 * (reduce --op max 0.60 -> 0.50 s serial at 1 rank, 0.52 -> 0.36 s at 2); with two CPUs a light
 * work (a max, a sum) still gains little or nothing (the read and the work share the memory bus),
 * a heavier one does (stats 1.04 -> 0.88 s overlapped, a scale + cast map 1.25 -> 1.05 s;
 * bench/bench_panels.sh). GPIPE_RSTREAM=serial|overlap overrides. */
static int want_overlap(MPI_Comm comm, gp_cuda_reduce *cu, gp_rwork work)
{
    const char *v = getenv("GPIPE_RSTREAM");
    int cpus = gp__cpu_auto_threads(comm);   /* collective: every rank opens its stream */
    if (v && !strcmp(v, "serial")) return 0;
    if (v && !strcmp(v, "overlap")) return 1;
    return cu != NULL || work == GP_RWORK_GPU || (work == GP_RWORK_HEAVY && cpus >= 2);
}

/* One mode for every rank: the two modes interleave their reads and error checks differently
 * (serial: read p, check, work p, check; overlapped: work p beside read p + 1, check), so a serial
 * rank beside an overlapped one deadlocked (ranks bound to unequal CPU sets, a GPU on some ranks
 * only). Overlapped when any rank wants it. Collective. */
static int all_overlap(MPI_Comm comm, gp_cuda_reduce *cu, gp_rwork work)
{
    int overlap = want_overlap(comm, cu, work);
    MPI_Allreduce(MPI_IN_PLACE, &overlap, 1, MPI_INT, MPI_MAX, comm);
    return overlap;
}

int gp__rstream_open(MPI_Comm comm, gp_rstream *s, size_t bytes, gp_cuda_reduce *cu, gp_rwork work)
{
    s->bytes = bytes ? bytes : 64;
    s->cu = cu;
    s->pinned = 0;
    s->npanels = 0;
    s->tread = s->twork = 0;
    s->serial = !all_overlap(comm, cu, work);
    s->buf[0] = malloc(s->bytes);
    s->buf[1] = s->serial ? NULL : malloc(s->bytes);
    s->worker = s->serial ? NULL : gp__worker_create();
    if (!s->buf[0] || (!s->serial && (!s->buf[1] || !s->worker))) return -1;
    if (cu && gp_cuda_reduce_pin(cu, s->buf[0], s->bytes)) {
        if (s->serial || gp_cuda_reduce_pin(cu, s->buf[1], s->bytes)) s->pinned = 1;
        else gp_cuda_reduce_unpin(cu, s->buf[0]);
    }
    return 0;
}

void gp__rstream_close(gp_rstream *s)
{
    if (s->worker) gp__worker_destroy(s->worker);
    s->worker = NULL;
    for (int i = 0; i < 2; i++) {
        if (s->pinned && s->buf[i]) gp_cuda_reduce_unpin(s->cu, s->buf[i]);
        free(s->buf[i]);
        s->buf[i] = NULL;
    }
    s->pinned = 0;
}

const char *gp__rstream_mode(const gp_rstream *s)
{
    return s->serial ? "read and work in turn" : "read beside work";
}

const char *gp__rstream_desc(const gp_rstream *s)
{
    return !s->cu ? "" : s->pinned ? "upload from pinned panels + " : "upload from pageable panels + ";
}

typedef struct {
    const gp_rstream_ops *ops;
    gp_rpanel pn;
    double seconds;
} wjob;

static void run_work(void *arg)
{
    wjob *j = arg;
    double t = gp__now();
    j->pn.rc = 0;
    j->pn.msg[0] = 0;
    if (j->ops->work) j->ops->work(&j->pn, j->ops->ctx);
    j->seconds = gp__now() - t;
}

/* Reads panel p of this rank's block [r0, r0 + n) into buf (0 rows past the block's end, and
 * where ops->select says so): every rank calls, in the same order. */
static size_t read_panel(gp_rin *in, const gp_rstream_ops *ops, size_t r0, size_t n, size_t k, size_t p,
                         void *buf, int rank, gp_error *e)
{
    size_t off = p * k, cnt = off < n ? (n - off < k ? n - off : k) : 0;
    if (cnt && ops->select) cnt = ops->select(r0 + off, cnt, ops->ctx);
    gp__rin_read(in, cnt ? r0 + off : r0, cnt, 0, (size_t)-1, buf, e);
    gp__fault("read", p, rank, e);
    return cnt;
}

gp_status gp__rstream_run(MPI_Comm comm, gp_rstream *s, gp_rin *in, size_t k, const gp_rstream_ops *ops,
                          gp_error *e)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    gp_range rb = gp__split(in->h.rows, nranks, rank);
    size_t maxrows = gp__split(in->h.rows, nranks, 0).count;
    size_t npanels = maxrows ? (maxrows + k - 1) / k : 0;
    s->npanels = npanels;
    gp_status st = GP_OK;
    size_t cnt[2] = {0, 0};
    if (npanels) {
        double t = gp__now();
        cnt[0] = read_panel(in, ops, rb.start, rb.count, k, 0, s->buf[0], rank, e);
        s->tread += gp__now() - t;
        if ((st = gp__agree(comm, e))) return st;
    }
    for (size_t p = 0; p < npanels; p++) {
        int b = s->serial ? 0 : (int)(p % 2);
        if (s->serial && p) {   /* serial: panel p into the one buffer, once panel p - 1 is done */
            double t = gp__now();
            cnt[0] = read_panel(in, ops, rb.start, rb.count, k, p, s->buf[0], rank, e);
            s->tread += gp__now() - t;
            if ((st = gp__agree(comm, e))) return st;
        }
        wjob job = {ops, {p, rb.start + p * k, cnt[b], s->buf[b], 0, ""}, 0};
        if (s->serial) {
            run_work(&job);
        } else {
            gp__worker_start(s->worker, run_work, &job);
            if (p + 1 < npanels) {
                double t = gp__now();
                cnt[(p + 1) % 2] = read_panel(in, ops, rb.start, rb.count, k, p + 1, s->buf[(p + 1) % 2], rank, e);
                s->tread += gp__now() - t;
            }
            gp__worker_wait(s->worker);
        }
        s->twork += job.seconds;
        if (job.pn.rc)
            gp__fail(e, job.pn.rc, "%s:%s: %s of panel %zu (rows %zu..%zu) on %s failed: %s", in->h.path,
                     in->h.dset_path, ops->what, p, job.pn.row0, job.pn.row0 + job.pn.rows,
                     ops->backend ? ops->backend : s->cu ? gp_cuda_reduce_desc(s->cu) : "cpu", job.pn.msg);
        gp__fault("kernel", p, rank, e);
        if ((st = gp__agree(comm, e))) return st;
        if (ops->done) {   /* every rank or none: done may be collective (a write) */
            ops->done(&job.pn, ops->ctx, e);
            if ((st = gp__agree(comm, e))) return st;
        }
        gp__watchdog_beat();
    }
    return GP_OK;
}
