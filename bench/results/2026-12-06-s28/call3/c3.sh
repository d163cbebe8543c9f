# device call 3 (session 28): k_sum_rows_w limited to rows of 4 or 8 units by default (rw=1; rw=2 the
# old 4..60): the default against rw=0 and rw=2 on 2^18 x 2048, 2^17 x 4096
# (verified against the CPU); test_cuda_reduce --quick; compute-sanitizer memcheck of
# test_cuda_reduce --quick run directly (racecheck dropped: device time) (call 2's ctest memcheck passed in 10 s: its output checked
# here). On an H200 first: 512 x 2^20 rows with rx=2 and the defaults table.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b.txt 2>&1
fi
for c in 2048 4096; do
  timeout 60 $B --ops sum_rows --cols $c --variants 'rw=0;rw=2' --reps 20 > $O/c$c.txt 2>&1
done
echo "bench done ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s1.txt $O/b.txt $O/c512.txt $O/c1024.txt $O/c2048.txt $O/c4096.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
T=v/tests/gpu/test_cuda_reduce
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T --quick > $O/memcheck.txt 2>&1
echo "memcheck rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt; tail -3 $O/memcheck.txt | tee -a $O/sum.txt
