#!/usr/bin/env bash
# bench/tstamp-build.sh — a diagnostic bench_reduce_gpu whose whole-sum kernel stamps %globaltimer
# per block (GP_TSTAMP in kernels/cuda/reduce.cu): start, end of loads, end of the limb atomics, end
# of flush/fence/count, and the last block's number and finish, printed as `tstamp` and
# `tstamp-end` lines (the last block's path) after each timed sum_all. Built from a
# configured CUDA tree's flags; the product build never has it. Never used for the figures
# themselves (its stores are in the kernel), only for where the time goes. The report's launches
# take fin=1: the end stamps are the last block's path, and the default fin=2 has no last block.
# usage: bash bench/tstamp-build.sh BUILD_DIR OUT_DIR   (BUILD_DIR: a -DCMAKE_CUDA_ARCHITECTURES=90
#        build that has built bench_reduce_gpu; OUT_DIR/bench_reduce_gpu_ts is the result)
set -eu
if [ $# -ne 2 ]; then sed -n '9,10p' "$0" >&2; exit 2; fi
src=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "$1" && pwd)
mkdir -p "$2/x"
o=$(cd "$2" && pwd)
nv() { /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DGP_TSTAMP -O3 -DNDEBUG \
  --generate-code=arch=compute_90,code=[compute_90,sm_90] -std=c++17 -x cu "$@"; }
(cd "$b/kernels/cuda" && nv --options-file CMakeFiles/gp_cuda.dir/includes_CUDA.rsp -Xcompiler=-fPIC \
  -c "$src/kernels/cuda/reduce.cu" -o "$o/x/reduce.cu.o") &
(cd "$b/bench" && nv -DGP_HAVE_CUDA=1 -DGP_VERSION=\"0.1.0\" --options-file CMakeFiles/bench_reduce_gpu.dir/includes_CUDA.rsp \
  -c "$src/bench/bench_reduce_gpu.cu" -o "$o/bench.o") &
wait %1 && wait %2
cp "$b/kernels/cuda/libgp_cuda.a" "$o/libgp_cuda.a"
(cd "$o/x" && ar r ../libgp_cuda.a reduce.cu.o)
sed -e "s#\.\./kernels/cuda/libgp_cuda.a#$o/libgp_cuda.a#" "$b/bench/CMakeFiles/bench_reduce_gpu.dir/linkLibs.rsp" > "$o/libs.rsp"
(cd "$b/bench" && g++ "$o/bench.o" -o "$o/bench_reduce_gpu_ts" @"$o/libs.rsp" \
  -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
echo "$o/bench_reduce_gpu_ts"
