# device call 3 (session 16): 1 B
#  A (this tree): ALT+CFG_F = k_vec1h on 2-block clusters (tile 256 rows x 256 B, each block 128 rows, dst rows of
#     256 B through distributed shared memory); ALT+CFG_E|F = 128 x 256 B, 3 blocks/SM (80 regs)
#  D: ASYNC+CFG_E / ASYNC+CFG_F = k_async with 256 x 256 B stages (3 or 2 stages, 1 block/SM, 256 threads)
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 60 $B/test_cuda_transpose --quick > $O/tct.txt 2>&1; echo "test_cuda_transpose --quick rc=$? $(tail -1 $O/tct.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -m5 -i 'fail\|wrong' $O/tct.txt
for i in 1 2; do for v in A D; do
  bin=$B/gp_gpu_bench; [ $v != A ] && bin=$B/gp_gpu_bench_$v
  timeout 100 $bin --esize 1 --tune --match 'cfgE+alt+cm,cfgF+alt+cm,cfgEF+alt+cm,swizzle+async4+cm,swizzle+async5+cm,pad+async4+cm' --reps 20 > $O/b1_${v}_$i.txt 2>&1; echo "bench 1 B build $v run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done; done
for v in A D; do echo "== build $v"; grep -hE '^  (copy |default|swizzle\+|pad)' $O/b1_${v}_1.txt $O/b1_${v}_2.txt | sort | uniq; done
cat $O/sum.txt
