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
void gp_cpu_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
