# device call 1 (session 17): k_sum_all_tma (tma=1..3, bulk copies into shared memory) against the default
# whole f32 sum, 5 shapes x 2 runs; then test_cuda_reduce (CUDA == CPU bits, with the new CPU f64/sumsq lanes
# and the tma variants)
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv,noheader > $O/gpu.txt
for r in 1 2; do
  timeout 170 $B/bench_reduce_gpu --reps 20 --ops sum_all --variants 'tma=1;tma=2;tma=3' > $O/brg_tma$r.txt 2>&1
  echo "bench run $r rc=$? $(grep verification $O/brg_tma$r.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
timeout 280 $B/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do grep -hE '^(cub_sum|plain_sum|sum_all)' $O/brg_tma$r.txt | cut -c1-110; done
cat $O/gpu.txt $O/sum.txt
