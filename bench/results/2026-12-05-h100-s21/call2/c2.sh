# device call 2 (session 21): the steps of the stats device part; the reduce/stats CLI suite on CUDA
# (tests/gpu/check_reduce_gpu.sh at 1 rank: exact references, and CPU == CUDA JSON bits of every
# op, axis and stats on 9 larger matrices); reduce --device cuda with the panels pinned or not
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do timeout 100 v/brg --reps 20 --ops stats,sum_all --shape 0 > $O/brg_$r.txt 2>&1; echo "brg rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt; done
mpirun -n 8 v/gpipe gen /tmp/f32.h5 --shape 32768x32768 --dtype f32 -q 2>/dev/null
for r in 1 2; do for pin in 0 1; do
  timeout 60 mpirun -x GP_CUDA_PIN=$pin -n 1 v/gpipe reduce /tmp/f32.h5 --op sum --device cuda 2>&1 | grep -v pmix | grep gpipe: | tee -a $O/pin.txt
done; done
rm -f /tmp/f32.h5
GP_REDUCE_NPS=1 timeout 400 bash tests/gpu/check_reduce_gpu.sh $PWD/v/gpipe > $O/crg.txt 2>&1; echo "crg rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E '^(cub_sum|sum_all|stats|stats_sumsq|stats_aux) |^verify stats' $O/brg_*.txt
grep -E "PASS|FAIL|results|passed|failed" $O/crg.txt | tail -15
cat $O/sum.txt
