# device call 3 (session 24), same H200 as calls 1-2: is it the L2::256B hint (e80c182, measured
# only on an H100 before it was kept) that costs the exact sums on this H200? The same bench built
# with reduce.cu's 16-byte loads as plain __ldg (-DGP_LDG_PLAIN, reduce.cu only, relinked),
# interleaved with the default binary, two rounds each.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
for r in 1 2; do
  for b in hint plain; do
    bin=v/bench/bench_reduce_gpu; [ $b = plain ] && bin=.gpucarry/bench_reduce_gpu_plain
    timeout 100 $bin --ops sum_all,sum_rows,sum_cols,max_rows,max_cols --reps 20 > $O/$b-$r.txt 2>&1
    echo "$b round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
  done
done
for f in $O/hint-*.txt $O/plain-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|max_)" $f | awk '{printf "%s %s %s | ", $1, $2, $5} END{print ""}'
  grep -E "verification" $f
done | tee -a $O/sum.txt
