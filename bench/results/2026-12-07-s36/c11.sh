# session 36 call 11: dyn for every k_sum_all sweep: rows as whole sums (4 x 2^27, rx) and columns as
# whole sums (2^27 x 4, cx) against dyn=0 in the same binary; the whole sum; test_cuda_reduce --quick
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --no-verify --ops sum_all,sum_rows,sum_cols --reps 20 --variants 'dyn=0' 2>&1 | grep -E "^(cub_sum|sum_|VERIFY)" | sed "s/^/r$r /"
done
timeout 150 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
