# device call 3 (session 30): (1) where do plain_rows' row stores cost? plain_rows_ns (no stores) read
# ~4 points faster than plain_rows in call 1. Probes on 2^20 x 512: streaming stores, streaming loads,
# stores into an L2-resident 1 MiB buffer, stores from shared memory every 32 steps. (2) the same
# staging in k_sum_rows_w (tuning rws=1, default 0) against the default, uniform and wide data;
# test_cuda_reduce --quick (its new variant 8 is rws=1, on every f32 row sum). On an H200 also the
# defaults table.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
timeout 60 v/tests/gpu/test_cuda_reduce --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2 3; do
  timeout 60 $B --ops sum_rows --shape 2 --variants 'rws=1;rws=0' --reps 20 > $O/u$r.txt 2>&1
done
timeout 60 $B --ops sum_rows --shape 2 --data wide --variants 'rws=1' --reps 20 > $O/w1.txt 2>&1
if grep -q H200 $O/sum.txt; then
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rws=1' --reps 20 > $O/b.txt 2>&1
fi
echo "bench done ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/u*.txt $O/w*.txt $O/b.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -o "^plain[a-z0-9_]* .*error <= [^ ]* of the bound" $f | awk '{print $1, $(NF-3)}' | tr '\n' ' '; echo
  grep -iE "FAIL|differ|mismatch|error" $f | grep -v "of the bound" | head -3
done | tee -a $O/sum.txt
