/* kernels/cuda/nccl.cu — the GPU-to-GPU exchange of a panel (issue 9): host panel -> device,
 * transpose kernel, grouped ncclSend/ncclRecv of every rank's block on device buffers (NVLink,
 * no host staging), device -> host straight into the write layout (cudaMemcpy2DAsync unpacks).
 *
 * NCCL is loaded at run time (dlopen of libnccl.so.2, or GPIPE_NCCL_LIBRARY), so gpipe neither
 * needs NCCL to build or run nor pulls its ~200 MB into every install; `--exchange nccl` without
 * it is a clear error. The communicator is non-blocking (ncclConfig_t.blocking = 0) and every
 * wait polls ncclCommGetAsyncError, an abort flag (set when another rank reports a failure over
 * MPI) and a timeout (GPIPE_NCCL_TIMEOUT seconds, default 600), then ncclCommAbort: no hangs. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <atomic>
#include <new>
#include <cuda_runtime.h>
#include "kernels/backend.h"
#include "kernels/cuda/cuda_kernels.h"
#include "pipeline/status.h"

#if __has_include(<nccl.h>)
#include <nccl.h>
#define GP_HAVE_NCCL_H 1
#endif

namespace {

void say(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#ifdef GP_HAVE_NCCL_H
/* The NCCL entry points gpipe uses, from the library found at run time. */
struct NcclApi {
    void *lib = nullptr;
    int version = 0;
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommFinalize)(ncclComm_t);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    const char *(*GetErrorString)(ncclResult_t);
    const char *(*GetLastError)(ncclComm_t);
};

NcclApi g_api;
char g_api_err[512];
int g_api_state = 0;   /* 0 not tried, 1 loaded, -1 failed (g_api_err says why) */

int load_api()
{
    if (g_api_state) return g_api_state;
    const char *env = getenv("GPIPE_NCCL_LIBRARY");
    const char *name = env && *env ? env : "libnccl.so.2";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_api_err, sizeof g_api_err,
                 "cannot load NCCL (%s): %s; install NCCL or point GPIPE_NCCL_LIBRARY at libnccl.so.2",
                 name, dlerror());
        return g_api_state = -1;
    }
    NcclApi a;
    a.lib = h;
    int ok = 1;
#define SYM(f, n)                                                                              \
    do {                                                                                       \
        *(void **)(&a.f) = dlsym(h, n);                                                        \
        if (!a.f) ok = 0;                                                                      \
    } while (0)
    SYM(GetVersion, "ncclGetVersion");
    SYM(GetUniqueId, "ncclGetUniqueId");
    SYM(CommInitRankConfig, "ncclCommInitRankConfig");
    SYM(CommGetAsyncError, "ncclCommGetAsyncError");
    SYM(CommAbort, "ncclCommAbort");
    SYM(CommFinalize, "ncclCommFinalize");
    SYM(CommDestroy, "ncclCommDestroy");
    SYM(GroupStart, "ncclGroupStart");
    SYM(GroupEnd, "ncclGroupEnd");
    SYM(Send, "ncclSend");
    SYM(Recv, "ncclRecv");
    SYM(GetErrorString, "ncclGetErrorString");
#undef SYM
    *(void **)(&a.GetLastError) = dlsym(h, "ncclGetLastError");   /* optional (2.13+) */
    if (!ok) {
        snprintf(g_api_err, sizeof g_api_err, "%s is too old for gpipe (NCCL >= 2.14 needed: non-blocking "
                 "communicators)", name);
        dlclose(h);
        return g_api_state = -1;
    }
    a.GetVersion(&a.version);
    g_api = a;
    return g_api_state = 1;
}

/* Device buffers grown on demand. */
struct DevBuf {
    void *p = nullptr;
    size_t cap = 0;
};

struct Xchg {
    int dev = 0;
    ncclComm_t comm = nullptr;
    int nranks = 0, rank = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t ev[5] = {};
    DevBuf in, tr, rx;
    std::atomic<int> abort_flag{0};
    double timeout = 600;
};

