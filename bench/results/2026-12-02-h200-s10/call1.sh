source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
B=build-gpu; O=$OUT
t0=$SECONDS
timeout 120 $B/tests/gpu/test_cuda_transpose --quick > $O/ttr.txt 2>&1; echo "test_cuda_transpose --quick rc=$? $(tail -1 $O/ttr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 150 $B/gpipe bench kernels --tune --match pf --reps 20 --json $O/bk.jsonl > $O/bk.txt 2>&1; echo "bench kernels rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 120 $B/bench/bench_reduce_gpu --reps 20 --ops sum_all,sum_rows,sum_cols --variants 'pf=1;pf=2;pf=4' > $O/br.txt 2>&1; echo "bench_reduce pf rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 100 $B/bench/bench_reduce_gpu --reps 10 --tune --shape 3 --ops sum_cols,sum_rows --no-verify > $O/bt3.txt 2>&1; echo "tune shape3 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 100 $B/bench/bench_reduce_gpu --reps 10 --tune --shape 2 --ops sum_cols,sum_rows --no-verify > $O/bt2.txt 2>&1; echo "tune shape2 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
echo == kernels; head -90 $O/bk.txt
echo == reduce; grep -E 'cub_sum|sum_all|sum_rows|sum_cols|pf=' $O/br.txt | head -60
echo == tune; grep -E 'best|default' $O/bt3.txt $O/bt2.txt | head
cat $O/sum.txt
