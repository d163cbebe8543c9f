/* kernels/cpu/cpu.h — CPU backend internals shared by the kernels/cpu sources, tests and benchmarks. */
#ifndef GP_CPU_H
#define GP_CPU_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction set the transpose uses here: "avx512", "avx2", "sse2" or "scalar" (after GP_CPU_ISA). */
const char *gp_cpu_isa_name(void);

/* 64-byte aligned allocation (2 MiB aligned with a transparent-huge-page hint from 4 MiB up);
 * NULL on failure or when bytes == 0. Free with gp_cpu_free(). */
void *gp_cpu_alloc(size_t bytes);

/* Threads of one gp_cpu_transpose call (per process; the first call of >= 4 MiB starts the
 * helpers, which are kept). n is clamped to 1..GP_CPU_MAX_THREADS. Until set: GP_CPU_THREADS,
 * else 1. gp_cpu_threads_auto(): the CPUs this process may run on (its affinity mask). */
#define GP_CPU_MAX_THREADS 64
void gp_cpu_set_threads(int n);
int gp_cpu_threads(void);
int gp_cpu_threads_auto(void);
/* The CPUs this process may run on as a bit mask (bit c of byte c / 8: CPU c), len >= 1 bytes;
 * returns their number. Without an affinity call: the first online CPUs. */
#define GP_CPU_MASK_BYTES 128
int gp_cpu_affinity(unsigned char *mask, size_t len);
void gp_cpu_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
