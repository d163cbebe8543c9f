# device call 7 (session 27): the wide-data path of k_sum_rows_w with 32 / RW lanes a row (16 at the
# default 2 rows) instead of the whole warp on each row (call 6, H100 99: wide 0.377 against the
# row kernel's 0.436; uniform 0.955 against 0.946-0.947). test_cuda_reduce --quick; uniform and
# wide against rw=0, twice; on an H200 the defaults as one table beside rw=0.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 60 $B --ops sum_rows --shape 2 --variants 'rw=0' --reps 20 > $O/s2-$r.txt 2>&1
  timeout 60 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4' --data wide --reps 20 > $O/w2-$r.txt 2>&1
done
grep -q H200 $O/sum.txt && timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b-1.txt 2>&1
for f in $O/s2-*.txt $O/w2-*.txt $O/b-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
