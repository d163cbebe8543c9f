# device call 1 (session 21): gpipe stats on the GPU. bench_reduce_gpu's stats row (device part,
# against CUB and checked against the CPU on 16 threads), test_cuda_reduce --quick (stats CPU ==
# CUDA included), end to end: gpipe stats --device cpu|cuda at 1 and 4 ranks on a 4 GiB f32 and a
# 2 GiB f64 file in the page cache, gpipe reduce/stats --device cuda with pinned panels off/on
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
timeout 150 v/brg --reps 20 --ops stats,sum_all > $O/brg.txt 2>&1; echo "brg rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 200 v/test_cuda_reduce --quick > $O/tcr.txt 2>&1; echo "tcr rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
mpirun -n 8 v/gpipe gen /tmp/f32.h5 --shape 32768x32768 --dtype f32 -q; mpirun -n 8 v/gpipe gen /tmp/f64.h5 --shape 16384x16384 --dtype f64 -q
echo "gen ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for r in 1 2; do
  for f in f32 f64; do for dev in cpu cuda; do for np in 1 4; do
    timeout 60 mpirun -n $np v/gpipe stats /tmp/$f.h5 --device $dev --json $O/st_$f.jsonl 2>> $O/e2e.txt || echo "FAIL stats $f $dev $np" | tee -a $O/sum.txt
  done; done; done
  for pin in 0 1; do
    timeout 60 mpirun -x GP_CUDA_PIN=$pin -n 1 v/gpipe reduce /tmp/f32.h5 --op sum --device cuda --json $O/red_pin$pin.jsonl 2>> $O/e2e.txt
    timeout 60 mpirun -x GP_CUDA_PIN=$pin -n 1 v/gpipe stats /tmp/f32.h5 --device cuda --json $O/st_pin$pin.jsonl 2>> $O/e2e.txt
  done
done
echo "e2e ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E '^(copy|cub_sum|sum_all|stats) |^verify stats' $O/brg.txt | head -20
tail -2 $O/tcr.txt
env -u LD_LIBRARY_PATH python3 - $O <<'PY'
import json, sys, glob, os
for fn in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    rows = [json.loads(l) for l in open(fn)]
    keys = set()
    for r in rows:
        keys.add(tuple(r.get(k) for k in ("count", "nan", "min_str", "max_str", "mean_bits", "std_bits", "checksum", "bits")))
    print(os.path.basename(fn), "runs", len(rows), "distinct results", len(keys), "seconds", [round(r.get("seconds", -1), 3) for r in rows], "ranks", [r.get("ranks") for r in rows])
PY
grep -c . $O/e2e.txt; grep -iE "error|fail" $O/e2e.txt | head
cat $O/sum.txt
