# device call 2 (session 26): column sums of 1, 2 or 4 columns as one whole sum, a lane per column
# (k_sum_all<T, U, false, C>, tuning cx). 2^27 x 4 f32 column sums: the default (cx=1: U = 8 at 64
# registers, 40 B spilled), cx=0 (the column kernel, before), cx=2 (256 x 3 blocks/SM, 96 regs cap
# 85), U = 4 (60 registers, no spill) with cx=1 and 2; sum_all beside it (its kernel is the same
# template at C = 1). Twice. Then test_cuda_reduce --quick and the full run. On an H200 also the
# short-row shapes of call 1.
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_cols --shape 3 --variants 'cx=0;cx=2;bs=256,unroll=4;bs=256,unroll=4,cx=2' --reps 20 > $O/c-$r.txt 2>&1
  echo "cols round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
if grep -q H200 $O/sum.txt; then
  timeout 100 v/bench/bench_reduce_gpu --ops sum_rows --shape 2 --variants 'bs=128,bps=16,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=4' --reps 20 > $O/s-1.txt 2>&1
  timeout 150 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'rx=0;cx=0' --reps 20 > $O/b-1.txt 2>&1
  echo "h200 extras ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
fi
timeout $((560 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/c-*.txt $O/s-*.txt $O/b-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done | tee -a $O/sum.txt
