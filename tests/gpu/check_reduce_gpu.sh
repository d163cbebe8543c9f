#!/bin/sh
# tests/gpu/check_reduce_gpu.sh — issue 5 on the GPU machine: every `gpipe reduce` case of
# tests/mpi/check_reduce.py run with --device cuda at 1 and 2 ranks. The references are exact
# (math.fsum, Python integers), so passing proves the CUDA results equal the CPU results bit for
# bit, for every op, axis, type and panel size. Then a larger random matrix is reduced with both
# backends and the JSON bits compared directly (many blocks, vector loads, spills).
# usage: tests/gpu/check_reduce_gpu.sh [path/to/gpipe]   (exit 77 when no GPU is visible)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
gp=${1:-$here/build/gpipe}
# Python with h5py, run without a runtime bundle's libraries (gpcommon hands them back to gpipe)
export GP_CHILD_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
pybin=/usr/bin/python3
env -u LD_LIBRARY_PATH $pybin -c "import h5py" 2>/dev/null || pybin=python3
py() { env -u LD_LIBRARY_PATH $pybin "$@"; }
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU visible: skipped"; exit 77; }
for np in ${GP_REDUCE_NPS:-1 2}; do
  py "$here/tests/mpi/check_reduce.py" --gpipe "$gp" --np $np --device cuda --only reduce_
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py - "$tmp" <<'PY'
import sys, numpy as np, h5py
rng = np.random.default_rng(3)
for name, shape, dt in (("f32", (4099, 1031), "<f4"), ("f64", (1031, 2053), "<f8"), ("i32", (2049, 513), "<i4"),
                        ("tall", (200003, 4), "<f4"), ("wide", (4, 200003), "<f8")):
    a = (rng.standard_normal(shape) * np.exp2(rng.integers(-40, 40, size=shape))).astype(dt) if dt[1] == "f" \
        else rng.integers(-2**31, 2**31 - 1, size=shape).astype(dt)
    with h5py.File("%s/%s.h5" % (sys.argv[1], name), "w") as f:
        f["data"] = a
PY
fail=0
for f in f32 f64 i32 tall wide; do
  for op in ${GP_REDUCE_OPS:-sum mean sumsq norm2 min max absmax}; do
    for axis in all rows cols; do
      for pr in "" "--panel-rows 97"; do
        c=$(mpirun --allow-run-as-root --oversubscribe -q -n 2 "$gp" reduce "$tmp/$f.h5" --op $op --axis $axis --device cpu $pr --json - -q | sed 's/.*"bits"://')
        g=$(mpirun --allow-run-as-root --oversubscribe -q -n 1 "$gp" reduce "$tmp/$f.h5" --op $op --axis $axis --device cuda $pr --json - -q | sed 's/.*"bits"://')
        if [ "$c" != "$g" ]; then echo "FAIL $f $op $axis $pr: cpu and cuda bits differ"; fail=1; fi
      done
    done
  done
done
[ $fail = 0 ] && echo "PASS: cpu and cuda bit-identical on every case"
exit $fail