int grow(DevBuf &b, size_t bytes, int dev, const char *what, char *err, size_t errlen)
{
    if (b.cap >= bytes) return 0;
    if (b.p) cudaFree(b.p);
    b.p = nullptr;
    b.cap = 0;
    size_t want = (bytes + 255) & ~(size_t)255;
    cudaError_t e = cudaMalloc(&b.p, want ? want : 256);
    if (e != cudaSuccess) {
        cudaGetLastError();
        b.p = nullptr;
        say(err, errlen, "cuda:%d: cudaMalloc of %zu bytes (%s) failed: %s", dev, want, what, cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? GP_ENOMEM : GP_EDEVICE;
    }
    b.cap = want ? want : 256;
    return 0;
}

const char *nccl_why(Xchg *x, ncclResult_t r)
{
    const char *last = g_api.GetLastError && x && x->comm ? g_api.GetLastError(x->comm) : nullptr;
    return last && *last ? last : g_api.GetErrorString(r);
}

/* Waits until the communicator is no longer in progress (a non-blocking communicator may still
 * be enqueueing the group's kernels when ncclGroupEnd returns: nothing after them on the stream
 * is ordered until then) and, with stream_too, until the stream has finished; polls for
 * asynchronous NCCL errors, the abort flag and the timeout. On failure the communicator is
 * aborted (it cannot be used again) and the message says why. */
int wait_comm(Xchg *x, int stream_too, const char *what, char *err, size_t errlen)
{
    const double t0 = now();
    for (long spin = 0;; spin++) {
        ncclResult_t a = ncclSuccess;
        ncclResult_t r = g_api.CommGetAsyncError(x->comm, &a);
        if (r != ncclSuccess) a = r;
        if (a != ncclSuccess && a != ncclInProgress) {
            say(err, errlen, "cuda:%d: NCCL %s failed: %s", x->dev, what, nccl_why(x, a));
            g_api.CommAbort(x->comm);
            x->comm = nullptr;
            return GP_EDEVICE;
        }
        if (a == ncclSuccess) {
            cudaError_t e = x->stream && stream_too ? cudaStreamQuery(x->stream) : cudaSuccess;
            if (e == cudaSuccess) return 0;
            if (e != cudaErrorNotReady) {
                say(err, errlen, "cuda:%d: NCCL %s failed: %s", x->dev, what, cudaGetErrorString(e));
                g_api.CommAbort(x->comm);
                x->comm = nullptr;
                return GP_EDEVICE;
            }
        }
        if (x->abort_flag.load()) {
            say(err, errlen, "cuda:%d: NCCL %s abandoned: another rank failed", x->dev, what);
            g_api.CommAbort(x->comm);
            x->comm = nullptr;
            return GP_EDEVICE;
        }
        if (now() - t0 > x->timeout) {
            say(err, errlen, "cuda:%d: NCCL %s did not finish within %.0f s (GPIPE_NCCL_TIMEOUT); a peer rank "
                "is stuck or gone", x->dev, what, x->timeout);
            g_api.CommAbort(x->comm);
            x->comm = nullptr;
            return GP_EDEVICE;
        }
        if (spin > 64) {
            timespec ts = {0, 20000};   /* 20 us: cheap next to a panel's milliseconds */
            nanosleep(&ts, nullptr);
        }
    }
}

int wait_done(Xchg *x, const char *what, char *err, size_t errlen) { return wait_comm(x, 1, what, err, errlen); }

Xchg *ctx_of(gp_backend *b) { return static_cast<Xchg *>(b->xctx); }

int ck(cudaError_t e, int dev, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess) return 0;
    say(err, errlen, "cuda:%d: %s failed: %s", dev, what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? GP_ENOMEM : GP_EDEVICE;
}

int x_init(gp_backend *b, const void *id, int nranks, int rank, char *err, size_t errlen)
{
    if (load_api() < 0) {
        say(err, errlen, "%s", g_api_err);
        return GP_ENODEV;
    }
    Xchg *x = new (std::nothrow) Xchg;
    if (!x) {
        say(err, errlen, "out of host memory (NCCL exchange)");
        return GP_ENOMEM;
    }
    x->dev = gp_cuda_backend_device(b);
    x->nranks = nranks;
    x->rank = rank;
    if (const char *t = getenv("GPIPE_NCCL_TIMEOUT")) {
        double v = atof(t);
        if (v > 0) x->timeout = v;
    }
    b->xctx = x;
    int rc;
    if ((rc = ck(cudaSetDevice(x->dev), x->dev, "cudaSetDevice", err, errlen))) return rc;
    if ((rc = ck(cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking), x->dev, "cudaStreamCreate", err, errlen)))
        return rc;
    for (int i = 0; i < 5; i++)
        if ((rc = ck(cudaEventCreate(&x->ev[i]), x->dev, "cudaEventCreate", err, errlen))) return rc;
    /* NVLink multicast (NVLS) serves collectives gpipe does not use; on shared hosts it can take
     * the GPUs out of service: off unless the user set it. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    ncclUniqueId uid;
    memcpy(&uid, id, sizeof uid);
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;
    ncclResult_t r = g_api.CommInitRankConfig(&x->comm, nranks, uid, rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress) {
        say(err, errlen, "cuda:%d: ncclCommInitRankConfig (rank %d of %d, NCCL %d) failed: %s", x->dev, rank,
            nranks, g_api.version, g_api.GetErrorString(r));
        x->comm = nullptr;
        return GP_EDEVICE;
    }
    return wait_done(x, "communicator setup", err, errlen);
}

void x_abort(gp_backend *b)
{
    if (Xchg *x = ctx_of(b)) x->abort_flag.store(1);
}

/* Seconds between two recorded events (0 when either was not recorded). */
double span(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return ms * 1e-3;
}

int x_transpose_exchange(gp_backend *b, const void *src, void *recv, gp_xchg_panel *p, char *err, size_t errlen)
{
    Xchg *x = ctx_of(b);
    if (!x) {
        say(err, errlen, "NCCL exchange used before it was set up");
        return GP_EINVAL;
    }
    if (!x->comm) {
        say(err, errlen, "cuda:%d: the NCCL communicator was aborted by an earlier failure", x->dev);
        return GP_EDEVICE;
    }
    const int P = p->nranks, me = p->rank, dv = x->dev;
    const size_t es = p->esize, k_me = p->rows, C = p->cols, w_me = p->col_count[me];
    size_t K = 0;
    for (int r = 0; r < P; r++) K += p->peer_rows[r];
    memset(p->seconds, 0, sizeof p->seconds);
    int rc;
    if ((rc = ck(cudaSetDevice(dv), dv, "cudaSetDevice", err, errlen))) return rc;
    const size_t need = 2 * k_me * C * es + w_me * K * es;
    if (b->dev_mem_limit && need > b->dev_mem_limit) {
        say(err, errlen, "cuda:%d: a panel's device buffers need %zu bytes, more than --gpu-mem (%zu)", dv, need,
            b->dev_mem_limit);
        return GP_ENOMEM;
    }
    if ((rc = grow(x->in, k_me * C * es, dv, "panel in", err, errlen)) ||
        (rc = grow(x->tr, k_me * C * es, dv, "transposed panel", err, errlen)) ||
        (rc = grow(x->rx, w_me * K * es, dv, "receive buffer", err, errlen)))
        return rc;
    char *d_in = static_cast<char *>(x->in.p), *d_tr = static_cast<char *>(x->tr.p), *d_rx = static_cast<char *>(x->rx.p);
    cudaStream_t s = x->stream;
    /* A local failure before the exchange still takes part in it (with whatever is in the
     * buffers): the peers are waiting for this rank's blocks, and the error is agreed after. */
    int local = 0;
    char lmsg[256] = "";
    cudaEventRecord(x->ev[0], s);
    if (k_me && C)
        local = ck(cudaMemcpyAsync(d_in, src, k_me * C * es, cudaMemcpyHostToDevice, s), dv,
                   "cudaMemcpyAsync (panel to device)", lmsg, sizeof lmsg);
    cudaEventRecord(x->ev[1], s);
    if (!local && k_me && C && gp_cuda_transpose_dev(d_in, d_tr, k_me, C, es, GP_TILE_DEFAULT, s)) {
        cudaError_t e = cudaGetLastError();
        say(lmsg, sizeof lmsg, "cuda:%d: transpose kernel (%zu x %zu, %zu B) failed: %s", dv, k_me, C, es,
            e != cudaSuccess ? cudaGetErrorString(e) : "bad arguments");
        local = GP_EDEVICE;
    }
    cudaEventRecord(x->ev[2], s);
    /* rank q's rows of B are A's columns col_start[q].. : after the transpose, w_q x k_me
     * contiguous bytes at d_tr + col_start[q] k_me; rank p's block lands at d_rx + w_me * (rows
     * of ranks before p). Own block: straight from d_tr to the host, no self-send. */
    size_t roff[64], *roffs = P <= 64 ? roff : static_cast<size_t *>(malloc(sizeof(size_t) * P));
    if (!roffs) {
        say(err, errlen, "out of host memory (NCCL exchange)");
        return GP_ENOMEM;
    }
    for (size_t r = 0, acc = 0; r < (size_t)P; r++) {
        roffs[r] = acc;
        acc += p->peer_rows[r];
    }
    ncclResult_t r = g_api.GroupStart();
    for (int i = 1; i < P && r == ncclSuccess; i++) {
        const int q = (me + i) % P, f = (me - i + P) % P;
        if (k_me && p->col_count[q])
            r = g_api.Send(d_tr + p->col_start[q] * k_me * es, p->col_count[q] * k_me * es, ncclUint8, q, x->comm, s);
        if (r == ncclSuccess && p->peer_rows[f] && w_me)
            r = g_api.Recv(d_rx + w_me * roffs[f] * es, w_me * p->peer_rows[f] * es, ncclUint8, f, x->comm, s);
    }
    ncclResult_t r2 = g_api.GroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess && r != ncclInProgress) {
        say(err, errlen, "cuda:%d: NCCL exchange (%d ranks) failed: %s", dv, P, nccl_why(x, r));
        g_api.CommAbort(x->comm);
        x->comm = nullptr;
        if (roffs != roff) free(roffs);
        return GP_EDEVICE;
    }
    if ((rc = wait_comm(x, 0, "exchange (enqueue)", err, errlen))) {
        if (roffs != roff) free(roffs);
        return rc;
    }
    cudaEventRecord(x->ev[3], s);
    /* device -> host into the write layout: w_me x K at row pitch ld (a band buffer's width),
     * rank p's block in columns [roffs[p], +k_p) */
    const size_t ld = p->recv_ld ? p->recv_ld : K;
    for (int q = 0; q < P && !local; q++) {
        const size_t kq = p->peer_rows[q];
        if (!kq || !w_me) continue;
        const char *from = q == me ? d_tr + p->col_start[me] * k_me * es : d_rx + w_me * roffs[q] * es;
        local = ck(cudaMemcpy2DAsync(static_cast<char *>(recv) + roffs[q] * es, ld * es, from, kq * es, kq * es, w_me,
                                     cudaMemcpyDeviceToHost, s), dv, "cudaMemcpy2DAsync (received blocks to host)",
                   lmsg, sizeof lmsg);
    }
    cudaEventRecord(x->ev[4], s);
    if (roffs != roff) free(roffs);
    if ((rc = wait_done(x, "exchange", err, errlen))) return rc;
    if (local) {
        say(err, errlen, "%s", lmsg);
        return local;
    }
    for (int i = 0; i < 4; i++) p->seconds[i] = span(x->ev[i], x->ev[i + 1]);
    return 0;
}

