source .devdeps/activate.sh; O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
for i in 1 2; do
  timeout 200 .gpucarry/bench_pattern --reps 20 --json $O/pattern.json > $O/pattern$i.txt 2>&1
  echo "bench_pattern run $i rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
cat $O/pattern1.txt; grep -h "cm " $O/pattern2.txt | sed 's/^/run2 /'
cat $O/sum.txt
