#!/usr/bin/env bash
# bench/bench_panels.sh — the row-panel stream (pipeline/rstream.c) serial against overlapped,
# with its ceiling from the same run: bench_read's pread of the same rows at the same ranks
# (reading alone, no work). For each command: the median of REPS runs (interleaved) of the
# command's own seconds under GPIPE_RSTREAM=serial, overlap and auto (the default), and
# ceiling / median (1.0 = the command costs no more than reading its input).
#
# usage: bench/bench_panels.sh BUILD_DIR IN.h5 [NP [REPS]]   (extra mpirun options: $MPIRUN_ARGS)
#   e.g. bench/bench_panels.sh build-rel /dev/shm/a.h5 2 5
#        MPIRUN_ARGS="--bind-to none" bench/bench_panels.sh build-rel /dev/shm/a.h5 1
# IN.h5 holds a contiguous 2-D float dataset /data; a copy for verify and the jobs' outputs go
# next to it (removed at the end).
set -euo pipefail
build=${1:?usage: bench_panels.sh BUILD_DIR IN.h5 [NP [REPS]]}
in=${2:?usage: bench_panels.sh BUILD_DIR IN.h5 [NP [REPS]]}
np=${3:-2}
reps=${4:-5}
gp=$(cd "$build" && pwd)/gpipe
br=$(cd "$build" && pwd)/bench/bench_read
[ -x "$gp" ] || { echo "bench_panels: no $gp" >&2; exit 2; }
[ -x "$br" ] || { echo "bench_panels: no $br (cmake --build $build --target bench_read)" >&2; exit 2; }
dir=$(cd "$(dirname "$in")" && pwd)
base=$(basename "$in" .h5)
copy="$dir/$base.bp-copy.h5"
cp "$in" "$copy"
job="$dir/$base.bp-job.ini"
trap 'rm -f "$copy" "$job" "$dir/$base".bp-out*.h5' EXIT
printf '[job]\nname = bp\nmap_device = cpu\ndevice = cpu\n[read]\nfile = %s\n[scale]\nby = 0.5\n[cast]\nto = f32\n[write]\nfile = %s.bp-out.h5\n' \
    "$in" "$base" > "$job"
mpi() { mpirun --allow-run-as-root --oversubscribe ${MPIRUN_ARGS:-} "$@"; }

# the ceiling: bench_read prints "... pread <s> s ..." medians; take its pread seconds
ceil=$(mpi -n "$np" "$br" "$in" --reps 5 2>&1 | grep -v dlopen | sed -n 's/.*ceiling[^0-9]*\([0-9.]*\) s.*/\1/p' | head -1)
[ -n "$ceil" ] || { echo "bench_panels: bench_read printed no ceiling" >&2; exit 2; }

# seconds a command reports about itself (summary line of reduce/stats, the job's total), or
# the wall clock for verify (it prints none)
secs() {
    local mode=$1; shift
    local t0 t1 out
    t0=$(date +%s.%N)
    out=$(GPIPE_RSTREAM=$mode mpi -x GPIPE_RSTREAM -n "$np" "$gp" "$@" 2>&1 | grep -v dlopen || true)
    t1=$(date +%s.%N)
    local s
    s=$(echo "$out" | grep -o "rows, [0-9.]* s\|skipped, [0-9.]* s" | tail -1 | grep -o "[0-9.]*" | head -1 || true)
    [ -n "$s" ] || s=$(echo "$t1 - $t0" | bc)
    echo "$s"
}
median() { sort -n | awk '{v[NR]=$1} END{printf "%.3f", v[int((NR+1)/2)]}'; }

printf 'bench_panels: %s, %d rank(s) %s, %d reps; ceiling (pread of the same rows, bench_read): %s s\n' \
    "$in" "$np" "${MPIRUN_ARGS:-}" "$reps" "$ceil"
printf '%-34s %9s %9s %9s %16s\n' command serial overlap auto "ceiling/auto"
run_cmd() {
    local name=$1; shift
    local -A t=()
    for _ in $(seq "$reps"); do
        for m in serial overlap auto; do t[$m]+="$(secs $m "$@") "; done
    done
    local s o a
    s=$(echo "${t[serial]}" | tr ' ' '\n' | grep . | median)
    o=$(echo "${t[overlap]}" | tr ' ' '\n' | grep . | median)
    a=$(echo "${t[auto]}" | tr ' ' '\n' | grep . | median)
    printf '%-34s %9s %9s %9s %16.2f\n' "$name" "$s" "$o" "$a" "$(echo "$ceil / $a" | bc -l)"
}
run_cmd "reduce --op max" reduce "$in" --op max --device cpu
run_cmd "reduce --op sum --axis cols" reduce "$in" --op sum --axis cols --device cpu
run_cmd "stats" stats "$in" --device cpu
run_cmd "verify (wall clock)" verify "$in" "$copy" --device cpu -q
run_cmd "run: scale, cast, write" run "$job" -f