void x_destroy(gp_backend *b)
{
    Xchg *x = ctx_of(b);
    if (!x) return;
    cudaSetDevice(x->dev);
    if (x->comm && x->abort_flag.load()) {   /* after a failure: no waiting for peers */
        g_api.CommAbort(x->comm);
        x->comm = nullptr;
    }
    if (x->comm) {
        /* finalize waits for outstanding work (non-blocking: polled, bounded; wait_done aborts
         * the communicator on failure) */
        char e[128];
        if (x->timeout > 60) x->timeout = 60;
        ncclResult_t r = g_api.CommFinalize(x->comm);
        if ((r == ncclSuccess || r == ncclInProgress) && wait_done(x, "finalize", e, sizeof e) == 0)
            g_api.CommDestroy(x->comm);
        else if (x->comm)
            g_api.CommAbort(x->comm);
        x->comm = nullptr;
    }
    if (x->stream) cudaStreamSynchronize(x->stream);
    for (DevBuf *d : {&x->in, &x->tr, &x->rx})
        if (d->p) cudaFree(d->p);
    for (int i = 0; i < 5; i++)
        if (x->ev[i]) cudaEventDestroy(x->ev[i]);
    if (x->stream) cudaStreamDestroy(x->stream);
    delete x;
    b->xctx = nullptr;
}
#endif /* GP_HAVE_NCCL_H */

} // namespace

