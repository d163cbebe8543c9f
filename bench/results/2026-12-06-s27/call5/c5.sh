# device call 5 (session 27): k_sum_rows_w as it lands: a per-row span test (mxr, mnr) instead of
# the batch's, only failing rows read again; default 2 rows a batch at 8 loads (<8, 4, 2> for
# 2^20 x 512). Against the row kernel (rw=0), uniform and wide data; on an H200 also 512 x 2^20 with
# rx=2 and the defaults as one table; test_cuda_reduce --quick and full.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4;unroll=16,rwr=4' --reps 20 > $O/s2-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
timeout 60 $B --ops sum_rows --shape 2 --variants 'rw=0' --data wide --reps 20 > $O/w2.txt 2>&1
if grep -q H200 $O/sum.txt; then
  for r in 1 2; do
    timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1-$r.txt 2>&1
    timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b-$r.txt 2>&1
  done
fi
timeout $((560 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s2-*.txt $O/w2.txt $O/s1-*.txt $O/b-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
