source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv > $O/smi.txt 2>&1
timeout 200 $B/tests/gpu/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 150 $B/bench/bench_reduce_gpu --reps 20 --ops sum_rows,sum_cols,max_rows,argmax_rows --variants 'lb=6;lb=8' > $O/b1.txt 2>&1; echo "bench 1 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 100 $B/bench/bench_reduce_gpu --reps 20 --no-verify --ops sum_rows,sum_cols --variants 'lb=6;lb=8' > $O/b2.txt 2>&1; echo "bench 2 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout $((560-SECONDS+t0)) sh tests/gpu/check_reduce_gpu.sh $B/gpipe > $O/crg.txt 2>&1; echo "check_reduce_gpu rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E 'cub_sum|_rows|_cols' $O/b1.txt $O/b2.txt | grep -v cub_rows | cut -c1-100
grep -iE 'verification|FAIL' $O/b1.txt | head -5; tail -5 $O/crg.txt
cat $O/sum.txt
