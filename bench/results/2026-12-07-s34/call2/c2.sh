# device call 2 (session 34): call 1 found the warp scan no faster than the serial prefix (uniform
# 4 x 2^27 columns 0.643 both; the lo-list 0.655), so the tail's prefix was not what cost 1.7%.
# v/bench: the serial prefix again, plus an early exit for blocks with no nonzero lo
# (__syncthreads_or: uniform data skips the prefix and a barrier) and the fourth counter (slots in
# runs: one synchronisation in gp_cuda_rsum_fetch). Against v/r1 (dc02461) and v/old (41d756d):
# sum_cols uniform and wide, two rounds; v/bench verified; test_cuda_reduce on one y-block's column
# shapes and --quick; the whole reduction bench of v/bench.
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
timeout 90 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --reps 20 > $O/b2.txt 2>&1
echo "full bench rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt
grep -E "^(cub_sum|sum_)" $O/b2.txt | awk '{printf "%s %s %s %s\n", $1, $2, $3, $5}' >> $O/sum.txt
grep -iE "FAIL|differ|mismatch" $O/b2.txt | head -3 >> $O/sum.txt
tar cJf $O/logs.tar.xz -C /tmp logs
cat $O/sum.txt
