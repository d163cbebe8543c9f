# session 36 call 10: the final kernels on whatever card comes (an H200 hoped for): the whole sum
# default (dyn=8, fr=1) against the old default twice, then the whole bench once (verified)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version,memory.total --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 60 $B --no-verify --ops sum_all --reps 20 --variants 'dyn=0,fr=0;dyn=16' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
timeout 200 $B --reps 20 > /tmp/full.txt 2>&1; echo "full bench rc=$?"; grep -E "^(copy|cub_sum|sum_|VERIFY)" /tmp/full.txt | sed 's/^/full /'
