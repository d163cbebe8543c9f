source .devdeps/activate.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
timeout 300 .gpucarry/bench_pattern --reps 20 --json $OUT/pattern.jsonl > $OUT/pattern.txt 2>&1; echo rc=$?
cat $OUT/pattern.txt