extern "C" int gp_cuda_nccl_unique_id(void *id, size_t len, char *err, size_t errlen)
{
#ifdef GP_HAVE_NCCL_H
    if (len < sizeof(ncclUniqueId)) {
        say(err, errlen, "NCCL unique id needs %zu bytes", sizeof(ncclUniqueId));
        return GP_EINVAL;
    }
    if (load_api() < 0) {
        say(err, errlen, "%s", g_api_err);
        return GP_ENODEV;
    }
    ncclResult_t r = g_api.GetUniqueId(static_cast<ncclUniqueId *>(id));
    if (r != ncclSuccess) {
        say(err, errlen, "ncclGetUniqueId failed: %s", g_api.GetErrorString(r));
        return GP_EDEVICE;
    }
    return 0;
#else
    (void)id; (void)len;
    say(err, errlen, "this gpipe was built without NCCL headers (nccl.h not found at build time)");
    return GP_ENODEV;
#endif
}

extern "C" int gp_cuda_nccl_version(char *err, size_t errlen)
{
#ifdef GP_HAVE_NCCL_H
    if (load_api() < 0) {
        say(err, errlen, "%s", g_api_err);
        return 0;
    }
    return g_api.version;
#else
    say(err, errlen, "this gpipe was built without NCCL headers (nccl.h not found at build time)");
    return 0;
#endif
}

