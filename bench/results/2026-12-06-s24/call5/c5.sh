# device call 5 (session 24): the committed code (93dff32: plain 16-byte loads), as built: the sums
# against CUB on whatever card comes, then test_cuda_reduce --quick (CPU == CUDA bit for bit) for as
# long as the device time lasts.
source .devdeps/activate.sh
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $O/sum.txt
timeout 40 .gpucarry/final/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --reps 20 > $O/bench.txt 2>&1
echo "bench rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E "^(sum_)" $O/bench.txt | awk '{printf "%s %s %s | ", $1, $2, $5} END{print ""}' | tee -a $O/sum.txt
grep -E "verification" $O/bench.txt | tee -a $O/sum.txt
timeout 50 .gpucarry/final/test_cuda_reduce --quick > $O/test.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
