#!/usr/bin/env bash
# bench/run-gpu.sh — everything the GPU machine is needed for, in one pass: the gpu-labelled
# tests (kernels, backend, sanitizers, pipeline CPU==CUDA at 1-4 ranks), reductions CPU==CUDA,
# the kernel benchmark, host-resident streaming, and file->file on the GPU host. Results go to
# $OUT (or /tmp/gpipe-gpu) and a short table is printed last.
# usage (on the GPU machine): source .devdeps/activate.sh && bash bench/run-gpu.sh [build-gpu] [PART]
# Sending the build: `bash bench/slim-build.sh FULL build-gpu` is ~90 MB with the CUDA kernels,
# over the device's 64 MiB carry limit together with .devdeps; `tar cf - build-gpu | xz -T2 >
# .gpucarry/g.tar.xz` (~27 MB), carry .devdeps and .gpucarry, and `tar xJf .gpucarry/g.tar.xz`
# there first.
set -u
B=${1:-build-gpu}
PART=${2:-all}   # tests | tests1 | tests2 | tests3 | bench | reduce | strategy | final | all
# One device call runs at most 10 minutes, and the whole gpu suite takes longer on the H200
# (2026-12-01: kernels --big 155 s, racecheck 206 s, pipeline 118 s, map 186 s, reduce 40 s, the
# reduce CLI check > 120 s; the reduce racecheck 176 s): tests1, tests2 (the racechecks) and
# tests3 split it in three calls of at most about 6 minutes.
O=${OUT:-/tmp/gpipe-gpu}
mkdir -p "$O"
W=$(mktemp -d /tmp/gpipe-run-XXXXXX)
export LD_LIBRARY_PATH=$PWD/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}   # libinih (bench/slim-build.sh)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$O/gpu.txt"
nproc | sed 's/^/cpus: /' | tee -a "$O/gpu.txt"
t0=$SECONDS
step() { printf '%-28s %s\n' "$1" "$2" >> "$O/summary.txt"; }

if [ "$PART" = tests1 ] || [ "$PART" = tests2 ] || [ "$PART" = tests3 ]; then
  case $PART in
  tests1) sel=(-L gpu -E 'racecheck|gpu_map|gpu_reduce$') ;;
  tests2) sel=(-R racecheck) ;;
  *) sel=(-R 'gpu_map|gpu_reduce$') ;;
  esac
  timeout 540 ctest --test-dir "$B" "${sel[@]}" --output-on-failure > "$O/ctest-gpu.log" 2>&1
  step "ctest $PART" "rc=$? $(grep -E 'tests passed|tests failed' "$O/ctest-gpu.log" | tail -1) ($((SECONDS - t0)) s)"
  grep -E "Test +#|tests passed|tests failed" "$O/ctest-gpu.log"
  echo "== summary"; cat "$O/summary.txt"; rm -rf "$W"; exit 0
fi
if [ "$PART" = tests ] || [ "$PART" = all ]; then
timeout 900 ctest --test-dir "$B" -L gpu --output-on-failure > "$O/ctest-gpu.log" 2>&1
step "ctest -L gpu" "rc=$? $(grep -E 'tests passed|tests failed' "$O/ctest-gpu.log" | tail -1) ($((SECONDS - t0)) s)"

