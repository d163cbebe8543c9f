# device call 2 (session 30): where do plain_rows' row stores cost? plain_rows_ns (no stores) read ~4
# points faster than plain_rows in call 1. Probes on 2^20 x 512: streaming stores, streaming loads,
# stores into an L2-resident 1 MiB buffer, stores from shared memory every 32 steps. 3 rounds.
# On an H200 also the defaults table (sum_all, sum_rows, sum_cols on every shape).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 60 $B --ops sum_rows --shape 2 --reps 20 > $O/u$r.txt 2>&1
done
if grep -q H200 $O/sum.txt; then
  timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1.txt 2>&1
  timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rwp=0' --reps 20 > $O/b.txt 2>&1
fi
echo "bench done ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/u*.txt $O/s1.txt $O/b.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -o "^plain[a-z0-9_]* .*error <= [^ ]* of the bound" $f | awk '{print $1, $(NF-3)}' | tr '\n' ' '; echo
  grep -iE "FAIL|differ|mismatch|error" $f | grep -v "of the bound" | head -3
done | tee -a $O/sum.txt
