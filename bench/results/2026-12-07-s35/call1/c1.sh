# session 35 call 1: is the whole sum's gap to CUB a fixed cost per call or a rate? (size sweep)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
B=v/bench_reduce_gpu
for L in 29 25 26 27 28 29 24; do
  $B --no-verify --log2n $L --ops sum_all --shape 0 --reps 30 2>&1 | grep -E "^(device|copy|cub_sum|plain_sum|sum_all) " | sed "s/^/L=$L /"
done
# ri auto on this board: default (ri=-1) against forced 0 and 1, 512 x 2^20 rows
$B --no-verify --ops sum_rows --shape 1 --reps 20 --variants 'ri=0;ri=1' 2>&1 | grep -E "^(device|cub_sum|sum_rows)"
$B --no-verify --ops sum_rows --shape 1 --reps 20 --variants 'ri=0;ri=1' 2>&1 | grep -E "^(cub_sum|sum_rows)"
