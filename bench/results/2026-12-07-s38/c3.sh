# session 38 call 3: fin=2 (no last block: the blocks' limbs stay in a half of d_zacc, the next launch
# zeroes the other half, the fetch normalises on the host) against fin=1 (the default: the last block
# normalises); the GPU test with fin=2 in variant 1; the verified bench with fin=2 as a variant
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/c3.txt
B=v/bench/bench_reduce_gpu
timeout 100 v/tests/gpu/test_cuda_reduce --quick > $OUT/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $OUT/quick.txt)"; grep -m5 FAIL $OUT/quick.txt
for r in 1 2 3; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'fin=2;lb=3' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /" >> $OUT/c3.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/c3.txt
timeout 120 $B --no-verify --ops sum_cols --reps 20 --variants 'fin=2' 2>&1 | grep -E "^(cub_sum|sum_|VERIFY)" | sed "s/^/r4 /" >> $OUT/c3.txt
grep "^r4" $OUT/c3.txt | awk '{print $2, $3, $6}' | paste -sd' ' | fold -w 300
timeout 150 $B --reps 10 --variants 'fin=2' > $OUT/full.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
