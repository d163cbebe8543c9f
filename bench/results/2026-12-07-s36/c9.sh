# session 36 call 9: the final kernels (fbfcd64): the default (dyn=8, fr=1) against the old default
# (dyn=0, fr=0) on the whole sum, then the whole test_cuda_reduce (not --quick: every shape and type)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'dyn=0,fr=0' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 420 v/tests/gpu/test_cuda_reduce > /tmp/full.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 /tmp/full.txt)"; grep -m3 FAIL /tmp/full.txt
