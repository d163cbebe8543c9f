# session 36 call 8: fr=1 (the block count as one acquire-release atomic instead of fence, count,
# fence) on the new default (dyn=8); the whole bench once (every op, 5 shapes, verified against the
# CPU kernels); test_cuda_reduce --quick
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'fr=1;dyn=0;dyn=0,fr=1' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 200 $B --reps 20 > /tmp/full.txt 2>&1; echo "full bench rc=$?"; grep -E "^(copy|cub|sum_|plain|VERIFY)" /tmp/full.txt | sed 's/^/full /'
timeout 150 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