GP_REDUCE_NPS=2 GP_REDUCE_OPS="sum sumsq max argmax" GP_REDUCE_FILES="plain plaintall plainwide nan f32 wide" timeout 600 bash tests/gpu/check_reduce_gpu.sh "$B/gpipe" > "$O/reduce-gpu.log" 2>&1
step "reduce CPU==CUDA" "rc=$? $(tail -1 "$O/reduce-gpu.log") ($((SECONDS - t0)) s)"
fi
# reductions only (issue 5): SASS of the f32 sum kernels, the CUDA == CPU test, the bench against
# CUB (with --tune), and Nsight Compute's view of the sum kernels on three shapes
if [ "$PART" = reduce ]; then
  command -v cuobjdump >/dev/null && cuobjdump -sass "$B/bench/bench_reduce_gpu" > "$W/reduce.sass" 2>/dev/null &&
    step "sass k_sum_all<f32,4>" "$(awk '/Function : .*fast9k_sum_allIfLi4E/{f=1;next} /Function :/{f=0} f' "$W/reduce.sass" | grep -oE 'VIMNMX3|VIADDMNMX|F2F.F64.F32|DADD|LDG.E.128[.A-Z]*' | sort | uniq -c | tr '\n' ' ')"
  timeout 400 "$B/tests/gpu/test_cuda_reduce" > "$O/test-cuda-reduce.log" 2>&1
  step "test_cuda_reduce" "rc=$? $(tail -1 "$O/test-cuda-reduce.log") ($((SECONDS - t0)) s)"
  timeout 200 "$B/bench/bench_reduce_gpu" ${GP_BENCH_TUNE---tune} --json "$O/bench-reduce-gpu.jsonl" > "$O/bench-reduce-gpu.txt" 2>&1
  step "bench reduce vs CUB" "rc=$? ($((SECONDS - t0)) s)"
  if command -v ncu >/dev/null; then
    for spec in ${GP_NCU_SPECS:-0:all:2 0:all:0 0:cols:2 2:rows:2 4:rows:2 4:cols:2}; do
      IFS=: read -r sh k bt <<< "$spec"
      GP_CUDA_REDUCE=batch=$bt timeout 100 ncu --clock-control none -k regex:"k_sum_$k\$" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
        "$B/bench/bench_reduce_gpu" --shape "$sh" --reps 1 --no-verify > "$W/ncu.txt" 2>&1
      step "ncu shape $sh $k batch=$bt" "rc=$? mem% sm% regs occ% $(grep -E 'Memory Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy' "$W/ncu.txt" | awk '{print $NF}' | tr '\n' ' ')"
      { echo "=== ncu shape $sh k_sum_$k batch=$bt"; cat "$W/ncu.txt"; } >> "$O/ncu-reduce.txt"
    done
  fi
  grep -E '^(copy|cub_sum|plain_sum|cub_rows|sum_|batch=|legacy_sum)|best|rsteps|targets|whole sum|row sums|col sums|verification|FAIL' "$O/bench-reduce-gpu.txt"
  echo "== summary"; cat "$O/summary.txt"; rm -rf "$W"; exit 0
fi
# the two exchange strategies file -> file (issue 4: "benchmark both, keep the faster as default"):
# 2 GiB f32 at 8 ranks (cpu, cuda), one rank with 16 threads, a narrow matrix (each rank's column
# slab 64 columns = 256 B per row), and out of core (--mem 64M: the matrix 4x the ranks' budget);
# alternated, so drift hits both alike. GP_STRAT_FILES names the f32 inputs (NAME=RxC),
# GP_STRAT_CASES the cases (NAME:NP:DEV:FILE:MEM), GP_STRAT_ROUNDS the rounds.
if [ "$PART" = strategy ]; then
  for fs in ${GP_STRAT_FILES:-m=16384x32768 n=1048576x512}; do
    timeout 120 mpirun -q -n 16 "$B/gpipe" gen "$W/${fs%%=*}.h5" --shape "${fs#*=}" --dtype f32 -q
  done
  for round in $(seq 1 "${GP_STRAT_ROUNDS:-2}"); do
    for c in ${GP_STRAT_CASES:-cpu8:8:cpu:m: cuda8:8:cuda:m: cpu1x16:1:cpu:m: narrow8:8:cpu:n: ooc8:8:cpu:m:64M}; do
      IFS=: read -r name np dev f mem <<< "$c"
      for strat in alltoall direct; do
        extra=(); [ -n "$mem" ] && extra=(--mem "$mem")
        bind=(); [ "$np" = 1 ] && bind=(--bind-to none)
        timeout 100 mpirun -q -n "$np" "${bind[@]}" "$B/bench/bench_file" "$W/$f.h5" --reps 3 --device "$dev" \
          --strategy "$strat" "${extra[@]}" --json --stages "$O/strategy-stages-$name-$strat.jsonl" > "$W/s.json" 2>&1
        rc=$?
        { printf '%s %s %s ' "$round" "$name" "$strat"; tail -1 "$W/s.json"; } >> "$O/strategy.txt"
        step "$name $strat r$round" "rc=$rc $(tail -1 "$W/s.json" | grep -oE '"(floor_s|transpose_s|ratio)":[0-9.]+' | tr '\n' ' ')"
      done
    done
  done
  echo "== summary"; cat "$O/summary.txt"; rm -rf "$W"; exit 0
