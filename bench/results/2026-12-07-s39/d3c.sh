# session 39 call 3c (little device time left): ck against the default, the whole sum, 3 rounds;
# each variant compared with the default's exact sum in the same run (a lost unit would differ)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/d3.txt
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'ck=16;ck=32;ck=64;ck=128;ck=512;dyn=16' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY|GP_|error)" | sed "s/^/r$r /" >> $OUT/d3.txt
  python3 bench/results/2026-12-07-s36/summ.py $OUT/d3.txt > $OUT/summ.txt
done
cat $OUT/summ.txt; grep -c "equal to the default" $OUT/d3.txt; grep -m3 -v "equal to the default\|reference\|not reproducible\|exact fallback" $OUT/d3.txt
