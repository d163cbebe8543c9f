# device call 3 (session 21): verify's fingerprints on the GPU. test_cuda_reduce --quick (per-row
# and per-column fingerprints CPU == CUDA), tests/gpu/check_reduce_gpu.sh at 1 rank (reduce, stats
# and verify cases with --device cuda), end to end: gpipe verify of a 2 GiB f32 file against a
# copy and against its transpose, --device cpu|cuda, 1 and 4 ranks, two rounds
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 200 v/test_cuda_reduce --quick > $O/tcr.txt 2>&1; echo "tcr rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
GP_REDUCE_NPS=1 timeout 300 bash tests/gpu/check_reduce_gpu.sh $PWD/v/gpipe > $O/crg.txt 2>&1; echo "crg rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
mpirun -n 8 v/gpipe gen /tmp/a.h5 --shape 16384x32768 --dtype f32 -q 2>/dev/null; cp /tmp/a.h5 /tmp/b.h5
mpirun -n 8 v/gpipe transpose /tmp/a.h5 -o /tmp/t.h5 -q 2>/dev/null; echo "files ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tv() {   # tv LABEL ARGS...: wall time of one gpipe verify launch
  local l=$1; shift; local a=$(date +%s%N)
  timeout 60 mpirun "$@" > $O/last.txt 2>&1; local rc=$?
  echo "$l rc=$rc $(( ($(date +%s%N) - a) / 1000000 )) ms" | tee -a $O/e2e.txt
}
for r in 1 2; do for dev in cpu cuda; do for np in 1 4; do
  tv "verify copy $dev np$np" -n $np v/gpipe verify /tmp/a.h5 /tmp/b.h5 --device $dev -q
  tv "verify transposed $dev np$np" -n $np v/gpipe verify /tmp/a.h5 /tmp/t.h5 --transposed --device $dev --json $O/vt.jsonl -q
done; done; done
echo "e2e ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tail -2 $O/tcr.txt
grep -E "PASS|FAIL|results|passed|failed" $O/crg.txt | tail -8
env -u LD_LIBRARY_PATH python3 -c "
import json; rows=[json.loads(l) for l in open('$O/vt.jsonl')]; print('transposed verdicts', [r['equal'] for r in rows], [round(r['seconds'],3) for r in rows])"
cat $O/sum.txt
