# device call 1 (session 24): the code landed since the last GPU run, on the device:
# the job files' map + write driver and column moments on the panel stream (gpu_map: map_device =
# cuda == cpu, fused and through the map + write driver, 1 and 2 ranks), the pipeline CPU == CUDA at
# 1..4 ranks, the backend test, the reduce/stats/verify CLI CPU == CUDA through rstream; then the
# current figures of issues 3 and 5 on this card (defaults only).
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv,noheader | tee $O/sum.txt
timeout 330 ctest --test-dir v -R 'gpu_map|gpu_pipeline_vs_cpu|gpu_backend' --output-on-failure > $O/ctest.log 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $O/ctest.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E "Test +#" $O/ctest.log | tee -a $O/sum.txt
GP_REDUCE_NPS="1 2" GP_REDUCE_OPS="sum sumsq max argmax" GP_REDUCE_FILES="plain plaintall plainwide nan f32 wide" timeout 150 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "reduce CPU==CUDA rc=$? $(tail -1 $O/reduce-gpu.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 60 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --json $O/bench-reduce.jsonl > $O/bench-reduce.txt 2>&1
echo "bench reduce rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 80 v/gpipe bench kernels --reps 20 --match geam > $O/bench-kernels.txt 2>&1
echo "bench kernels rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E '^(copy|cub_sum|plain_sum|sum_)|whole sum|row sums|col sums|verif|FAIL' $O/bench-reduce.txt | tee -a $O/sum.txt
grep -E 'copy|default|geam|esize' $O/bench-kernels.txt | tee -a $O/sum.txt
