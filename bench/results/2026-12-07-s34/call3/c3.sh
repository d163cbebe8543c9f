# device call 3 (session 34): call 2 found the early exit by __syncthreads_or +2.5% on uniform
# 4 x 2^27 columns (0.643 -> 0.659) but -2.5% on wide (0.449 -> 0.437). v/bench: the same exit by a
# shared flag (lane 0 of a warp with a nonzero lo sets it; zeroed before the block's first
# barrier), a plain __syncthreads. Against v/r1 (dc02461, no exit) and v/or (call 2's build):
# 4 x 2^27 (--shape 4) only, uniform and wide, three rounds; v/bench verified on every shape;
# test_cuda_reduce on one y-block's column shapes and --quick.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; L=/tmp/logs; mkdir -p $L; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory --format=csv,noheader > $O/sum.txt
bash bench/alternate.sh $L 3 'r1 or bench' 'uniform wide' --ops sum_cols --shape 4 --reps 20 | grep -v plain_ >> $O/sum.txt
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
