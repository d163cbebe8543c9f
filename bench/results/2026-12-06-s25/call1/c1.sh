# device call 1 (session 25): row sums of few long rows as whole sums (k_sum_all<T, U, true>,
# tuning rx=1, the new default) against the row kernel they replace on those shapes (rx=0), in the
# same bench run, two rounds; then CPU == CUDA bit for bit: test_cuda_reduce (full: new shapes 1 x
# 2^20, 300 x 65536, 7 x 40000 rows only) and the reduce CLI at 1 rank on the wide files.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --variants 'rx=0' --reps 20 > $O/rx-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
GP_REDUCE_NPS="1" GP_REDUCE_OPS="sum sumsq norm2" GP_REDUCE_FILES="plainwide wide f32" timeout 150 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "reduce CPU==CUDA np1 rc=$? $(tail -1 $O/reduce-gpu.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 280 $T > $O/test.txt 2>&1
echo "test_cuda_reduce (full) rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/rx-*.txt; do
  echo "== $(basename $f)"; grep -E "^(cub_sum|sum_all|sum_rows|rx=0|variant)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "verif|mismatch|FAIL" $f | head -3
done | tee -a $O/sum.txt
