/* kernels/cuda/backend.cu — the CUDA gp_backend: pinned host buffers, device buffers kept and
 * grown on demand. A panel is streamed through the GPU in slabs on three streams (copy in,
 * kernel, copy out) with two buffers each way, so that host->device of slab j+1, the kernel of
 * slab j and device->host of slab j-1 overlap. Slabs cut the panel along its longer side:
 * column slabs (src strip in by cudaMemcpy2DAsync, dst rows out contiguously) for wide panels,
 * row slabs (src rows in contiguously, dst column strip out by cudaMemcpy2DAsync) for tall ones.
 * Test knob: GPIPE_CUDA_MEM_LIMIT=<bytes> caps the device memory the backend takes; bench knobs:
 * GPIPE_CUDA_SLABS=<n> slabs per panel (default 16), GPIPE_CUDA_SLAB_EDGE=<k> first and last
 * slab 1/k of the others (default 8; the first column slab whole). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <new>
#include <cuda_runtime.h>
#include "kernels/backend.h"
#include "pipeline/status.h"
#include "kernels/cuda/cuda_kernels.h"

namespace {

enum { NBUF = 4 };  /* src slab 0, src slab 1, dst slab 0, dst slab 1 */

struct CudaCtx {
    int dev = 0;
    cudaStream_t stream = nullptr;          /* copy in */
    cudaStream_t s_kern = nullptr, s_out = nullptr;
    cudaEvent_t ev_in[2] = {}, ev_kern[2] = {}, ev_out[2] = {};
    void *d_buf[NBUF] = {nullptr, nullptr, nullptr, nullptr};
    size_t cap = 0;                       /* bytes of each buffer */
    size_t limit = 0;                     /* 0 or GPIPE_CUDA_MEM_LIMIT / NBUF */
    size_t slabs = 16;                    /* slabs per panel (bench knob GPIPE_CUDA_SLABS) */
    size_t edge = 0;                      /* GPIPE_CUDA_SLAB_EDGE (0: the default, see cuda_transpose) */
};

