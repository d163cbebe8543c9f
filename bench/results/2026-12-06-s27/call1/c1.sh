# device call 1 (session 27): short rows with contiguous warp loads (k_sum_rows_w, tuning rw=1
# default, rw=2 contiguous shares, rw=0 the row kernel) on 2^20 x 512 row sums, uniform and wide
# data; rows as whole sums with one block per row in one wave (rx=2) on 512 x 2^20; the defaults
# as one table; test_cuda_reduce --quick and full.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 60 $B --ops sum_rows --shape 2 --variants 'rw=0;rw=2' --reps 20 > $O/s2-$r.txt 2>&1
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
timeout 60 $B --ops sum_rows --shape 2 --variants 'rw=0' --data wide --reps 20 > $O/w2.txt 2>&1
timeout 100 $B --ops sum_all,sum_rows,sum_cols --reps 20 > $O/b-1.txt 2>&1
echo "table rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout $((540 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s2-*.txt $O/s1-*.txt $O/w2.txt $O/b-1.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
