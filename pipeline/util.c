/* pipeline/util.c — small helpers: clocks, byte formatting, paths, size/shape parsing, local rank. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernels/cpu/cpu.h"
#include "pipeline/internal.h"

double gp__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *gp__human_bytes(double b, char *buf, size_t n)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (b >= 1024 && i < 5) { b /= 1024; i++; }
    snprintf(buf, n, i ? "%.2f %s" : "%.0f %s", b, u[i]);
    return buf;
}

const char *gp__human_rate(double bytes_per_s, char *buf, size_t n)
{
    /* decimal units, as bandwidths are usually quoted; never "0.00 GB/s" for a slow run */
    if (bytes_per_s >= 1e9) snprintf(buf, n, "%.2f GB/s", bytes_per_s / 1e9);
    else if (bytes_per_s >= 1e6) snprintf(buf, n, "%.1f MB/s", bytes_per_s / 1e6);
    else snprintf(buf, n, "%.1f kB/s", bytes_per_s / 1e3);
    return buf;
}

void gp__path_dir(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, n, ".");
    else if (slash == path) snprintf(out, n, "/");
    else snprintf(out, n, "%.*s", (int)(slash - path), path);
}

void gp__path_base(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, n, "%s", slash ? slash + 1 : path);
}

void gp__path_stem(const char *path, char *out, size_t n)
{
    gp__path_base(path, out, n);
    size_t len = strlen(out);
    const char *ext[] = {".h5", ".hdf5", ".he5", ".hdf"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t el = strlen(ext[i]);
        if (len > el && strcmp(out + len - el, ext[i]) == 0) { out[len - el] = 0; return; }
    }
}

int gp__path_canon(const char *path, char *out, size_t n)
{
    char dir[PATH_MAX], base[PATH_MAX], rdir[PATH_MAX];
    char full[PATH_MAX];
    if (realpath(path, full)) { snprintf(out, n, "%s", full); return 0; }
    gp__path_dir(path, dir, sizeof dir);
    gp__path_base(path, base, sizeof base);
    if (!realpath(dir, rdir)) return -1;
    snprintf(out, n, "%s/%s", strcmp(rdir, "/") ? rdir : "", base);
    return 0;
}

/* The node's ranks of comm (collective); MPI_COMM_NULL when the split fails. */
static MPI_Comm node_comm(MPI_Comm comm)
{
    MPI_Comm node;
    return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS ? node
                                                                                                  : MPI_COMM_NULL;
}

int gp__local_rank(MPI_Comm comm)
{
    MPI_Comm node = node_comm(comm);
    int r = 0;
    if (node != MPI_COMM_NULL) {
        MPI_Comm_rank(node, &r);
        MPI_Comm_free(&node);
    }
    return r;
}

/* CPU transpose threads for this rank when nothing asks for a number (collective): the CPUs it
 * may run on, shared by the ranks of its node whose CPU masks overlap its own. Bound to a core:
 * 1; --cpus-per-task 16: 16; unbound, 8 ranks on 16 CPUs: 2; bound to a socket of 16 CPUs with
 * 3 other ranks: 4. So the ranks of a node never run more transpose threads than it has CPUs. */
int gp__cpu_auto_threads(MPI_Comm comm)
{
    unsigned char mine[GP_CPU_MASK_BYTES];
    const int n = gp_cpu_affinity(mine, sizeof mine);
    int share = 1, size = 1;
    MPI_Comm node = node_comm(comm);
    if (node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &size);
        unsigned char *all = malloc((size_t)size * sizeof mine);
        if (all && MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node) == MPI_SUCCESS) {
            share = 0;
            for (int r = 0; r < size; r++) {
                int overlap = 0;
                for (size_t i = 0; i < sizeof mine && !overlap; i++) overlap = (all[(size_t)r * sizeof mine + i] & mine[i]) != 0;
                share += overlap;
            }
        } else {
            share = size;   /* no masks: assume they all share this one */
        }
        free(all);
        MPI_Comm_free(&node);
    }
    int t = n / (share > 0 ? share : 1);
    return t < 1 ? 1 : t > GP_CPU_MAX_THREADS ? GP_CPU_MAX_THREADS : t;
}


