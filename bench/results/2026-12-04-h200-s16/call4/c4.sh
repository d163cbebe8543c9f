# device call 4 (session 16): 1 B, ALT+CFG_F = k_vec1h on 2-block clusters, pieces pushed into the owner block's
# tile through distributed shared memory (stores), each block writes 128 dst rows of 256 B from its own tile
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 60 $B/test_cuda_transpose --quick > $O/tct.txt 2>&1; echo "test_cuda_transpose --quick rc=$? $(tail -1 $O/tct.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -m5 -i 'fail\|wrong' $O/tct.txt
for i in 1 2 3; do
  timeout 100 $B/gp_gpu_bench --esize 1 --tune --match 'cfgE+alt+cm,cfgF+alt+cm,cfgEF+alt+cm' --reps 20 > $O/b1_$i.txt 2>&1; echo "bench 1 B run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
grep -hE '^  (copy |default|swizzle\+|pad|none)' $O/b1_*.txt | sort -k1,1 -s
cat $O/sum.txt
