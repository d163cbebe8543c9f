# device call 2 (session 28): first, alone on the card, the new plain_rows ceiling of bench_reduce_gpu
# (plain float row sums read as k_sum_rows_w reads them) beside the exact row sums, on 2^20 x 512 (twice)
# and 16384 x 32768, and (new --cols) 2^19 x 1024 and 2^17 x 4096 (k_sum_rows_w's 8-load path, never
# timed) against the row kernel; then compute-sanitizer memcheck over test_cuda_reduce --quick (ctest
# gpu_sanitizer_reduce_memcheck; last run in the nineteenth session, before k_sum_rows1, k_sum_rows_w,
# the narrow columns as whole sums and rx landed) and beside it the whole of
# tests/gpu/check_reduce_gpu.sh (every reduce/stats/verify case at 1 and 2 ranks with --device cuda
# against exact references, then every input's ops cpu against cuda bit for bit).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
timeout 80 $B --ops sum_all,sum_rows --shape 2 --variants 'rw=0' --reps 20 > $O/s2-1.txt 2>&1
timeout 80 $B --ops sum_all,sum_rows --shape 0 --reps 20 > $O/s0-1.txt 2>&1
timeout 80 $B --ops sum_all,sum_rows --shape 2 --variants 'rw=0' --reps 20 > $O/s2-2.txt 2>&1
timeout 80 $B --ops sum_all,sum_rows --cols 1024 --variants 'rw=0' --reps 20 > $O/c1024.txt 2>&1
timeout 80 $B --ops sum_all,sum_rows --cols 4096 --variants 'rw=0' --reps 20 > $O/c4096.txt 2>&1
echo "bench done ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s2-1.txt $O/s0-1.txt $O/s2-2.txt $O/c1024.txt $O/c4096.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain|cub)" $f | awk '{printf "%s %s %s %s\n", $1, $2, $5, $9 $10 $11 $12 $13 $14 $15 $16 $17 $18}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
command -v compute-sanitizer | tee -a $O/sum.txt
(timeout 320 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1; echo "check_reduce_gpu.sh rc=$? ($((SECONDS-t0)) s)" > $O/crg.txt) &
timeout 330 ctest --test-dir v -R 'gpu_sanitizer_reduce_memcheck' --output-on-failure > $O/ctest.log 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $O/ctest.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E "Test +#" $O/ctest.log | tee -a $O/sum.txt
wait
cat $O/crg.txt | tee -a $O/sum.txt
grep -E "PASS|FAIL|differ" $O/reduce-gpu.log | tail -8 | tee -a $O/sum.txt
