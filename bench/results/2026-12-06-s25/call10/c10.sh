# device call 10 (session 25), the binary of calls 7-8 (the landed code), another try for an H200 after call 9 gave an H100:
# row sums default (rows as whole sums where each row gets >= 2 blocks) vs rx=0, and the short-row
# shape that won on the H100 (2^20 x 512: U = 4 loads at 4 lanes a row), three rounds.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --variants 'rx=0;bs=128,bps=16,unroll=4,rsteps=8' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(cub_sum|sum_)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
