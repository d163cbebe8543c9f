# device call 1 (session 19): the whole GPU suite on this code (CPU argmin/argmax rewritten; the
# seventeenth session's CPU lanes/extrema/stats), and the reduce CLI CPU == CUDA script
source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz
B=build-gpu; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
(timeout 520 sh tests/gpu/check_reduce_gpu.sh $PWD/$B/gpipe > $O/crg.txt 2>&1; echo "check_reduce_gpu rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt) &
timeout 540 ctest --test-dir $B -L gpu -j8 --output-on-failure > $O/ctest.txt 2>&1; echo "ctest -L gpu rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
wait
grep -E 'Test +#|tests passed|tests failed' $O/ctest.txt | tail -14
tail -5 $O/crg.txt
cat $O/sum.txt
