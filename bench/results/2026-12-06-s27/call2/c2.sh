# device call 2 (session 27): call 1 (H100 DA) had k_sum_rows_w (8 rows a warp, contiguous loads)
# at 0.948 against the row kernel's 0.962 on 2^20 x 512 rows, and contiguous shares per warp
# (rw=2) at 0.80: the hypothesis now is the window of memory the grid has open at once (8448 warps
# x 16 KiB). Rows per warp batch rwr = 8/4/2/1 (16/8/4/2 KiB a warp), the batch unrolled at 8 and
# 16 loads (unroll), the row kernel with a warp per row (rsteps=1: 2 KiB a warp). Twice; the
# defaults as one table if an H200 came; test_cuda_reduce --quick.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4;rwr=2;rwr=1;unroll=8;unroll=16;rw=0,bs=256,bps=8,unroll=4,rsteps=1' --reps 20 > $O/s2-$r.txt 2>&1
  echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --reps 20 > $O/b-1.txt 2>&1
fi
for f in $O/s2-*.txt $O/s1.txt $O/b-1.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
