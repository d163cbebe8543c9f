# device call 13 (session 26): test_cuda_reduce --quick on the last code (rsum_dev restructured); then, only on an H200: the landed defaults as one
# table against cx=0, twice; then a sweep of the row shapes on 16384 x 32768 and 512 x 2^20
# (the two row shapes the H200 keeps under or near 0.95), existing knobs only.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1); timeout 60 $T --quick > $O/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt)" | tee -a $O/sum.txt
grep -q H200 $O/sum.txt || { echo "not an H200: no bench" | tee -a $O/sum.txt; exit 0; }
for r in 1 2; do
  timeout 100 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'cx=0' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
for s in 0 1; do
  timeout 80 v/bench/bench_reduce_gpu --ops sum_rows --shape $s --variants 'bs=256,bps=8,unroll=16,rsteps=4;bs=128,bps=16,unroll=8,rsteps=4;bs=256,bps=4,unroll=16,rsteps=2;bs=512,bps=2,unroll=16,rsteps=4;bs=128,bps=16,unroll=16,rsteps=8' --reps 20 > $O/r-$s.txt 2>&1
done
for f in $O/b-*.txt $O/r-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
done | tee -a $O/sum.txt
