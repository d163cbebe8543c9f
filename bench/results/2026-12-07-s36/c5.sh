# session 36 call 5: the new default (dyn=8: the whole sum's last 8/64 of the warps' units on demand
# from 32 counters, at 256 x 3 blocks) against the old (dyn=0), dyn=8 at 64 registers (lb=0), and
# dyn=6/12; then test_cuda_reduce --quick
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'dyn=0;lb=0;dyn=6;dyn=12' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 150 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
