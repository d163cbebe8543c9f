# device call 1 (session 26): only on an H200 (else exit at once): the short-row shapes for
# 2^20 x 512 row sums (the gate keeps 128 x 8 there), then the whole table with rx=0 beside the
# default, twice; then test_cuda_reduce --quick.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
grep -q H200 $O/sum.txt || { echo "not an H200: nothing run" | tee -a $O/sum.txt; exit 0; }
for r in 1 2; do
  timeout 100 v/bench/bench_reduce_gpu --ops sum_rows --shape 2 --variants 'bs=128,bps=16,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=4' --reps 20 > $O/s-$r.txt 2>&1
  echo "short rows round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for r in 1 2; do
  timeout 150 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'rx=0' --reps 20 > $O/b-$r.txt 2>&1
  echo "table round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 100 $T --quick > $O/test.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s-*.txt $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
