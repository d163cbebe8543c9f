/* tests/gpu/gpu_bench_main.c — stand-alone driver of gp_cuda_bench_kernels (the same bench as
 * `gpipe bench kernels`), for runs on the GPU machine without the MPI/HDF5 runtime. */
#include "kernels/cuda/cuda_kernels.h"

int main(int argc, char **argv) { return gp_cuda_bench_kernels(argc - 1, argv + 1); }
