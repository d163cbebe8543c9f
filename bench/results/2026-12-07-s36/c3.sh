# session 36 call 3: dyn with 32 counters (one counter: ~2 ns an atomic, dyn lost 9-33 points)
# by a counter) and grids of several waves (wv=W), against the default in the same binary
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'dyn=4;dyn=8;dyn=16;dyn=64;lb=3;lb=3,dyn=8' 2>&1 | grep -E "^(cub_sum|plain|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 120 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
