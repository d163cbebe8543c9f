# device call 1 (session 30; the plain_rows_ns, _ch and _r1 probes, first run; otherwise session 29 call 5): rwp=2 the default. test_cuda_reduce --quick (variant 0 = the default
# with rwp=2, variant 4 rwp=0); 2^20 x 512 rows, uniform and wide data (the probes now checked
# against the float error bound C 2^-24 sum|x|), the default against rwp=0. On an H200 also
# 512 x 2^20 rows with rx=2 and the defaults table (sum_all, sum_rows, sum_cols on every shape).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
timeout 60 v/tests/gpu/test_cuda_reduce --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  timeout 60 $B --ops sum_rows --shape 2 --variants 'rwp=0;rwp=2' --reps 20 > $O/u$r.txt 2>&1
  timeout 60 $B --ops sum_rows --shape 2 --data wide --variants 'rwp=0' --reps 20 > $O/w$r.txt 2>&1
done
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rwp=0' --reps 20 > $O/b.txt 2>&1
fi
echo "bench done ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/u*.txt $O/w*.txt $O/s1.txt $O/b.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -o "^plain[a-z_]* .*error <= [^ ]* of the bound" $f | awk '{print $1, $(NF-3), $(NF-2)}'
  grep -iE "FAIL|differ|mismatch|error" $f | grep -v "of the bound" | head -3
done | tee -a $O/sum.txt
