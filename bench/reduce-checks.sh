#!/usr/bin/env bash
# bench/reduce-checks.sh — the correctness half of a device script for the CUDA reductions, after
# bench/alternate.sh has timed the builds: v/bench/bench_reduce_gpu verified against the CPU on
# every shape (uniform and wide data), then v/tests/gpu/test_cuda_reduce on the column shapes of one
# y-block (every variant) and --quick. Logs go to LOGDIR; one summary line per check to stdout.
# usage: bash bench/reduce-checks.sh LOGDIR [OPS]   (OPS for the verified benches: default sum_cols)
set -u
if [ $# -lt 1 ]; then sed -n '6p' "$0" >&2; exit 2; fi
L=$1 ops=${2:-sum_cols}
mkdir -p "$L"
t0=$SECONDS
for d in uniform wide; do
  timeout 30 v/bench/bench_reduce_gpu --ops "$ops" --data $d --reps 5 > "$L/verify-$d.txt" 2>&1
  echo "verified $d rc=$? $(grep -ciE 'differ|mismatch|FAIL' "$L/verify-$d.txt") difference lines ($((SECONDS-t0)) s)"
done
timeout 75 v/tests/gpu/test_cuda_reduce --only 4x200004,4x20004,4x20003,4x2004,4x2003,3x65536,33x131072,1031x4096 > "$L/only.txt" 2>&1
echo "test_cuda_reduce --only (columns of one y-block) rc=$? $(grep -c FAIL "$L/only.txt") FAIL lines; $(tail -1 "$L/only.txt") ($((SECONDS-t0)) s)"
timeout 60 v/tests/gpu/test_cuda_reduce --quick > "$L/quick.txt" 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 "$L/quick.txt") ($((SECONDS-t0)) s)"
