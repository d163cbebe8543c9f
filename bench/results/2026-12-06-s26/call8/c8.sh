# device call 8 (session 26): the code that lands. Defaults against: cx=0 (columns of 4 f32 by the
# column kernel, as before), bs=512,bps=8,unroll=8 (the old column shape for 2^20 x 512, now 512 x 16),
# bs=128,bps=8,unroll=8 (the old short-row shape, 2^20 x 512 rows, now 256 x 4 on every card).
# All five shapes, three ops, twice; test_cuda_reduce --quick first, the full run last.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  timeout 150 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'cx=0;bs=512,bps=8,unroll=8;bs=128,bps=8,unroll=8' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done > $O/table.txt
timeout $((560 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
cat $O/table.txt
