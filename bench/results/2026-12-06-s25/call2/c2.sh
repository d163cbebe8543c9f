# device call 2 (session 25): call 1 showed the rows-as-whole-sums kernel (rx=1) 5 points under
# the row kernel on 512 x 2^20 and 4 x 2^27 (H100); its load loop spilled (an inlined gp_xvalue
# array took the registers); gp_xvalue is now a call. Same A/B, three rounds, then
# test_cuda_reduce --quick.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,driver_version --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --variants 'rx=0' --reps 20 > $O/rx-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 120 $T --quick > $O/test.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/rx-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_all|sum_rows)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
