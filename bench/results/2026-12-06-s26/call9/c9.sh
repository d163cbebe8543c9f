# device call 9 (session 26): rx=2, rows of at least 4 tiles as whole sums even with fewer than two
# resident blocks a row (one block a row, in waves: 16384 x 32768, 512 x 2^20), at both launch
# bounds, against the row kernel (the default there). test_cuda_reduce --quick first (its variants
# include rx=2).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  for s in 0 1; do
    timeout 60 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --shape $s --variants 'rx=2;rx=2,lb=3' --reps 20 > $O/b-$r-$s.txt 2>&1
  done
  echo "bench round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done | tee -a $O/sum.txt
