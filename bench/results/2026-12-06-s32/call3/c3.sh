# device call 3 (session 32): column results with runs (a block whose lo are mostly nonzero writes
# them as one run of values, 8 B a column, instead of 12 B a nonzero lo) and slots in column order
# (ballot + prefix, was a shared atomic's order). (1) against the dense (hi, lo) before (v/old:
# 0c1d830), sum_cols, uniform and wide, two rounds, --no-verify; (2) the new binary verified
# (uniform, wide); (3) test_cuda_reduce on the column shapes of one y-block, every variant;
# (4) test_cuda_reduce --quick.
# Before: apply bench/results/2026-12-06-s32/call3/runs.patch (git apply), build build-gpu, pack v/bench,
# v/tests/gpu and, as v/old, bench_reduce_gpu of f58d331 (the lo-list without runs: the baseline now).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory --format=csv,noheader > $O/sum.txt
for r in 1 2; do for d in uniform wide; do for b in old bench; do
  timeout 30 v/$b/bench_reduce_gpu --ops sum_cols --no-verify --data $d --reps 20 > $O/$b-$d-$r.txt 2>&1
  echo "$b $d round $r rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt
  grep -E "^sum_cols" $O/$b-$d-$r.txt | awk -v t="$b $d $r" '{printf "%s %s %s x%s r+w %s\n", t, $2, $3, $5, $4}' >> $O/sum.txt
done; done; done
for d in uniform wide; do
  timeout 30 v/bench/bench_reduce_gpu --ops sum_cols --data $d --reps 5 > $O/verify-$d.txt 2>&1
  echo "verified $d rc=$? $(grep -ciE 'differ|mismatch|FAIL' $O/verify-$d.txt) difference lines ($((SECONDS-t0)) s)" >> $O/sum.txt
done
timeout 80 v/tests/gpu/test_cuda_reduce --only 4x200004,4x20004,4x20003,4x2004,4x2003,3x65536,33x131072,1031x4096 > $O/only.txt 2>&1
echo "test_cuda_reduce --only (columns of one y-block) rc=$? $(grep -c FAIL $O/only.txt) FAIL lines; $(tail -1 $O/only.txt) ($((SECONDS-t0)) s)" >> $O/sum.txt
timeout 60 v/tests/gpu/test_cuda_reduce --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" >> $O/sum.txt
cat $O/sum.txt
