# device call 1 (session 34; v/bench also has the fourth counter, slots in runs, for one synchronisation in
# gp_cuda_rsum_fetch, which only the verified runs and the tests exercise): the thirty-third session's call 2, never run (bench/results/2026-12-07-s33/
# call2/c2.sh: scan.patch, the warp-0 shfl_up prefix, against v/r1 = dc02461's serial prefix and
# v/old = 41d756d's lo-list, sum_cols uniform and wide, two rounds; the patched build verified and
# test_cuda_reduce on one y-block's column shapes and --quick), then the whole reduction bench of the
# patched build with the off-by-default tunings wc=1 and ri=1 as variants (the figures on an H200).
bash bench/results/2026-12-07-s33/call2/c2.sh > /dev/null
source .devdeps/activate.sh; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
timeout 90 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'wc=1;ri=1' --reps 20 > $O/b1.txt 2>&1
echo "full bench rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt
grep -E "^(cub_sum|sum_)" $O/b1.txt | awk '{printf "%s %s %s %s\n", $1, $2, $3, $5}' >> $O/sum.txt
grep -iE "FAIL|differ|mismatch" $O/b1.txt | head -3 >> $O/sum.txt
cat $O/sum.txt
