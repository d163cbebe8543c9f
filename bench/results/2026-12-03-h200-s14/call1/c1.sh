source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv > $O/smi.txt 2>&1
timeout 200 $B/tests/gpu/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -c 2097155 $O/tcr.txt | sed 's/^/lines naming 4x2097155: /' | tee -a $O/sum.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu/test_cuda_reduce --quick > $O/mem.txt 2>&1; echo "memcheck rc=$? $(tail -1 $O/mem.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 150 $B/bench/bench_reduce_gpu --reps 20 > $O/b1.txt 2>&1; echo "bench rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -iE 'cub_sum|_rows|_cols|_all|verif|worst' $O/b1.txt | grep -v cub_rows | cut -c1-120 | tail -60
cat $O/sum.txt
