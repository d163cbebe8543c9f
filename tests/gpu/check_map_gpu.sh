#!/bin/sh
# tests/gpu/check_map_gpu.sh — the CUDA map stage of job files (issue 6) on a machine with a GPU:
#   1. bench_map --check: constant-memory and __ldg paths, both layouts, equal the CPU kernel bit
#      for bit (a table that fits in constant memory, and one that does not: 6000 columns);
#   2. `gpipe run` with map_device = cuda gives the same bytes as map_device = cpu, fused into the
#      transpose and through the map + write driver, at 1 and 2 ranks;
#   3. the benchmark itself (constant vs ldg per layout, against the device copy ceiling).
# usage: tests/gpu/check_map_gpu.sh GPIPE BENCH_MAP [MPIEXEC] [PYTHON]
# Exit 0 pass, 1 fail, 77 no GPU (skipped).
set -u
GPIPE=${1:?usage: check_map_gpu.sh GPIPE BENCH_MAP [MPIEXEC] [PYTHON]}
BENCH=${2:?usage: check_map_gpu.sh GPIPE BENCH_MAP [MPIEXEC] [PYTHON]}
MPIEXEC=${3:-mpirun}
PY=${4:-/usr/bin/python3}
# Python with h5py, run without a runtime bundle's libraries (see tests/gpu/check_pipeline.sh)
env -u LD_LIBRARY_PATH "$PY" -c "import h5py" 2>/dev/null || PY=python3
py() { env -u LD_LIBRARY_PATH "$PY" "$@"; }
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 77
fi
T=$(mktemp -d /tmp/gpipe-mapgpu.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
say() { printf '%s\n' "$*"; }

"$BENCH" --rows 1000 --cols 1000 --reps 2 --check || { say "FAIL: bench_map --check (1000 columns, constant table)"; fail=1; }
"$BENCH" --rows 300 --cols 6000 --reps 2 --check || { say "FAIL: bench_map --check (6000 columns, ldg only)"; fail=1; }

py - "$T" <<'PYEOF' || { say "FAIL: making inputs"; exit 1; }
import sys, numpy as np, h5py
t = sys.argv[1]
rng = np.random.default_rng(5)
for i, (shape, dt) in enumerate([((301, 77), "<f8"), ((129, 5000), ">f8"), ((64, 33), "<i4")]):
    with h5py.File("%s/in%d.h5" % (t, i), "w") as f:
        f["data"] = (rng.standard_normal(shape) * 50).astype(dt)
PYEOF

for dev in cpu cuda; do
  for tr in T W; do
    if [ "$tr" = T ]; then tline="[transpose]"; else tline=""; fi
    printf '[job]\nmap_device = %s\ndevice = cpu\n[read]\nfile = in*.h5\n[affine]\na = 1.5\nb = -2\n[standardize]\n[cast]\nto = f32\n%s\n[write]\nfile = {stem}.%s%s.h5\n' \
      "$dev" "$tline" "$dev" "$tr" > "$T/$dev$tr.ini"
  done
done

for np in 1 2; do
  for tr in T W; do
    for dev in cpu cuda; do
      rm -f "$T"/*."$dev$tr".h5
      "$MPIEXEC" --allow-run-as-root --oversubscribe -n $np "$GPIPE" run "$T/$dev$tr.ini" -q ||
        { say "FAIL: gpipe run $dev$tr.ini at -n $np"; fail=1; }
    done
    for i in 0 1 2; do
      py - "$T/in$i.cpu$tr.h5" "$T/in$i.cuda$tr.h5" <<'PYEOF' || { say "FAIL: map_device cuda != cpu for in$i ($tr, -n $np)"; fail=1; }
import sys, h5py
a = h5py.File(sys.argv[1], "r")["data"][...]
b = h5py.File(sys.argv[2], "r")["data"][...]
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() else 1)
PYEOF
    done
  done
done

say "--- bench_map (default size: table fits in constant memory) ---"
"$BENCH" || fail=1
say "--- bench_map --cols 8192 (table of 128 KiB: read-only path only) ---"
"$BENCH" --cols 8192 || fail=1
if [ $fail -eq 0 ]; then say "PASS: CUDA map stage"; else say "FAIL: CUDA map stage"; fi
exit $fail
