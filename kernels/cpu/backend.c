/* kernels/cpu/backend.c — the CPU implementation of the gp_backend table. */
#define _GNU_SOURCE /* madvise(MADV_HUGEPAGE), posix_memalign */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#include <sys/mman.h>
#endif

#include "kernels/backend.h"
#include "kernels/cpu/cpu.h"
#include "pipeline/status.h"

#define GP_CPU_ALIGN 64
#define GP_HUGE_ALIGN ((size_t)2 << 20)
#define GP_HUGE_MIN ((size_t)4 << 20)

/* Transparent huge pages (MADV_HUGEPAGE) cut the TLB misses of strided transposes (f32
 * 8192^2 in memory: 0.60-0.73 -> 0.80-0.81x memcpy with buffers reused rep after rep), but with
 * the kernel's `defrag = madvise` (the common default) the first touch of such a region compacts
 * memory synchronously: after a file write has fragmented it, a one-shot `gpipe transpose` of
 * 256 MiB f32 at 2 ranks took 0.41-1.04 s with them (growing as memory fragments) against
 * 0.43-0.51 s without (bench/NOTES.md, "Transparent huge pages and one-shot runs").
 * So buffers filled fewer than GP_THP_MIN_USES times get plain pages. GP_CPU_THP=0|1 forces. */
#define GP_THP_MIN_USES 8

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* Buffers from GP_HUGE_MIN up are mappings of their own, 2 MiB aligned: through malloc they
 * would come, once glibc's dynamic mmap threshold has risen after the first frees, from heap
 * memory that an earlier MADV_HUGEPAGE left marked, and the choice above would not hold.
 * A short list maps them back to their lengths for gp_cpu_free. */
#include <pthread.h>
typedef struct gp_big { void *p; size_t len; struct gp_big *next; } gp_big;
static gp_big *g_big;
static pthread_mutex_t g_big_mu = PTHREAD_MUTEX_INITIALIZER;

static void *big_map(size_t bytes)
{
    size_t len = (bytes + 4095) & ~(size_t)4095, span = len + GP_HUGE_ALIGN;
    gp_big *rec = malloc(sizeof *rec);
    char *m = rec ? mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (m == MAP_FAILED) { free(rec); return NULL; }
    char *a = (char *)(((uintptr_t)m + GP_HUGE_ALIGN - 1) & ~(uintptr_t)(GP_HUGE_ALIGN - 1));
    if (a > m) munmap(m, (size_t)(a - m));
    if (m + span > a + len) munmap(a + len, (size_t)(m + span - (a + len)));
    rec->p = a;
    rec->len = len;
    pthread_mutex_lock(&g_big_mu);
    rec->next = g_big;
    g_big = rec;
    pthread_mutex_unlock(&g_big_mu);
    return a;
}

/* 1 when p was one of big_map's mappings (now unmapped). */
static int big_unmap(void *p)
{
    gp_big *rec = NULL;
    pthread_mutex_lock(&g_big_mu);
    for (gp_big **q = &g_big; *q; q = &(*q)->next)
        if ((*q)->p == p) { rec = *q; *q = rec->next; break; }
    pthread_mutex_unlock(&g_big_mu);
    if (!rec) return 0;
    munmap(rec->p, rec->len);
    free(rec);
    return 1;
}
#endif

static void *cpu_alloc(size_t bytes, int thp)
{
    if (bytes == 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= GP_HUGE_MIN) {
        void *p = big_map(bytes);
        /* Strided transposes touch one page per row: huge pages cut the TLB misses. A hint only. */
        const char *e = getenv("GP_CPU_THP");
        if (e && (e[0] == '0' || e[0] == '1')) thp = e[0] == '1';
        if (p && thp) (void)madvise(p, bytes & ~(GP_HUGE_ALIGN - 1), MADV_HUGEPAGE);
        return p;
    }
#endif
    (void)thp;
    void *p = NULL;
    return posix_memalign(&p, bytes >= GP_HUGE_MIN ? GP_HUGE_ALIGN : GP_CPU_ALIGN, bytes) ? NULL : p;
}

void *gp_cpu_alloc(size_t bytes) { return cpu_alloc(bytes, 1); }

