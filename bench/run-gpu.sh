#!/usr/bin/env bash
# bench/run-gpu.sh — everything the GPU machine is needed for, in one pass: the gpu-labelled
# tests (kernels, backend, sanitizers, pipeline CPU==CUDA at 1-4 ranks), reductions CPU==CUDA,
# the kernel benchmark, host-resident streaming, and file->file on the GPU host. Results go to
# $OUT (or /tmp/gpipe-gpu) and a short table is printed last.
# usage (on the GPU machine): source .devdeps/activate.sh && bash bench/run-gpu.sh [build-gpu]
set -u
B=${1:-build-gpu}
PART=${2:-all}   # tests | bench | all
O=${OUT:-/tmp/gpipe-gpu}
mkdir -p "$O"
W=$(mktemp -d /tmp/gpipe-run-XXXXXX)
export LD_LIBRARY_PATH=$PWD/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}   # libinih (bench/slim-build.sh)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/gpu.txt"
nproc | sed 's/^/cpus: /' | tee -a "$O/gpu.txt"
t0=$SECONDS
step() { printf '%-28s %s\n' "$1" "$2" >> "$O/summary.txt"; }

if [ "$PART" != bench ]; then
timeout 420 ctest --test-dir "$B" -L gpu --output-on-failure > "$O/ctest-gpu.log" 2>&1
step "ctest -L gpu" "rc=$? $(grep -E 'tests passed|tests failed' "$O/ctest-gpu.log" | tail -1) ($((SECONDS - t0)) s)"

GP_REDUCE_NPS=2 GP_REDUCE_OPS="sum sumsq max argmax" GP_REDUCE_FILES="plain plaintall plainwide nan f32 wide" timeout 600 bash tests/gpu/check_reduce_gpu.sh "$B/gpipe" > "$O/reduce-gpu.log" 2>&1
step "reduce CPU==CUDA" "rc=$? $(tail -1 "$O/reduce-gpu.log") ($((SECONDS - t0)) s)"
fi
if [ "$PART" != tests ]; then

"$B/gpipe" bench kernels --reps 20 --json "$O/bench-kernels.jsonl" > "$O/bench-kernels.txt" 2>&1
step "bench kernels" "rc=$? ($((SECONDS - t0)) s)"

"$B/bench/bench_stream" --mib 2048 --reps 10 > "$O/bench-stream.txt" 2>&1
step "bench stream" "rc=$? ($((SECONDS - t0)) s)"

timeout 150 "$B/bench/bench_reduce_gpu" --tune --json "$O/bench-reduce-gpu.jsonl" > "$O/bench-reduce-gpu.txt" 2>&1
step "bench reduce vs CUB" "rc=$? $(grep -cE '^verify .* ok$' "$O/bench-reduce-gpu.txt") verified, targets: $(grep -E '^  (whole|row|col)' "$O/bench-reduce-gpu.txt" | awk '{printf "%s ", $NF}')($((SECONDS - t0)) s)"

mpirun -q -n 8 "$B/gpipe" gen "$W/m.h5" --shape 16384x32768 --dtype f32 -q
for dev in cpu cuda; do
  for np in 4 8; do
    mpirun -q -n $np "$B/bench/bench_file" "$W/m.h5" --reps 3 --device $dev > "$O/file-$dev-np$np.txt" 2>&1
    step "file->file $dev np=$np" "$(grep ratio "$O/file-$dev-np$np.txt" | awk '{print "ratio", $3}') $(grep 'gpipe transpose' "$O/file-$dev-np$np.txt" | awk '{print $(NF-1), "GB/s"}')"
  done
done
for dev in cpu cuda; do
  mpirun -q -n 8 "$B/gpipe" transpose "$W/m.h5" -o "$W/t.h5" --force -q --device $dev --json "$O/transpose-$dev.jsonl"
done
cat "$O/bench-kernels.txt" "$O/bench-stream.txt" "$O/bench-reduce-gpu.txt" "$O"/file-*.txt "$O"/transpose-*.jsonl
fi
rm -rf "$W"
echo "== results in $O"
[ "$PART" != bench ] && { grep -E "^(FAIL|PASS|==)|Failed|Passed" "$O/ctest-gpu.log" | tail -40; tail -5 "$O/reduce-gpu.log"; }
echo "== summary"
cat "$O/summary.txt"
