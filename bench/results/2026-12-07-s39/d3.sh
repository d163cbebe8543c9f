# session 39 call 3 (H200): the whole sum's tuning knobs on the H200, where fin=2 gave 0.9947x CUB
# (call 1) against 0.9998 on the H100. Three rounds, every variant in the same run as CUB.
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/d3.txt
B=v/bench/bench_reduce_gpu
V='lb=3;lb=0;dyn=0;dyn=16;dyn=32;dyn=2;fr=0;batch=0;batch=2;batch=3;wc=1;ug=0;bs=256,unroll=8,bps=3;bs=256,unroll=8,bps=5;bs=512,unroll=8,bps=2;bs=128,unroll=8,bps=8;bs=256,unroll=4,bps=8'
for r in 1 2 3; do
  timeout 150 $B --no-verify --ops sum_all --reps 20 --variants "$V" 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY|GP_|error)" | sed "s/^/r$r /" >> $OUT/d3.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/d3.txt
