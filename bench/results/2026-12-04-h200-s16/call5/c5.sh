# device call 5 (session 16): the final transpose code (k_vec1h with pointer-stepped addresses; ALT F/EF at 4 and
# 3 blocks/SM): every kernel test incl. > 2^31 elements, memcheck, the backend, the pipeline CPU == CUDA at 1-4
# ranks, the kernel bench
source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-slim/lib:$LD_LIBRARY_PATH
B=build-slim; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 100 $B/tests/gpu/gp_gpu_bench --reps 20 --json $O/bk.jsonl > $O/bk.txt 2>&1; echo "bench kernels rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for i in 1 2; do timeout 60 $B/tests/gpu/gp_gpu_bench --esize 1 --tune --match 'cfgE+alt+cm,cfgF+alt+cm,cfgEF+alt+cm' --reps 20 > $O/b1_$i.txt 2>&1; echo "bench 1 B run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt; done
timeout 220 $B/tests/gpu/test_cuda_transpose --big > $O/tct-big.txt 2>&1; echo "test_cuda_transpose --big rc=$? $(tail -1 $O/tct-big.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu/test_cuda_transpose --max-elems 140000 > $O/mem.txt 2>&1; echo "memcheck rc=$? $(tail -1 $O/mem.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 100 $B/tests/gpu/test_cuda_backend > $O/backend.txt 2>&1; echo "test_cuda_backend rc=$? $(tail -1 $O/backend.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 200 bash tests/gpu/check_pipeline.sh $B/gpipe mpiexec python3 $PWD > $O/pipeline.txt 2>&1; echo "check_pipeline rc=$? $(tail -1 $O/pipeline.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -hE '^  (copy |default|swizzle\+|pad|none)' $O/b1_*.txt | sort -k1,1 -s; grep -A7 '^summary' $O/bk.txt
cat $O/sum.txt
