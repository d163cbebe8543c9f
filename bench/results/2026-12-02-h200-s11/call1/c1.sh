source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv > $O/smi.txt 2>&1
for k in 1 2; do timeout 150 $B/bench/bench_reduce_gpu --reps 20 --ops sum_all --variants 'es=1;es=1,bs=512,unroll=4;es=1,bps=4;es=0,bps=4' > $O/sa$k.txt 2>&1; echo "bench sum_all $k rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt; done
timeout 300 $B/tests/gpu/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E 'cub_sum|sum_all|verif' $O/sa1.txt $O/sa2.txt | cut -c1-120
cat $O/sum.txt