void msg(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *human(size_t b, char *buf, size_t n)
{
    if (b >= (1ull << 30))
        snprintf(buf, n, "%.1f GiB", b / 1073741824.0);
    else if (b >= (1ull << 20))
        snprintf(buf, n, "%.1f MiB", b / 1048576.0);
    else
        snprintf(buf, n, "%zu B", b);
    return buf;
}

/* Checks a CUDA call: on failure writes "cuda:N: <what> failed: <reason>" and returns
 * GP_EDEVICE (GP_ENOMEM for allocation failures). */
int ck(cudaError_t e, int dev, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess) return 0;
    msg(err, errlen, "cuda:%d: %s failed: %s", dev, what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? GP_ENOMEM : GP_EDEVICE;
}

void free_bufs(CudaCtx *c)
{
    for (int i = 0; i < NBUF; i++) {
        if (c->d_buf[i]) cudaFree(c->d_buf[i]);
        c->d_buf[i] = nullptr;
    }
    c->cap = 0;
}

/* Makes both device buffers at least want bytes, or as large as fits (>= min_bytes).
 * Returns 0 with c->cap set, or an error with the message in err. */
int reserve(CudaCtx *c, size_t want, size_t min_bytes, char *err, size_t errlen)
{
    if (c->limit && want > c->limit) want = c->limit;
    if (c->limit && min_bytes > c->limit) {
        char h1[32], h2[32];
        msg(err, errlen, "cuda:%d: the device memory budget (--gpu-mem %s) is too small: slabs of one line need "
            "%d x %s", c->dev, human(c->limit * NBUF, h1, sizeof h1), NBUF, human(min_bytes, h2, sizeof h2));
        return GP_ENOMEM;
    }
    if (want < min_bytes) want = min_bytes;
    if (c->cap >= want) return 0;
    /* grow: give back the old pair first so that a bigger one can fit */
    cudaStreamSynchronize(c->stream);
    cudaStreamSynchronize(c->s_kern);
    cudaStreamSynchronize(c->s_out);
    free_bufs(c);
    size_t freeb = 0, total = 0;
    if (cudaMemGetInfo(&freeb, &total) == cudaSuccess) {
        const size_t reserve_b = 256ull << 20; /* leave room for the runtime and other ranks */
        const size_t fit = freeb > reserve_b ? (freeb - reserve_b) / NBUF : 0;
        if (want > fit && fit >= min_bytes) want = fit;
    }
    want = (want + 255) & ~(size_t)255;
    for (;;) {
        cudaError_t e = cudaSuccess;
        for (int i = 0; i < NBUF && e == cudaSuccess; i++) e = cudaMalloc(&c->d_buf[i], want);
        if (e == cudaSuccess) {
            c->cap = want;
            return 0;
        }
        cudaGetLastError(); /* clear the (non-sticky) allocation error */
        free_bufs(c);
        if (want / 2 < min_bytes || e != cudaErrorMemoryAllocation) {
            char h[32];
            msg(err, errlen, "cuda:%d: cudaMalloc of %d x %s failed: %s", c->dev, NBUF,
                human(want, h, sizeof h), cudaGetErrorString(e));
            return e == cudaErrorMemoryAllocation ? GP_ENOMEM : GP_EDEVICE;
        }
        want = ((want / 2) + 255) & ~(size_t)255;
    }
}

void *cuda_host_alloc(gp_backend *b, size_t bytes)
{
    CudaCtx *c = static_cast<CudaCtx *>(b->ctx);
    void *p = nullptr;
    if (cudaSetDevice(c->dev) != cudaSuccess) return nullptr;
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return p;
}

void cuda_host_free(gp_backend *b, void *p)
{
    (void)b;
    if (p) cudaFreeHost(p);
}

int cuda_transpose(gp_backend *b, const void *src, void *dst, size_t rows, size_t cols,
                   size_t esize, char *err, size_t errlen)
{
    CudaCtx *c = static_cast<CudaCtx *>(b->ctx);
    const int dv = c->dev;
    if (esize == 0) {
        msg(err, errlen, "cuda:%d: transpose: element size 0", dv);
        return GP_EINVAL;
    }
    if (rows == 0 || cols == 0) return 0;
    if (cols > SIZE_MAX / rows || rows * cols > SIZE_MAX / esize) {
        msg(err, errlen, "cuda:%d: transpose: %zu x %zu x %zu B overflows", dv, rows, cols, esize);
        return GP_EINVAL;
    }
    int rc;
    if ((rc = ck(cudaSetDevice(dv), dv, "cudaSetDevice", err, errlen))) return rc;
    if (b->dev_mem_limit && (!c->limit || b->dev_mem_limit / NBUF < c->limit)) c->limit = b->dev_mem_limit / NBUF;
    const size_t row_bytes = cols * esize, total = rows * row_bytes;
    /* Slabs along the longer side; each slab at least 8 MiB (or what fits), at most 1/16 of
     * the panel: copy-in of the first and copy-out of the last slab run alone, so n slabs reach
     * about n/(n+1) of the both-ways copy rate (1/8 measured 89.6%). */
    const int by_cols = cols > rows;
    const size_t line = by_cols ? rows * esize : row_bytes;   /* bytes of one slab unit */
    const size_t units = by_cols ? cols : rows;
    const size_t want = total / c->slabs > (8u << 20) ? total / c->slabs : total;
    if ((rc = reserve(c, want, line, err, errlen))) return rc;
    size_t slab = (c->cap < want ? c->cap : want) / line;
    if (slab == 0) slab = 1;
    if (slab >= units) {
        slab = units;
    } else if (slab > 16) {
        slab -= slab % 16;   /* keeps the vector kernels' alignment */
    }
    /* The first slab's copy-in and the last one's copy-out run alone, so they are made 1/8 of the
     * others (tall 262144 x 2048 f32 on the H200: 44.2 -> 45.6-46.9 GB/s each way), except the
     * first of column slabs: its copy-in is a 2-D copy, and 2-D rows narrower than ~32 KiB run
     * far below the copy rate (32 slabs: 66% of it). */
    auto cut = [slab](size_t div) {
        return div > 1 && slab / div >= 16 ? slab / div - (slab / div) % 16 : slab;
    };
    const size_t efirst = cut(c->edge ? c->edge : by_cols ? 1 : 8), elast = cut(c->edge ? c->edge : 8);
    char what[96];
    size_t j = 0;
    for (size_t u0 = 0, n = 0; u0 < units; u0 += n, j++) {
        const size_t r = units - u0, b2 = j % 2;
        n = j == 0 ? (efirst < r ? efirst : r) : r > slab + elast ? slab : r > elast ? r - elast : r;   /* <= slab */
        void *dsrc = c->d_buf[b2], *ddst = c->d_buf[2 + b2];
        const size_t sr = by_cols ? rows : n, sc = by_cols ? n : cols;   /* the slab: sr x sc */
        char h[32];
        snprintf(what, sizeof what, "cudaMemcpyAsync (host to device, %s)", human(n * line, h, sizeof h));
        /* copy in once the kernel of slab j-2 has released this src buffer */
        if (j >= 2 && (rc = ck(cudaStreamWaitEvent(c->stream, c->ev_kern[b2], 0), dv, "cudaStreamWaitEvent", err, errlen)))
            return rc;
        if (by_cols)
            rc = ck(cudaMemcpy2DAsync(dsrc, n * esize, (const char *)src + u0 * esize, row_bytes, n * esize, rows,
                                      cudaMemcpyHostToDevice, c->stream), dv, what, err, errlen);
        else
            rc = ck(cudaMemcpyAsync(dsrc, (const char *)src + u0 * row_bytes, n * row_bytes, cudaMemcpyHostToDevice,
                                    c->stream), dv, what, err, errlen);
        if (rc || (rc = ck(cudaEventRecord(c->ev_in[b2], c->stream), dv, "cudaEventRecord", err, errlen))) return rc;
        /* kernel once the slab is in and copy-out of slab j-2 has released this dst buffer */
        if ((rc = ck(cudaStreamWaitEvent(c->s_kern, c->ev_in[b2], 0), dv, "cudaStreamWaitEvent", err, errlen)))
            return rc;
        if (j >= 2 && (rc = ck(cudaStreamWaitEvent(c->s_kern, c->ev_out[b2], 0), dv, "cudaStreamWaitEvent", err, errlen)))
            return rc;
        rc = gp_cuda_transpose_dev(dsrc, ddst, sr, sc, esize, GP_TILE_DEFAULT, c->s_kern);
        if (rc) {
            cudaError_t e = cudaGetLastError();
            msg(err, errlen, "cuda:%d: transpose kernel (%zu x %zu, %zu B) failed: %s", dv, sr, sc, esize,
                e != cudaSuccess ? cudaGetErrorString(e) : "bad arguments");
            return GP_EDEVICE;
        }
        if ((rc = ck(cudaEventRecord(c->ev_kern[b2], c->s_kern), dv, "cudaEventRecord", err, errlen))) return rc;
        if ((rc = ck(cudaStreamWaitEvent(c->s_out, c->ev_kern[b2], 0), dv, "cudaStreamWaitEvent", err, errlen)))
            return rc;
        if (by_cols) /* the slab's transpose is n rows of dst: contiguous */
            rc = ck(cudaMemcpyAsync((char *)dst + u0 * rows * esize, ddst, n * rows * esize, cudaMemcpyDeviceToHost,
                                    c->s_out), dv, "cudaMemcpyAsync (device to host)", err, errlen);
        else         /* the slab's transpose is cols x n: column strip [u0, u0+n) of dst */
            rc = ck(cudaMemcpy2DAsync((char *)dst + u0 * esize, rows * esize, ddst, n * esize, n * esize, cols,
                                      cudaMemcpyDeviceToHost, c->s_out), dv, "cudaMemcpy2DAsync (device to host)",
                    err, errlen);
        if (rc || (rc = ck(cudaEventRecord(c->ev_out[b2], c->s_out), dv, "cudaEventRecord", err, errlen))) return rc;
    }
    return ck(cudaStreamSynchronize(c->s_out), dv, "transpose (cudaStreamSynchronize)", err, errlen);
}

void cuda_destroy(gp_backend *b)
{
    if (!b) return;
    CudaCtx *c = static_cast<CudaCtx *>(b->ctx);
    if (b->xchg_destroy) b->xchg_destroy(b);
    if (c) {
        cudaSetDevice(c->dev);
        if (c->stream) cudaStreamSynchronize(c->stream);
        if (c->s_kern) cudaStreamSynchronize(c->s_kern);
        if (c->s_out) cudaStreamSynchronize(c->s_out);
        free_bufs(c);
        for (int i = 0; i < 2; i++) {
            if (c->ev_in[i]) cudaEventDestroy(c->ev_in[i]);
            if (c->ev_kern[i]) cudaEventDestroy(c->ev_kern[i]);
            if (c->ev_out[i]) cudaEventDestroy(c->ev_out[i]);
        }
        if (c->stream) cudaStreamDestroy(c->stream);
        if (c->s_kern) cudaStreamDestroy(c->s_kern);
        if (c->s_out) cudaStreamDestroy(c->s_out);
        delete c;
    }
    free(b);
}

} // namespace

