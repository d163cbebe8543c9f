# device call 1 (session 16): k_vec1h 256x256-byte tiles for 1 B (F: 256 threads, 2 micro-blocks
# one after the other, 3 blocks/SM; EF: 512 threads, 2 blocks/SM), pointer-stepped addresses
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 60 $B/test_cuda_transpose --quick > $O/tct.txt 2>&1; echo "test_cuda_transpose --quick rc=$? $(tail -1 $O/tct.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for i in 1 2; do
  timeout 100 $B/gp_gpu_bench --esize 1 --tune --match 'cfgE+alt+cm,cfgF+alt+cm,cfgEF+alt+cm' --reps 20 > $O/b1_$i.txt 2>&1; echo "bench 1 B run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
timeout 150 $B/gp_gpu_bench --reps 20 --json $O/bk.jsonl > $O/bk.txt 2>&1; echo "bench kernels rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_transpose --max-elems 140000 > $O/mem.txt 2>&1; echo "memcheck rc=$? $(tail -1 $O/mem.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_cuda_transpose --max-elems 140000 > $O/race.txt 2>&1; echo "racecheck rc=$? $(tail -1 $O/race.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
echo "== 1 B"; grep -hE 'copy|cfg|default' $O/b1_1.txt $O/b1_2.txt; echo "== all"; grep -vE '^\s*$' $O/bk.txt | tail -45
cat $O/sum.txt
