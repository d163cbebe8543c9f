# session 38 call 9: the final code again on whatever card comes (the H200 is the issues' card):
# the GPU test, the default (fin=2) against fin=1 over three rounds, the verified bench, the transposes
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/c6.txt
B=v/bench/bench_reduce_gpu
timeout 100 v/tests/gpu/test_cuda_reduce --quick > $OUT/quick6.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $OUT/quick6.txt)"; grep -m5 FAIL $OUT/quick6.txt
for r in 1 2 3; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'fin=1' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /" >> $OUT/c6.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/c6.txt
timeout 150 $B --reps 10 --variants 'fin=1' > $OUT/full6.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full6.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
for i in 1 2; do timeout 100 v/gpipe bench kernels --reps 20 > $OUT/bk6_$i.txt 2>&1; echo "bench kernels rc=$?"; grep -A7 "^summary" $OUT/bk6_$i.txt; done
