# session 37 call 2: the new default (lb=-1: 256 x 4 blocks for the whole sum and rows as whole
# sums with dyn, now spill-free at 64 registers) against lb=3 (the old default's 256 x 3) and the
# older dyn=0,fr=0; sums of rows and columns on every shape against lb=3; test_cuda_reduce --quick;
# the whole bench once, verified against the CPU kernels. Ordered by need: outputs go to $OUT as
# they come (the device budget was short)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/c2.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'lb=3;dyn=0,fr=0' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /" >> $OUT/c2.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/c2.txt
timeout 100 v/tests/gpu/test_cuda_reduce --quick > $OUT/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $OUT/quick.txt)"; grep -m5 FAIL $OUT/quick.txt
timeout 120 $B --no-verify --ops sum_rows,sum_cols --reps 20 --variants 'lb=3' 2>&1 | grep -E "^(cub_sum|sum_|VERIFY)" | sed "s/^/r4 /" >> $OUT/c2.txt
grep "^r4" $OUT/c2.txt | awk '{print $2, $3, $6}' | paste -sd' ' | fold -w 300
timeout 120 $B --reps 10 > $OUT/full.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