fi
# the last call of a session (every change since the last GPU run at once, in ~6 minutes): the gpu
# tests but the long kernel sweep and sanitizers (their code unchanged since its own run), the
# reduce CLI CPU == CUDA, the reduce bench without --tune, file -> file cpu and cuda at 8 ranks
if [ "$PART" = final ]; then
  timeout 300 ctest --test-dir "$B" -L gpu -E 'gpu_transpose_kernels|gpu_sanitizer' --output-on-failure > "$O/ctest-gpu.log" 2>&1
  step "ctest -L gpu (short)" "rc=$? $(grep -E 'tests passed|tests failed' "$O/ctest-gpu.log" | tail -1) ($((SECONDS - t0)) s)"
  GP_REDUCE_NPS=2 GP_REDUCE_OPS="sum sumsq max argmax" GP_REDUCE_FILES="plain plaintall plainwide nan f32 wide" timeout 200 bash tests/gpu/check_reduce_gpu.sh "$B/gpipe" > "$O/reduce-gpu.log" 2>&1
  step "reduce CPU==CUDA" "rc=$? $(tail -1 "$O/reduce-gpu.log") ($((SECONDS - t0)) s)"
  timeout 120 "$B/bench/bench_reduce_gpu" --json "$O/bench-reduce-gpu.jsonl" > "$O/bench-reduce-gpu.txt" 2>&1
  step "bench reduce vs CUB" "rc=$? ($((SECONDS - t0)) s) $(grep -E '^  (whole|row|col)' "$O/bench-reduce-gpu.txt" | awk '{printf "%s %s ", $(NF-1), $NF}')"
  timeout 120 mpirun -q -n 16 "$B/gpipe" gen "$W/m.h5" --shape 16384x32768 --dtype f32 -q
  # DEV[:MEM]: a budget small enough for two band buffers instead of one band (bench/NOTES.md)
  for v in ${GP_FILE_VARIANTS:-cpu cuda cpu:384M}; do
    dev=${v%%:*}; mem=; [ "$v" != "$dev" ] && mem="--mem ${v#*:}"
    timeout 150 mpirun -q -n 8 "$B/bench/bench_file" "$W/m.h5" --reps 3 --device $dev $mem --stages "$O/file-stages.jsonl" > "$W/file.txt" 2>&1
    step "file->file $v np=8" "rc=$? $(grep ratio "$W/file.txt" | awk '{print "ratio", $3}') $(grep 'gpipe transpose' "$W/file.txt" | awk '{print $(NF-1), "GB/s"}')"
    { echo "== $v"; cat "$W/file.txt"; } >> "$O/file.txt"
  done
  grep -E '^(sum_|cub_sum)|whole sum|row sums|col sums|verification|FAIL' "$O/bench-reduce-gpu.txt"
  grep -E "^(FAIL|PASS)|Failed|Passed|tests passed|tests failed" "$O/ctest-gpu.log" | tail -12
  echo "== summary"; cat "$O/summary.txt"; rm -rf "$W"; exit 0
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