/* The reference all-to-all of nccl-tests (alltoall_perf): block q of d_send (bytes_per_peer) to
 * rank q, block p of d_recv from rank p, self included, one group; waits for it. */
extern "C" int gp_cuda_nccl_alltoall(gp_backend *b, const void *d_send, void *d_recv, size_t bytes_per_peer,
                                     char *err, size_t errlen)
{
#ifdef GP_HAVE_NCCL_H
    Xchg *x = ctx_of(b);
    if (!x || !x->comm) {
        say(err, errlen, "NCCL communicator not set up");
        return GP_EINVAL;
    }
    ncclResult_t r = g_api.GroupStart();
    for (int q = 0; q < x->nranks && r == ncclSuccess; q++) {
        r = g_api.Send(static_cast<const char *>(d_send) + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, x->comm,
                       x->stream);
        if (r == ncclSuccess)
            r = g_api.Recv(static_cast<char *>(d_recv) + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, x->comm,
                           x->stream);
    }
    ncclResult_t r2 = g_api.GroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess && r != ncclInProgress) {
        say(err, errlen, "NCCL all-to-all failed: %s", nccl_why(x, r));
        return GP_EDEVICE;
    }
    return wait_done(x, "all-to-all", err, errlen);
#else
    (void)b; (void)d_send; (void)d_recv; (void)bytes_per_peer;
    say(err, errlen, "built without NCCL headers");
    return GP_ENODEV;
#endif
}

extern "C" void gp_cuda_nccl_attach(gp_backend *b)
{
#ifdef GP_HAVE_NCCL_H
    b->xchg_init = x_init;
    b->xchg_abort = x_abort;
    b->transpose_exchange = x_transpose_exchange;
    b->xchg_destroy = x_destroy;
#else
    (void)b;
#endif
}
