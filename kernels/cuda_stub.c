/* kernels/cuda_stub.c — stands in for kernels/cuda/ when gpipe is built without nvcc, so the
 * pipeline links the same table either way and --device cuda says clearly why it cannot run. */
#include <stdio.h>
#include "kernels/backend.h"
#include "pipeline/status.h"

int gp_cuda_backend_create(gp_backend **out, int local_rank, char *err, size_t errlen)
{
    (void)local_rank;
    *out = NULL;
    snprintf(err, errlen, "this gpipe was built without CUDA (nvcc not found at configure time)");
    return GP_ENODEV;
}

int gp_cuda_device_count(void) { return 0; }

int gp_cuda_bench_kernels(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "gpipe: error: bench kernels: this gpipe was built without CUDA\n");
    return 2;
}

int gp_cuda_nccl_unique_id(void *id, size_t len, char *err, size_t errlen)
{
    (void)id; (void)len;
    snprintf(err, errlen, "this gpipe was built without CUDA, so without NCCL");
    return GP_ENODEV;
}

int gp_cuda_nccl_version(char *err, size_t errlen)
{
    snprintf(err, errlen, "this gpipe was built without CUDA, so without NCCL");
    return 0;
}
