# session 38 call 5: fin=2 the default (test variant 0), fin=1 in variant 1; the GPU test, the
# default against fin=1 over three rounds, the verified bench
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader | tee $OUT/c5.txt
B=v/bench/bench_reduce_gpu
timeout 100 v/tests/gpu/test_cuda_reduce --quick > $OUT/quick5.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 $OUT/quick5.txt)"; grep -m5 FAIL $OUT/quick5.txt
for r in 1 2 3; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'fin=1' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /" >> $OUT/c5.txt
done
python3 bench/results/2026-12-07-s36/summ.py $OUT/c5.txt
timeout 150 $B --reps 10 --variants 'fin=1' > $OUT/full5.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full5.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
