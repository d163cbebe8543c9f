# build an experiment gp_gpu_bench with GP_XP_F / GP_XP_EF shapes: build.sh NAME "F" "EF"
set -e; cd /work/main; n=$1
printf "#define GP_XP_F %s\n#define GP_XP_EF %s\n%s\n" "$2" "$3" "${4:-}" > /tmp/xp/$n.h
nvcc -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fPIC -std=c++17 -I. \
  -include /tmp/xp/$n.h -Xptxas -v -x cu -c kernels/cuda/transpose.cu -o /tmp/xp/$n.o 2> /tmp/xp/$n.ptxas
cp build-gpu/kernels/cuda/libgp_cuda.a /tmp/xp/lib$n.a
ar r /tmp/xp/lib$n.a /tmp/xp/$n.o >/dev/null
# replace the member named transpose.cu.o
cp /tmp/xp/$n.o /tmp/xp/transpose.cu.o; (cd /tmp/xp && ar r lib$n.a transpose.cu.o && ar d lib$n.a $n.o)
cd build-gpu/tests/gpu && g++ CMakeFiles/gp_gpu_bench.dir/gpu_bench_main.c.o -o /tmp/xp/gp_gpu_bench_$n /tmp/xp/lib$n.a $(sed 's#[^ ]*libgp_cuda.a##' CMakeFiles/gp_gpu_bench.dir/linkLibs.rsp) -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib
strip --strip-debug /tmp/xp/gp_gpu_bench_$n
grep -A2 'k_vec1hILi' /tmp/xp/$n.ptxas | grep -E 'Compiling|registers|spill' | sed 's/.*k_vec1h/k_vec1h/' | paste - - - | awk '{print $1, $6,$7,$8,$9,$10,$11,$12, $(NF-9), $(NF-8)}' | sed 's/EEEvPK5uint4PS1_mmmmmi//' | grep 'ELi3E'
