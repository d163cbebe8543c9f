# device call 4 (session 22): transpose strategies now that whole-row reads skip the two-phase
# path: alltoall vs direct (auto's single-node choice) at 8 ranks, shapes and element sizes,
# CPU and CUDA backends, in memory and out of core (--mem 256M), /dev/shm and /tmp (disk).
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT
export OMPI_MCA_pcompress_base_silence_warning=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/sum.txt
mpirun -n 8 v/gpipe gen /dev/shm/a.h5 --shape 16384x32768 --dtype f32 -q 2>/dev/null
mpirun -n 8 v/gpipe gen /dev/shm/b.h5 --shape 65536x8192 --dtype f32 -q 2>/dev/null
mpirun -n 8 v/gpipe gen /dev/shm/c.h5 --shape 16384x16384 --dtype f64 -q 2>/dev/null
mpirun -n 8 v/gpipe gen /dev/shm/d.h5 --shape 4096x131072 --dtype f32 -q 2>/dev/null
cp /dev/shm/a.h5 /tmp/a.h5
run() {  # label, input, output, extra...
  local l=$1 i=$2 o=$3; shift 3
  for st in alltoall direct; do rm -f $o
    timeout 100 mpirun -n 8 v/gpipe transpose $i -o $o --strategy $st --json - -q "$@" 2>/dev/null | grep -o '"seconds":[0-9.]*\|"read":[0-9.]*\|"write":[0-9.]*\|"bands":[0-9]*' | tr '\n' ' ' | sed "s|^|$l $st: |" | tee -a $O/lines.txt; echo | tee -a $O/lines.txt
  done
}
for r in 1 2; do
  run "a 16384x32768 f32 cpu shm" /dev/shm/a.h5 /dev/shm/t.h5 --device cpu
  run "a 16384x32768 f32 cuda shm" /dev/shm/a.h5 /dev/shm/t.h5 --device cuda
  run "b 65536x8192 f32 cpu shm" /dev/shm/b.h5 /dev/shm/t.h5 --device cpu
  run "c 16384x16384 f64 cpu shm" /dev/shm/c.h5 /dev/shm/t.h5 --device cpu
  run "d 4096x131072 f32 cpu shm" /dev/shm/d.h5 /dev/shm/t.h5 --device cpu
  run "a ooc --mem 256M cpu shm" /dev/shm/a.h5 /dev/shm/t.h5 --device cpu --mem 256M
  run "a 16384x32768 f32 cpu disk" /tmp/a.h5 /tmp/t.h5 --device cpu
done
v/gpipe verify /dev/shm/a.h5 /tmp/t.h5 --transposed 2>&1 | tail -1 | tee -a $O/lines.txt
echo done
