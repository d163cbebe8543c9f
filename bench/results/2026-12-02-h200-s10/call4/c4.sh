source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
$B/bench/bench_pattern --reps 10 --json $O/issue.jsonl > $O/issue.txt 2>&1; echo "pattern rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 120 $B/bench/bench_reduce_gpu --reps 20 --ops max_rows,argmax_rows,max_cols,max_all > $O/ext.txt 2>&1; echo "bench_reduce ext rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 330 $B/tests/gpu/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
awk '/bench.s matrices/{f=1} /^index map/{f=0} f' $O/issue.txt
grep -E 'cub_sum|max_|verification' $O/ext.txt
cat $O/sum.txt
