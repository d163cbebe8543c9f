# device call 1 (session 33): bench/results/2026-12-06-s32/call3/c3.sh (runs.patch, landed here with
# put_lo/put_run, against the lo-list of main 41d756d as v/old), then the whole reduction bench of
# the patched binary with the off-by-default tunings wc=1 and ri=1 as variants (on an H200 these
# are the issue's own figures).
bash bench/results/2026-12-06-s32/call3/c3.sh > /dev/null
source .devdeps/activate.sh; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
timeout 90 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'wc=1;ri=1' --reps 20 > $O/b1.txt 2>&1
echo "full bench rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt
grep -E "^(cub_sum|sum_)" $O/b1.txt | awk '{printf "%s %s %s %s\n", $1, $2, $3, $5}' >> $O/sum.txt
grep -iE "FAIL|differ|mismatch" $O/b1.txt | head -3 >> $O/sum.txt
cat $O/sum.txt
