# session 36 call 7: where the whole sum's time goes with dyn=8 (the default now) against dyn=0: the
# GP_TSTAMP diagnostic bench (bench/tstamp-build.sh), 16384 x 32768 f32, three launches each
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
for t in dyn=8 dyn=0 dyn=16; do
  GP_CUDA_REDUCE=$t timeout 60 v/bench/bench_reduce_gpu_ts --no-verify --ops sum_all --reps 10 --cols 32768 2>&1 | grep -E "^(cub_sum|sum_all|tstamp)" | sed "s/^/$t /"
done
