# device call 2 (session 19): the two ctest cases and the reduce CLI script that call 1 lost to a missing
# libinih (the slim build's lib/ was not sent), with it on LD_LIBRARY_PATH
source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; tar xJf .gpucarry/lib.tar.xz
export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
(timeout 540 sh tests/gpu/check_reduce_gpu.sh $PWD/$B/gpipe > $O/crg.txt 2>&1; echo "check_reduce_gpu rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt) &
timeout 540 ctest --test-dir $B -R 'gpu_pipeline_vs_cpu|gpu_map' -j2 --output-on-failure > $O/ctest.txt 2>&1; echo "ctest pipeline+map rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
wait
grep -E 'Test +#|tests passed|tests failed' $O/ctest.txt | tail -4
grep -E '^== ' $O/crg.txt | tail -8; tail -3 $O/crg.txt
cat $O/sum.txt
