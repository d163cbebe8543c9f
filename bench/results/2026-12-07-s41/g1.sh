# session 41 call 2 (whatever card comes): the whole verified reduce bench (every op and shape,
# default tuning, checked against the CPU kernels), the transpose kernel table, and the GPU reduce test
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
timeout 200 v/bench/bench_reduce_gpu --reps 20 > $OUT/full.txt 2>&1; echo "reduce bench rc=$?"
timeout 200 v/gpipe bench kernels > $OUT/kern.txt 2>&1; echo "kernel bench rc=$?"
timeout 150 v/tests/gpu/test_cuda_reduce --quick > $OUT/test.txt 2>&1; echo "test_cuda_reduce --quick rc=$?"; tail -3 $OUT/test.txt
grep -E "^(cub|plain|sum_|max_|VERIFY)" $OUT/full.txt | awk '{print $1, $2, $3, $4, $5}' | head -60
grep -E "copy|default|geam|%" $OUT/kern.txt | head -60
