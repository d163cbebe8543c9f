# session 39 call 3 (H200): the whole sum's tuning knobs on the H200, where fin=2 gave 0.9947x CUB
# (call 1) against 0.9998 on the H100. Three rounds, every variant in the same run as CUB.
# ck=K (new): the static share in block chunks of K 4-KiB units (CUB's segmented row sums, a block per
# 128 KiB row, ran 1.011x CUB's whole sum on 16384 x 32768 in call 1). Prediction: ck=32 +0.5 point.
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/d3.txt
B=v/bench/bench_reduce_gpu
timeout 100 v/tests/gpu/test_cuda_reduce --quick > $OUT/quick3.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $OUT/quick3.txt)"; grep -m5 FAIL $OUT/quick3.txt
V='ck=16;ck=32;ck=64;ck=128;ck=512;lb=3;dyn=0;dyn=16;dyn=32;fr=0;batch=3;ug=0;bs=256,unroll=8,bps=3;bs=512,unroll=8,bps=2;bs=128,unroll=8,bps=8'
for r in 1 2 3; do
  timeout 150 $B --no-verify --ops sum_all --reps 20 --variants "$V" 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY|GP_|error)" | sed "s/^/r$r /" >> $OUT/d3.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/d3.txt
# part 2: row sums of 16384 x 32768 (0.951x CUB in call 1, at the 0.95 edge): the row knobs
RV='ri=0;rsteps=2;rsteps=8;bs=256,unroll=16,bps=2;bs=128,unroll=16,bps=6;bs=128,unroll=8,bps=8;bal=0;rx=0'
for r in 1 2; do
  timeout 100 $B --no-verify --shape 0 --ops sum_rows --reps 20 --variants "$RV" 2>&1 | grep -E "^(cub_sum|sum_rows|VERIFY|GP_|error)" | sed "s/^/r$r /" >> $OUT/d3rows.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/d3rows.txt
