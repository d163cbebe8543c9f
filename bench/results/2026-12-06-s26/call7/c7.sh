# device call 7 (session 26, the H200 of call 3 still held): the new default (columns as whole sums
# at 256 x 3 blocks per SM, lb=-1; the whole sum and rows at lb=0) against cx=0 (before) and lb=0,
# all five shapes, three ops, twice; then test_cuda_reduce --quick and the full run.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  timeout 150 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'cx=0;lb=0' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
timeout $((560 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done | tee -a $O/sum.txt
