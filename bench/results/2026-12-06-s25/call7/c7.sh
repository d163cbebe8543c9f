# device call 7 (session 25): the code to land (rows as whole sums where each row gets >= 2 blocks,
# rx=1), on whatever card comes: issue 5's sums against CUB with rx=0 and the short-row shape that
# won on an H100 in calls 5-6 (256 x 4, one lane per 2 KiB row: rsteps=8) as variants, two
# rounds; then CPU == CUDA: test_cuda_reduce (full) and the reduce CLI at 1 rank on plainwide.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'rx=0;bs=256,bps=8,unroll=4,rsteps=8' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(cub_sum|plain_sum|sum_)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 290 $T > $O/test.txt 2>&1
echo "test_cuda_reduce (full) rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
GP_REDUCE_NPS="1" GP_REDUCE_OPS="sum sumsq" GP_REDUCE_FILES="plainwide" timeout 100 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "reduce CPU==CUDA np1 rc=$? $(tail -1 $O/reduce-gpu.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
