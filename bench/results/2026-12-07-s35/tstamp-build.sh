set -e
cd /work/main/build-gpu
(cd kernels/cuda && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DGP_TSTAMP --options-file CMakeFiles/gp_cuda.dir/includes_CUDA.rsp -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fPIC -lineinfo -std=c++17 -x cu -c /work/main/kernels/cuda/reduce.cu -o /tmp/ts/x/reduce.cu.o) &
(cd bench && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DGP_TSTAMP -DGP_HAVE_CUDA=1 -DGP_VERSION=\"0.1.0\" --options-file CMakeFiles/bench_reduce_gpu.dir/includes_CUDA.rsp -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -std=c++17 -x cu -c /work/main/bench/bench_reduce_gpu.cu -o /tmp/ts/bench.o)
wait
cp kernels/cuda/libgp_cuda.a /tmp/ts/libgp_cuda.a
(cd /tmp/ts/x && ar r ../libgp_cuda.a reduce.cu.o)
cd bench && /usr/bin/g++ /tmp/ts/bench.o -o /tmp/ts/bench_reduce_gpu_ts @/tmp/ts/libs.rsp -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib
echo built
