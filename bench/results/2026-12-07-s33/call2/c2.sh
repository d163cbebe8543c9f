# device call 2 (session 33): call 1 measured the runs (dc02461) at +14% on wide 4 x 2^27 columns
# (0.393 -> 0.449) but -1.7% on uniform (0.654 -> 0.643); suspect: thread 0's serial prefix over
# VEC x 16 warp counts in every block's tail. Now a warp's scan (shfl_up). Three binaries in
# alternation, sum_cols, uniform and wide, two rounds, --no-verify: v/old (main 41d756d, the
# lo-list), v/r1 (dc02461, serial prefix), v/bench (warp scan); then v/bench verified, and
# test_cuda_reduce on the column shapes of one y-block and --quick.
# Never ran (no device start after call 1). Before: apply bench/results/2026-12-07-s33/call2/scan.patch
# (git apply) on dc02461 or later, build build-gpu, pack v/bench and v/tests/gpu from it, v/r1 =
# bench_reduce_gpu of dc02461, v/old = bench_reduce_gpu of 41d756d (git worktree add /tmp/old ...).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; L=/tmp/logs; mkdir -p $L; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory --format=csv,noheader > $O/sum.txt
bash bench/alternate.sh $L 2 'old r1 bench' 'uniform wide' --ops sum_cols --reps 20 | grep -v plain_ >> $O/sum.txt
for d in uniform wide; do
  timeout 30 v/bench/bench_reduce_gpu --ops sum_cols --data $d --reps 5 > $L/verify-$d.txt 2>&1
  echo "verified $d rc=$? $(grep -ciE 'differ|mismatch|FAIL' $L/verify-$d.txt) difference lines ($((SECONDS-t0)) s)" >> $O/sum.txt
done
timeout 75 v/tests/gpu/test_cuda_reduce --only 4x200004,4x20004,4x20003,4x2004,4x2003,3x65536,33x131072,1031x4096 > $L/only.txt 2>&1
echo "test_cuda_reduce --only (columns of one y-block) rc=$? $(grep -c FAIL $L/only.txt) FAIL lines; $(tail -1 $L/only.txt) ($((SECONDS-t0)) s)" >> $O/sum.txt
timeout 60 v/tests/gpu/test_cuda_reduce --quick > $L/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $L/quick.txt) ($((SECONDS-t0)) s)" >> $O/sum.txt
tar cJf $O/logs.tar.xz -C /tmp logs
cat $O/sum.txt
