# device call 5 (session 22): alltoall vs direct at 2, 3 and 4 ranks (call 4 had 8), 2 GiB f32
# 16384x32768 in /dev/shm, CPU backend.
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/sum.txt
mpirun -n 8 v/gpipe gen /dev/shm/a.h5 --shape 16384x32768 --dtype f32 -q 2>/dev/null
for r in 1 2; do for np in 2 3 4; do for st in alltoall direct; do rm -f /dev/shm/t.h5
  timeout 60 mpirun -n $np v/gpipe transpose /dev/shm/a.h5 -o /dev/shm/t.h5 --strategy $st --device cpu --json - -q 2>/dev/null | grep -o '"seconds":[0-9.]*\|"read":[0-9.]*\|"write":[0-9.]*' | tr '\n' ' ' | sed "s|^|np $np $st: |" | tee -a $O/lines.txt; echo | tee -a $O/lines.txt
done; done; done
echo done
