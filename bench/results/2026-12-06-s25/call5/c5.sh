# device call 5 (session 25), the binary of call 3: call 4 showed 2^20 x 512 row sums at 0.947 with
# bs=256, unroll=4 against 0.920-0.924 for the default (128 x 8 by the autoshape). Shapes of the
# row kernel on that matrix (--shape 2), three rounds.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_rows --shape 2 --variants 'bs=256,bps=8,unroll=4;bs=256,bps=8,unroll=2;bs=512,bps=4,unroll=4;bs=128,bps=16,unroll=4;bs=256,bps=8,unroll=4,rsteps=2;bs=256,bps=8,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,bal=0;bs=256,bps=8,unroll=4,fm=0' --reps 20 > $O/r-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/r-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_rows)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