gp_status gp_parse_threads(const char *s, int *n)
{
    if (!s || *s < '0' || *s > '9') return GP_EINVAL;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < 1 || v > 64) return GP_EINVAL;
    *n = (int)v;
    return GP_OK;
}

static const char *const strategy_names[] = {"auto", "alltoall", "direct"};

gp_status gp_parse_strategy(const char *s, gp_strategy *st)
{
    for (int i = 0; s && i < 3; i++)
        if (!strcmp(s, strategy_names[i])) {
            *st = (gp_strategy)i;
            return GP_OK;
        }
    return GP_EINVAL;
}

gp_status gp_parse_result_type(const char *s, int *input)
{
    if (s && !strcmp(s, "wide")) *input = 0;
    else if (s && !strcmp(s, "input")) *input = 1;
    else return GP_EINVAL;
    return GP_OK;
}

const char *gp_strategy_name(gp_strategy st)
{
    return (unsigned)st < 3 ? strategy_names[st] : "?";
}

/* All of comm's ranks on one node (one shared-memory domain). Collective. */
int gp__single_node(MPI_Comm comm)
{
    MPI_Comm node = node_comm(comm);
    int n = 0, P = 0;
    if (node == MPI_COMM_NULL) return 0;
    MPI_Comm_size(node, &n);
    MPI_Comm_size(comm, &P);
    MPI_Comm_free(&node);
    int all = n == P, every = 0;   /* the same answer on every rank */
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, comm);
    return every;
}

gp_status gp_parse_size(const char *s, size_t *out)
{
    if (!s || !*s) return GP_EINVAL;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return GP_EINVAL;
    double mul = 1;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return GP_EINVAL;
    }
    if (*end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return GP_EINVAL;
    v *= mul;
    if (v >= 18446744073709551615.0) return GP_EINVAL;
    *out = (size_t)v;
    return GP_OK;
}

static int parse_dim(const char *s, const char **end, size_t *v)
{
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (errno || x == 0) return -1;
    *v = (size_t)x;
    *end = e;
    return 0;
}

gp_status gp_parse_shape(const char *s, size_t *r, size_t *c)
{
    const char *p;
    if (!s || parse_dim(s, &p, r) || (*p != 'x' && *p != 'X' && *p != ',')) return GP_EINVAL;
    if (parse_dim(p + 1, &p, c) || *p) return GP_EINVAL;
    return GP_OK;
}

/* Bytes of a "Key: N kB" line of /proc/meminfo, or 0. */
static size_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    size_t kl = strlen(key), v = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') { v = (size_t)strtoull(line + kl + 1, NULL, 10) * 1024; break; }
    fclose(f);
    return v;
}

/* A cgroup v2 limit (memory.max) of this process, or 0 when none. */
static size_t cgroup_limit(void)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (!f) return 0;
    char buf[64] = "";
    size_t v = 0;
    if (fgets(buf, sizeof buf, f) && strncmp(buf, "max", 3)) v = (size_t)strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

size_t gp__default_mem(MPI_Comm comm)
{
    MPI_Comm node;
    int on_node = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &on_node);
        MPI_Comm_free(&node);
    }
    size_t avail = meminfo("MemAvailable"), cg = cgroup_limit();
    if (cg && (!avail || cg < avail)) avail = cg;
    if (!avail) avail = (size_t)4 << 30;
    size_t m = avail / 2 / (size_t)on_node;   /* half of what is free, shared by the node's ranks */
    /* every rank uses the same budget: the smallest */
    unsigned long long mine = m, all = m;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    return (size_t)all;
}
