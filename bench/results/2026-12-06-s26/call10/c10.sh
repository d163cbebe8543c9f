# device call 10 (session 26): the landed code through the CLI: check_reduce_gpu.sh's job part
# (every op and axis as `gpipe run` stages, cpu at 2 ranks against cuda at 1, default and 97-row
# panels, bit for bit) on the narrow inputs whose column sums now run as whole sums (200003 x 4
# plain and wide-exponent, 200003 x 2, 300007 x 1). On an H200 first the bench table of the landed
# defaults (the H200 figures of calls 3-6 were variants).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
if grep -q H200 $O/sum.txt; then
  timeout 100 v/bench/bench_reduce_gpu --ops sum_all,sum_rows,sum_cols --variants 'cx=0' --reps 20 > $O/b-1.txt 2>&1
  echo "bench rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
  grep -E "^(sum_|plain)" $O/b-1.txt | awk '{printf "%s %s %s\n", $1, $2, $5}' | tee -a $O/sum.txt
fi
GP_REDUCE_NPS=" " GP_REDUCE_FILES="plaintall tall narrow2 plainnarrow1" timeout 280 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "check_reduce_gpu.sh rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tail -6 $O/reduce-gpu.log | tee -a $O/sum.txt
