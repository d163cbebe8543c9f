# device call 3 (session 26): call 2's build had __launch_bounds__(512, 1) for MB = 0, which ptxas
# took as leave to use 100 registers (the default whole sum included; plain (512) keeps it at 64).
# Fixed; now tuning lb: 0 (512) at 64 registers, 3 = (256, 3) at 78-80, 2 = (256, 2) at 100-112,
# for every f32 k_sum_all at U = 8 (whole sum, rows as whole sums, columns as whole sums), and
# cx=0 (the column kernel) beside the default cx=1. All five shapes, three ops, twice; then
# test_cuda_reduce --quick and the full run (its variants include lb=2 and lb=3).
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  timeout 150 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'lb=3;lb=2;cx=0' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
if grep -q H200 $O/sum.txt; then
  timeout 100 v/bench/bench_reduce_gpu --ops sum_rows --shape 2 --variants 'bs=128,bps=16,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=8;bs=256,bps=8,unroll=4,rsteps=4' --reps 20 > $O/s-1.txt 2>&1
  echo "h200 short rows ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
fi
timeout $((560 - (SECONDS-t0))) $T > $O/full.txt 2>&1
echo "test_cuda_reduce full rc=$? $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/b-*.txt $O/s-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done | tee -a $O/sum.txt
