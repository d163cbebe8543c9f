# session 40 call 2: the variant that won call 1 (SPEC, e.g. ck=128) against the default: three more
# rounds of the whole sum (e1.sh's loop), then the whole verified bench (every op and shape, checked
# against the CPU kernels)
set -u
SPEC=${SPEC:-ck=32}
VARIANTS="$SPEC" NAME=e2 bash bench/results/2026-12-07-s40/e1.sh
source .devdeps/activate.sh; export LD_LIBRARY_PATH=$PWD/v/lib:${LD_LIBRARY_PATH:-}   # (e1.sh ran in its own shell)
timeout 200 v/bench/bench_reduce_gpu --reps 10 --variants "$SPEC" > $OUT/full2.txt 2>&1; echo "full bench rc=$?"; grep -E "^(sum_|VERIFY)" $OUT/full2.txt | awk '{print $1, $2, $5}' | paste -sd' ' | fold -w 300
