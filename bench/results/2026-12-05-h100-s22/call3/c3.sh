# device call 3 (session 22): whole-row writes with MPI-IO individual I/O (auto) against the
# two-phase collective write (GPIPE_MPIIO=collective); files in /dev/shm.
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; S=/dev/shm
export OMPI_MCA_pcompress_base_silence_warning=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/sum.txt; df -h /dev/shm | tail -1 | tee -a $O/sum.txt
t() { awk "BEGIN{printf \"%.3f\", $(date +%s.%N) - $1}"; }
for r in 1 2; do for np in 4 8; do for m in collective auto; do
  rm -f $S/g.h5; a=$(date +%s.%N)
  mpirun -n $np -x GPIPE_MPIIO=$m v/gpipe gen $S/g.h5 --shape 16384x32768 --dtype f32 -q 2>&1 | grep -v dlopen
  echo "gen 2 GiB np $np $m: $(t $a) s" | tee -a $O/lines.txt
done; done; done
a=$(date +%s.%N); cat $S/g.h5 > /dev/null; cp $S/g.h5 $S/c.h5; echo "cp 2 GiB: $(t $a) s" | tee -a $O/lines.txt; rm -f $S/c.h5
for r in 1 2; do for np in 4 8; do for st in alltoall direct; do for m in collective auto; do
  rm -f $S/t.h5
  timeout 120 mpirun -n $np -x GPIPE_MPIIO=$m v/gpipe transpose $S/g.h5 -o $S/t.h5 --device cpu --strategy $st --json - -q 2>&1 | grep -o '"seconds":[0-9.]*\|"read":[0-9.]*\|"write":[0-9.]*\|"finish":[0-9.]*\|"bands":[0-9]*' | tr '\n' ' ' | sed "s/^/transpose np $np $st $m: /" | tee -a $O/lines.txt; echo | tee -a $O/lines.txt
done; done; done; done
v/gpipe verify $S/g.h5 $S/t.h5 --transposed 2>&1 | tail -1 | tee -a $O/lines.txt
for m in collective auto; do rm -f $S/t.h5
  timeout 120 mpirun -n 8 -x GPIPE_MPIIO=$m v/gpipe transpose $S/g.h5 -o $S/t.h5 --device cpu --mem 128M --json - -q 2>&1 | grep -o '"seconds":[0-9.]*\|"write":[0-9.]*\|"bands":[0-9]*\|"strategy":"[a-z]*"' | tr '\n' ' ' | sed "s/^/ooc transpose np 8 --mem 128M $m: /" | tee -a $O/lines.txt; echo | tee -a $O/lines.txt
done
v/gpipe verify $S/g.h5 $S/t.h5 --transposed 2>&1 | tail -1 | tee -a $O/lines.txt
echo done