extern "C" int gp_cuda_backend_device(gp_backend *b)
{
    return static_cast<CudaCtx *>(b->ctx)->dev;
}

extern "C" int gp_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" int gp_cuda_backend_create(gp_backend **out, int local_rank, char *err, size_t errlen)
{
    if (!out) return GP_EINVAL;
    *out = nullptr;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        msg(err, errlen, "no usable CUDA device: %s",
            e != cudaSuccess ? cudaGetErrorString(e) : "no device visible");
        cudaGetLastError();
        return GP_ENODEV;
    }
    const int dev = (local_rank < 0 ? 0 : local_rank) % n;
    cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
        msg(err, errlen, "cuda:%d: cudaGetDeviceProperties failed: %s", dev,
            cudaGetErrorString(e));
        return GP_ENODEV;
    }
    if ((e = cudaSetDevice(dev)) != cudaSuccess) {
        msg(err, errlen, "cuda:%d: cudaSetDevice failed: %s", dev, cudaGetErrorString(e));
        return GP_ENODEV;
    }
    /* Can this build's kernels run here? A 1x1 transpose fails with "no kernel image" if not. */
    {
        void *d = nullptr;
        if ((e = cudaMalloc(&d, 64)) == cudaSuccess) {
            int rc = gp_cuda_transpose_dev(d, (char *)d + 32, 2, 2, 4, GP_TILE_PAD, 0);
            cudaError_t e2 = cudaDeviceSynchronize();
            if (rc || e2 != cudaSuccess) e = e2 != cudaSuccess ? e2 : cudaGetLastError();
            cudaFree(d);
        }
        if (e != cudaSuccess) {
            msg(err, errlen, "cuda:%d %s (sm_%d%d) cannot run gpipe's kernels: %s", dev, p.name,
                p.major, p.minor, cudaGetErrorString(e));
            cudaGetLastError();
            return GP_ENODEV;
        }
    }
    gp_backend *b = static_cast<gp_backend *>(calloc(1, sizeof *b));
    CudaCtx *c = new (std::nothrow) CudaCtx;
    if (!b || !c) {
        free(b);
        delete c;
        msg(err, errlen, "cuda:%d: out of host memory", dev);
        return GP_ENOMEM;
    }
    c->dev = dev;
    if (const char *lim = getenv("GPIPE_CUDA_MEM_LIMIT")) {
        const unsigned long long v = strtoull(lim, nullptr, 10);
        if (v) c->limit = (size_t)(v / NBUF);
    }
    if (const char *sl = getenv("GPIPE_CUDA_SLABS")) {
        const long v = strtol(sl, nullptr, 10);
        if (v >= 1 && v <= 4096) c->slabs = (size_t)v;
    }
    if (const char *se = getenv("GPIPE_CUDA_SLAB_EDGE")) {
        const long v = strtol(se, nullptr, 10);
        if (v >= 1 && v <= 64) c->edge = (size_t)v;
    }
    e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->s_kern, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->s_out, cudaStreamNonBlocking);
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        e = cudaEventCreateWithFlags(&c->ev_in[i], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&c->ev_kern[i], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&c->ev_out[i], cudaEventDisableTiming);
    }
    if (e != cudaSuccess) {
        msg(err, errlen, "cuda:%d: creating streams and events failed: %s", dev, cudaGetErrorString(e));
        b->ctx = c;
        cuda_destroy(b);
        return GP_EDEVICE;
    }
    b->name = "cuda";
    b->ctx = c;
    b->host_alloc = cuda_host_alloc;
    b->host_free = cuda_host_free;
    b->transpose = cuda_transpose;
    b->destroy = cuda_destroy;
    snprintf(b->desc, sizeof b->desc, "cuda:%d %s (sm_%d%d, %d SMs)", dev, p.name, p.major,
             p.minor, p.multiProcessorCount);
    if (cudaDeviceGetPCIBusId(b->dev_id, sizeof b->dev_id, dev) != cudaSuccess) {
        cudaGetLastError();
        snprintf(b->dev_id, sizeof b->dev_id, "cuda:%d", dev);
    }
    gp_cuda_nccl_attach(b);
    *out = b;
    return GP_OK;
}
