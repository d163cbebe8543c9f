# device call 10 (session 16): the new CPU f32 column sums (runs, folded narrow panels, AVX2 clone) against the
# CUDA kernels: test_cuda_reduce (CUDA == CPU bits on every op, axis and shape family) and bench_reduce_gpu's
# verification (2 GiB shapes, uniform and wide data; the bench's CPU reference is gp_cpu_rsum)
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
timeout 200 $B/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for d in uniform wide; do
  timeout 150 $B/bench_reduce_gpu --reps 5 --data $d --ops sum_cols,sum_rows,sum_all > $O/brg_$d.txt 2>&1; echo "bench_reduce_gpu --data $d rc=$? $(grep verification $O/brg_$d.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
grep -hE '^(cub_sum|sum_)' $O/brg_uniform.txt | cut -c1-100
cat $O/sum.txt
