# device call 4 (session 25), the binary of call 3: rows as whole sums gained on 4 x 2^27 (132
# blocks per row) and lost a little on 512 x 2^20 (one 256-thread block per row, 512 blocks),
# where the rotation of rx=2 changed nothing. Does the 512-row case want two blocks per row:
# 128-thread blocks (bs=128, 8 per SM: 1056 slots, 2 blocks per row), against the row kernel in
# the same shape? Three rounds.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_rows --variants 'rx=0;bs=128,bps=8,unroll=8;bs=128,bps=8,unroll=8,rx=0;bs=256,bps=8,unroll=4' --reps 20 > $O/rx-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/rx-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_rows)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
