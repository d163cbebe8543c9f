# session 41: only on an H200 (an H100 came for calls 1-3; its figures are in README.md here):
# e1.sh's ck sweep of the whole sum, the other whole-sum knobs of s39's d3.sh, the row knobs on
# 16384 x 32768 (0.951x CUB there, at the target's edge), three rounds each (e1.sh's), the whole
# verified reduce bench and the transpose table twice. On any other card it stops at once.
set -u
source .devdeps/activate.sh
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in *H200*) ;; *) echo "not an H200: nothing run"; exit 0;; esac
E=bench/results/2026-12-07-s40/e1.sh
bash $E 2>&1 | tee $OUT/e1summ.txt
VARIANTS='lb=3;dyn=0;dyn=4;dyn=32;fr=0;batch=3;ug=0;wc=1;bs=256,unroll=8,bps=3;bs=512,unroll=8,bps=2;bs=128,unroll=8,bps=8;bs=256,unroll=16,bps=2' NAME=knobs bash $E 2>&1 | grep -v "^NVIDIA"
VARIANTS='ri=0;rsteps=2;rsteps=8;bs=256,unroll=16,bps=2;bs=128,unroll=16,bps=6;bs=128,unroll=8,bps=8;bal=0' NAME=rows ARGS='--shape 0 --ops sum_rows' bash $E 2>&1 | grep -v "^NVIDIA"
export LD_LIBRARY_PATH=$PWD/v/lib:${LD_LIBRARY_PATH:-}
timeout 200 v/bench/bench_reduce_gpu --reps 20 > $OUT/full.txt 2>&1; echo "reduce bench rc=$?"
for k in 1 2; do timeout 100 v/gpipe bench kernels > $OUT/kern$k.txt 2>&1; echo "kernel bench $k rc=$?"; done
grep -E "^(cub|plain|sum_|max_|VERIFY)" $OUT/full.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 400
for k in 1 2; do sed -n '/^summary/,$p' $OUT/kern$k.txt; done
