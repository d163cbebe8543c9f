# session 36 call 4: dyn (32 counters) at lb=3 (256 x 3 blocks, 76 registers: the dyn loop does not spill there), a sweep of the dynamic share
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'lb=3;lb=3,dyn=6;lb=3,dyn=8;lb=3,dyn=12;lb=3,dyn=16;lb=3,dyn=24;lb=3,dyn=32' 2>&1 | grep -E "^(cub_sum|plain|sum_all|VERIFY)" | sed "s/^/r$r /"
done

