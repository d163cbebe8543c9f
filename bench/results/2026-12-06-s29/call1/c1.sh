# device call 1 (session 29): the next batch's loads before the merge. On 2^20 x 512 rows: the
# plain probes (plain_rows, plain_rows_pf: printed with every sum_rows run on 4-unit rows) and
# k_sum_rows_w with rwp=2 / rwp=3 (256-thread blocks, 2 or 3 per SM; rwp=3 spills 48 B) against
# the default (rw=1) and the row kernel (rw=0), twice; test_cuda_reduce --quick (variant 4 runs
# rwp=2). On an H200 also the s27 call-4 leftovers: 512 x 2^20 rows with rx=2, the defaults table.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rw=1;rwp=2;rwp=3' --reps 20 > $O/s2-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=v/tests/gpu/test_cuda_reduce
timeout 90 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0;rwp=2' --reps 20 > $O/b.txt 2>&1
fi
for f in $O/s2-*.txt $O/s1.txt $O/b.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
