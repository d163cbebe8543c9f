# device call 3 (session 28): compute-sanitizer racecheck over test_cuda_reduce --quick (ctest
# gpu_sanitizer_reduce_racecheck; last run in the nineteenth session).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
timeout 580 ctest --test-dir v -R 'gpu_sanitizer_reduce_racecheck' --output-on-failure > $O/ctest.log 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $O/ctest.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E "Test +#" $O/ctest.log | tee -a $O/sum.txt
tail -5 $O/ctest.log | tee -a $O/sum.txt
