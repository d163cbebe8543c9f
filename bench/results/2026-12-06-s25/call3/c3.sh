# device call 3 (session 25): rx=1 (rows as whole sums, gp_xvalue a call: no spills) measured
# 0.973 on 512 x 2^20 rows against 0.978 for the row kernel (H100, call 2): 512 blocks, one per
# row, each sweeping its 4 MiB row from the start. rx=2 starts row r's sweep r / rows of the way
# along it (rows of whole tiles). Three rounds of rx=1 (default) / rx=0 / rx=2, then
# test_cuda_reduce --quick (rx=2 is one of its variants now).
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --variants 'rx=0;rx=2' --reps 20 > $O/rx-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 120 $T --quick > $O/test.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/rx-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_all|sum_rows)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
