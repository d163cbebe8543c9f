# device call 2b (session 28), on the warm machine of call 2 (H100, vbios 96.00.DA.00.0C), as run:
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH; B=v/bench/bench_reduce_gpu; for c in 2048 1024 4096; do timeout 60 $B --ops sum_rows --cols $c --variants 'rw=0;unroll=4' --reps 20 --no-verify 2>&1 | grep -E "^(sum_rows|plain_rows)" | awk '{print $1, $2, $5}'; done; nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
# output (x CUB, column 3):
# sum_rows 262144x2048 0.969
# plain_rows 262144x2048 0.990
# sum_rows_rw=0 262144x2048 0.979
# sum_rows_unroll=4 262144x2048 0.969
# sum_rows 524288x1024 0.974
# plain_rows 524288x1024 0.981
# sum_rows_rw=0 524288x1024 0.971
# sum_rows_unroll=4 524288x1024 0.975
# sum_rows 131072x4096 0.936
# plain_rows 131072x4096 0.998
# sum_rows_rw=0 131072x4096 0.984
# sum_rows_unroll=4 131072x4096 0.936
# NVIDIA H100 80GB HBM3, 96.00.DA.00.0C
