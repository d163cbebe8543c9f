# session 40 call 1 (H200): ck (the dyn whole sum's static share in block chunks of ck 4-KiB units,
# 0d43fee) against the default, whole sum, 3 rounds; ck=1024 is about CUB's even share (4 MiB a
# block at 528 blocks). Prediction (s39): ck=32 +0.5 point. Variants are checked equal to the default.
# ck=128,dyn=4 and ck=1024,dyn=2: nearer CUB's even share (cub/grid/grid_even_share.cuh in CCCL 3.0: contiguous
# segments of whole 16 KiB tiles, 5 x the resident blocks, ~400 KiB a block on 2 GiB), less on demand.
# VARIANTS and NAME override the variants and the output file's name (e2.sh runs its rounds so),
# ARGS the bench's other arguments (s41's h1.sh: the row sums of one shape).
set -u
VARIANTS=${VARIANTS:-'ck=16;ck=32;ck=64;ck=128;ck=512;ck=1024;dyn=16;ck=128,dyn=4;ck=1024,dyn=2'}
NAME=${NAME:-e1}
ARGS=${ARGS:---ops sum_all}
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/$NAME.txt
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 90 $B --no-verify $ARGS --reps 20 --variants "$VARIANTS" 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|sum_rows|VERIFY|GP_|error)" | sed "s/^/r$r /" >> $OUT/$NAME.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/$NAME.txt
echo "equal-to-default lines: $(grep -c 'equal to the default' $OUT/$NAME.txt)"; grep -m3 -v "equal to the default\|reference\|not reproducible\|exact fallback\|^r[0-9] \(cub\|plain\|sum_all\|sum_rows\)" $OUT/$NAME.txt
