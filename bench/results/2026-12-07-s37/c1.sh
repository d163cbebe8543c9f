# session 37 call 1: (a) 32-bit special counts in the thread state (the dyn loop at 64 registers no
# longer spills): lb=4 (256 x 4 blocks, 64 registers) and lb=0 (512 x 2) with dyn=8 against the
# default (256 x 3); (b) lc: the blocks' limb atomics over lc copies of the limbs; (c) the stamps
# of the last block's end (tstamp build); the whole bench once, verified; test_cuda_reduce --quick
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
B=v/bench/bench_reduce_gpu
for r in 1 2; do
  timeout 90 $B --no-verify --ops sum_all --reps 20 --variants 'lb=4;lb=0;lc=4;lc=16;lb=4,lc=4;dyn=0' 2>&1 | grep -E "^(cub_sum|plain_sum|sum_all|VERIFY)" | sed "s/^/r$r /"
done
for t in lb=-1 lc=8 lb=4; do
  GP_CUDA_REDUCE=$t timeout 60 v/bench/bench_reduce_gpu_ts --no-verify --ops sum_all --reps 10 --cols 32768 2>&1 | grep -E "^(cub_sum|sum_all|tstamp)" | sed "s/^/$t /"
done
timeout 150 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
timeout 200 $B --reps 20 --variants 'lb=4' > /tmp/full.txt 2>&1; echo "full bench rc=$?"; grep -E "^(copy|cub|sum_|plain|VERIFY)" /tmp/full.txt | sed 's/^/full /'
