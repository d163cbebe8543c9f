# device call 2 (session 16): k_vec1h shapes for 1 B as ALT+CFG_F / ALT+CFG_E|F in three builds
#  A (committed candidates): F 256x256 B, 256 thr, two micro-blocks in sequence, 3 blocks/SM; EF 256x256, 512 thr, 2 blocks/SM
#  B: F 128x256 B, 256 thr, 4 blocks/SM (64 regs); EF 128x256, 3 blocks/SM (80 regs)
#  C: F 256x256 B, 256 thr, 16 loads in flight, 2 blocks/SM (128 regs, 56 B spilled); EF 128x256, 128 thr, 16 loads, 6 blocks/SM (80 regs, 168 B spilled)
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
for i in 1 2; do for v in A B C; do
  bin=$B/gp_gpu_bench; [ $v != A ] && bin=$B/gp_gpu_bench_$v
  timeout 100 $bin --esize 1 --tune --match 'cfgE+alt+cm,cfgF+alt+cm,cfgEF+alt+cm' --reps 20 > $O/b1_${v}_$i.txt 2>&1; echo "bench 1 B build $v run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done; done
for v in A B C; do echo "== build $v"; grep -hE '^  (copy|default|swizzle\+cfg|pad)' $O/b1_${v}_1.txt $O/b1_${v}_2.txt | sort | uniq; done
cat $O/sum.txt
