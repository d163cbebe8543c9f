#!/usr/bin/env bash
# bench/alternate.sh — a before/after timing on the GPU machine: bench_reduce_gpu of several builds
# (v/NAME/bench_reduce_gpu, packed beside the device scripts) run in alternation, round after round,
# so that clock and thermal drift fall on every build alike. --no-verify: verify the new build once,
# separately (bench_reduce_gpu without it compares every shape against the CPU).
# usage: bash bench/alternate.sh OUTDIR ROUNDS 'NAME ...' 'DATA ...' [bench_reduce_gpu args, e.g. --ops sum_cols --reps 20]
# Writes OUTDIR/NAME-DATA-ROUND.txt (raw) and prints, per run, a '#' line (rc, seconds so far) and one
# line per op and shape: NAME DATA ROUND OP SHAPE GB/s xCUB r+w GB/s.
set -u
if [ $# -lt 4 ]; then sed -n '6p' "$0" >&2; exit 2; fi
O=$1 R=$2 names=$3 datas=$4
shift 4
mkdir -p "$O"
t0=$SECONDS
for r in $(seq "$R"); do for d in $datas; do for b in $names; do
  f=$O/$b-$d-$r.txt
  timeout 60 "v/$b/bench_reduce_gpu" --no-verify --data "$d" "$@" > "$f" 2>&1
  echo "# $b $d round $r rc=$? ($((SECONDS - t0)) s)"
  awk -v t="$b $d $r" '$2 ~ /^[0-9]+x[0-9]+$/ && $1 != "copy" && $1 !~ /^cub_/ {printf "%s %s %s %s x%s r+w %s\n", t, $1, $2, $3, $5, $4}' "$f"
done; done; done
