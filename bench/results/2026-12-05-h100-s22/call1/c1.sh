# device call 1 (session 22): the twenty-first session's call 4, where the time of
# `gpipe stats/reduce --device cuda` goes at 1 and 4 ranks on the one GPU (the summary line's rank-0
# setup / read / upload + work), 4 GiB f32; plus a small file (context set-up alone).
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/sum.txt
nvidia-smi -q -d COMPUTE | grep -i "compute mode" | tee -a $O/sum.txt
mpirun -n 8 v/gpipe gen /tmp/f32.h5 --shape 32768x32768 --dtype f32 -q 2>/dev/null
mpirun -n 1 v/gpipe gen /tmp/s.h5 --shape 64x64 --dtype f32 -q 2>/dev/null
for np in 1 4; do for dev in cuda cpu; do
  a=$(date +%s.%N); mpirun -n $np v/gpipe stats /tmp/s.h5 --device $dev --json /dev/null 2>&1 | grep "^gpipe:" | tee -a $O/lines.txt
  echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s: np $np small stats $dev" | tee -a $O/lines.txt
done; done
for r in 1 2; do for np in 1 4; do for dev in cuda cpu; do
  timeout 60 mpirun -n $np v/gpipe stats /tmp/f32.h5 --device $dev --json /dev/null 2>&1 | grep "^gpipe:" | tee -a $O/lines.txt
  [ $dev = cuda ] && timeout 60 mpirun -n $np v/gpipe reduce /tmp/f32.h5 --op sum --device cuda --json /dev/null 2>&1 | grep "^gpipe:" | tee -a $O/lines.txt
  [ $dev = cuda ] && timeout 60 mpirun -n $np -x GP_CUDA_PIN=0 v/gpipe stats /tmp/f32.h5 --device cuda --json /dev/null 2>&1 | grep "^gpipe:" | sed 's/^/PIN=0 /' | tee -a $O/lines.txt
done; done; done
echo done
