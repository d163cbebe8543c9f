# device call 3 (session 27): call 2 (H100 DA): k_sum_rows_w at 4 rows a warp 0.959-0.961 = the row
# kernel 0.960-0.961; the batch unrolled (unroll 8/16) 0.93, because ptxas spread its predicated
# loads through the adds (SASS: LDG x1-2 between DADDs). Now a full batch loads unconditionally
# (SASS: LDG x8 / x16 together): unroll=8 at 2 or 4 rows a batch, unroll=16 at 4 (96 registers).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4;unroll=8,rwr=2;unroll=8,rwr=4;unroll=16,rwr=4;unroll=16,rwr=4,bs=128' --reps 20 > $O/s2-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b-1.txt 2>&1
fi
for f in $O/s2-*.txt $O/s1.txt $O/b-1.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
