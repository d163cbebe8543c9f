# session 35 call 3 (prepared, NOT run: the device budget was spent on failed starts): batch=3
# (directed-rounding runs, its own copy of the whole-sum loop) against the default batch=2, same
# binary. Pack v/bench/bench_reduce_gpu and v/tests/gpu/test_cuda_reduce from a build of 8c39ab6 or
# later (see the thirty-fourth session's summary in bench/NOTES.md for the carry).
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 40 $B --no-verify --ops sum_all --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(cub_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 60 $B --no-verify --ops sum_rows,sum_cols --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(sum_|VERIFY)"
timeout 60 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
