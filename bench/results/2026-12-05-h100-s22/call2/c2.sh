# device call 2 (session 22): why 4 ranks read a 4 GiB file slower than 1 rank. Ceiling: dd of
# the page-cached file by 1/4/8 processes in parallel; gpipe reduce --op max (CPU, read-bound)
# with two-phase collective MPI-IO (GPIPE_MPIIO=collective, the old default), HDF5 collective +
# individual MPI-IO for whole-row blocks (the new default, auto), and ROMIO (old default).
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/sum.txt
mpirun -n 8 v/gpipe gen /tmp/f32.h5 --shape 32768x32768 --dtype f32 -q 2>/dev/null
ls -la /tmp/f32.h5; cat /tmp/f32.h5 > /dev/null
t() { awk "BEGIN{printf \"%.3f\", $(date +%s.%N) - $1}"; }
for np in 1 4 8; do for r in 1 2; do
  a=$(date +%s.%N); q=$((4096 / np))
  for i in $(seq 0 $((np - 1))); do dd if=/tmp/f32.h5 of=/dev/null bs=1M skip=$((i * q)) count=$q status=none & done; wait
  echo "dd np $np: $(t $a) s" | tee -a $O/lines.txt
done; done
for r in 1 2; do for np in 1 4 8; do for m in coll auto romio; do
  X=""; [ $m = coll ] && X="-x GPIPE_MPIIO=collective"; [ $m = romio ] && X="--mca io romio321 -x GPIPE_MPIIO=collective"
  timeout 60 mpirun -n $np $X v/gpipe reduce /tmp/f32.h5 --op max --device cpu --json /dev/null 2>&1 | grep "^gpipe:\|rror" | sed "s/^/$m np $np: /;s/gpipe: max.*rows, //" | tee -a $O/lines.txt
done; done; done
for m in coll auto; do
  X=""; [ $m = coll ] && X="-x GPIPE_MPIIO=collective"
  timeout 60 mpirun -n 4 $X v/gpipe stats /tmp/f32.h5 --device cuda --json /dev/null 2>&1 | grep "^gpipe:" | sed "s/^/$m np 4 stats cuda: /;s/gpipe: stats.*rows, //" | tee -a $O/lines.txt
done
echo done
# a transpose (alltoall: whole-row panels), 1 GiB f32, 4 ranks, CPU: the read stage with two-phase and individual reads
mpirun -n 4 v/gpipe gen /tmp/t.h5 --shape 16384x16384 --dtype f32 -q 2>/dev/null
for r in 1 2; do for m in coll auto; do
  X=""; [ $m = coll ] && X="-x GPIPE_MPIIO=collective"
  rm -f /tmp/tt.h5; timeout 120 mpirun -n 4 $X v/gpipe transpose /tmp/t.h5 -o /tmp/tt.h5 --device cpu --strategy alltoall --json - -q 2>&1 | grep -o "\"seconds.*finish[^,]*" | sed "s/^/$m np 4 transpose: /" | tee -a $O/lines.txt
done; done
v/gpipe verify /tmp/t.h5 /tmp/tt.h5 --transposed 2>&1 | tail -1 | tee -a $O/lines.txt
# the rstream refactor (bd1b12f) on the GPU: the reduce/stats/verify CLI cases with --device cuda
pybin=/usr/bin/python3; env -u LD_LIBRARY_PATH $pybin -c "import h5py" 2>/dev/null || pybin=python3
GP_CHILD_LD_LIBRARY_PATH=$LD_LIBRARY_PATH env -u LD_LIBRARY_PATH $pybin tests/mpi/check_reduce.py --gpipe $PWD/v/gpipe --np 2 --device cuda --only stats_ --only verify_ --only reduce_ 2>&1 | tail -3 | tee -a $O/lines.txt
