# device call 4 (session 27): only on an H200 (else exit at once). k_sum_rows_w on 2^20 x 512 rows
# against the row kernel (rw=0), at 4/8/16 loads in flight and 2/4 rows a batch (call 3 on the
# H100 DA: unroll=8,rwr=2 0.963-0.964, the row kernel 0.958-0.962); 512 x 2^20 rows with a block
# per row in one wave (rx=2); the defaults as one table beside rw=0. Twice.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
grep -q H200 $O/sum.txt || { echo "not an H200: nothing run" | tee -a $O/sum.txt; exit 0; }
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4;unroll=8,rwr=2;unroll=8,rwr=4;unroll=16,rwr=4;unroll=16,rwr=8' --reps 20 > $O/s2-$r.txt 2>&1
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1-$r.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s2-*.txt $O/s1-*.txt $O/b-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
