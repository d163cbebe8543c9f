# session 40 call 2: the variant that won call 1 (SPEC, e.g. ck=128) against the default over the whole verified bench
# (every op and shape, checked against the CPU kernels), and the whole sum over 3 more rounds
set -u
SPEC=${SPEC:-ck=32}
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/e2.txt
B=v/bench/bench_reduce_gpu
for r in 1 2 3; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants "$SPEC" 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY|error)" | sed "s/^/r$r /" >> $OUT/e2.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/e2.txt
timeout 200 $B --reps 10 --variants "$SPEC" > $OUT/full2.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full2.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