void gp_cpu_free(void *p)
{
    if (!p) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (big_unmap(p)) return;
#endif
    free(p);
}

static void *cpu_host_alloc(gp_backend *b, size_t bytes)
{
    (void)b;
    return gp_cpu_alloc(bytes);
}

static void *cpu_host_alloc_uses(gp_backend *b, size_t bytes, size_t uses)
{
    (void)b;
    return cpu_alloc(bytes, uses >= GP_THP_MIN_USES);
}

static void cpu_host_free(gp_backend *b, void *p)
{
    (void)b;
    gp_cpu_free(p);
}

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
}

static int cpu_transpose(gp_backend *b, const void *src, void *dst, size_t rows, size_t cols,
                         size_t esize, char *err, size_t errlen)
{
    (void)b;
    if (esize == 0) {
        set_err(err, errlen, "cpu transpose: element size 0");
        return GP_EINVAL;
    }
    if (rows == 0 || cols == 0) return GP_OK;
    if (cols > SIZE_MAX / rows || rows * cols > SIZE_MAX / esize) {
        set_err(err, errlen, "cpu transpose: matrix size overflows size_t");
        return GP_EINVAL;
    }
    if (!src || !dst) {
        set_err(err, errlen, "cpu transpose: NULL buffer");
        return GP_EINVAL;
    }
    gp_cpu_transpose(src, dst, rows, cols, esize);
    return GP_OK;
}

static int cpu_transpose_pitched(gp_backend *b, const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
                                 size_t rows, size_t cols, size_t esize, char *err, size_t errlen)
{
    (void)b;
    if (esize == 0) {
        set_err(err, errlen, "cpu transpose: element size 0");
        return GP_EINVAL;
    }
    if (rows == 0 || cols == 0) return GP_OK;
    if (src_pitch < cols || dst_pitch < rows || src_pitch > SIZE_MAX / rows || dst_pitch > SIZE_MAX / cols ||
        src_pitch * rows > SIZE_MAX / esize || dst_pitch * cols > SIZE_MAX / esize) {
        set_err(err, errlen, "cpu transpose: bad pitch or size overflows size_t");
        return GP_EINVAL;
    }
    if (!src || !dst) {
        set_err(err, errlen, "cpu transpose: NULL buffer");
        return GP_EINVAL;
    }
    gp_cpu_transpose_pitched(src, src_pitch, dst, dst_pitch, rows, cols, esize);
    return GP_OK;
}

static void cpu_destroy(gp_backend *b) { free(b); }

int gp_cpu_affinity(unsigned char *mask, size_t len)
{
    memset(mask, 0, len);
    int n = 0;
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (size_t c = 0; c < CPU_SETSIZE && c / 8 < len; c++)
            if (CPU_ISSET(c, &set)) {
                mask[c / 8] |= (unsigned char)(1u << (c % 8));
                n++;
            }
        return n > 0 ? n : 1;
    }
#endif
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (on > 0 ? on : 1) && (size_t)(c / 8) < len; c++, n++) mask[c / 8] |= (unsigned char)(1u << (c % 8));
    return n > 0 ? n : 1;
}

int gp_cpu_threads_auto(void)
{
    unsigned char m[GP_CPU_MASK_BYTES];
    return gp_cpu_affinity(m, sizeof m);
}

int gp_cpu_backend_create(gp_backend **out, char *err, size_t errlen)
{
    if (!out) {
        set_err(err, errlen, "cpu backend: NULL output pointer");
        return GP_EINVAL;
    }
    *out = NULL;
    gp_backend *b = calloc(1, sizeof *b);
    if (!b) {
        set_err(err, errlen, "cpu backend: out of memory");
        return GP_ENOMEM;
    }
    b->name = "cpu";
    b->ctx = NULL;
    b->host_alloc = cpu_host_alloc;
    b->host_alloc_uses = cpu_host_alloc_uses;
    b->host_free = cpu_host_free;
    b->transpose = cpu_transpose;
    b->transpose_pitched = cpu_transpose_pitched;
    b->destroy = cpu_destroy;
    snprintf(b->desc, sizeof b->desc, "cpu (%s)", gp_cpu_isa_name());
    *out = b;
    return GP_OK;
}
