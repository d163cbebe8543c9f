# session 35 call 2: where a whole-sum launch spends its time (GP_TSTAMP build: %globaltimer per block);
# fin=2 (each block's limbs into its own slot, the last block adds them) against the atomics;
# batch=3 (exactness by sums rounded down and up) against batch=2 (the exponent test)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
t0=$SECONDS
timeout 100 $B --no-verify --ops sum_all --reps 20 --variants 'batch=3;fin=2' 2>&1 | grep -E "^(device|cub_sum|plain_sum|sum_all|VERIFY)"
echo "($((SECONDS-t0)) s)"
for L in 29; do
  timeout 40 v/bench_reduce_gpu_ts --no-verify --log2n $L --ops sum_all --shape 0 --reps 30 --variants 'fin=2' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|tstamp|VERIFY)" | sed "s/^/L=$L /"
done
echo "($((SECONDS-t0)) s)"
timeout 60 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt) ($((SECONDS-t0)) s)"
grep -m5 FAIL /tmp/quick.txt
timeout 100 $B --no-verify --ops sum_rows,sum_cols --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(cub_sum|sum_|VERIFY)"
echo "($((SECONDS-t0)) s)"
timeout 40 $B --no-verify --ops sum_all --data wide --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(cub_sum|sum_|VERIFY)"
echo "($((SECONDS-t0)) s)"
