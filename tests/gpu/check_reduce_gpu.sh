#!/bin/sh
# tests/gpu/check_reduce_gpu.sh — issue 5 on the GPU machine: every `gpipe reduce` case of
# tests/mpi/check_reduce.py (argmin/argmax included) run with --device cuda at 1 and 2 ranks. The
# references are exact (math.fsum, Python integers, numpy on total-order keys), so passing proves
# the CUDA results equal the CPU results bit for bit, for every op, axis, type and panel size.
# Then larger random matrices are reduced with both backends and the JSON bits compared directly:
# plain data (the fast kernels' paths: 4-element exact adds, compact row/column results), wide
# exponents (the exact fallbacks), NaN/Inf, 16-byte rows (2^k x 4), wide short matrices, and
# GP_REDUCE_VARIANTS kernel configurations (GP_CUDA_REDUCE; "default" = none).
# usage: tests/gpu/check_reduce_gpu.sh [path/to/gpipe]   (exit 77 when no GPU is visible;
#        GP_REDUCE_EMU=1: run anyway, for the CPU emulation build of -DGPIPE_CUDA_EMU=ON)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
gp=${1:-$here/build/gpipe}
# Python with h5py, run without a runtime bundle's libraries (gpcommon hands them back to gpipe)
export GP_CHILD_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
pybin=/usr/bin/python3
env -u LD_LIBRARY_PATH $pybin -c "import h5py" 2>/dev/null || pybin=python3
py() { env -u LD_LIBRARY_PATH $pybin "$@"; }
[ "${GP_REDUCE_EMU:-0}" = 1 ] || nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU visible: skipped"; exit 77; }
for np in ${GP_REDUCE_NPS:-1 2}; do
  py "$here/tests/mpi/check_reduce.py" --gpipe "$gp" --np $np --device cuda --only reduce_
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py - "$tmp" <<'PY'
import sys, numpy as np, h5py
rng = np.random.default_rng(3)
for name, shape, dt in (("f32", (4099, 1031), "<f4"), ("f64", (1031, 2053), "<f8"), ("i32", (2049, 513), "<i4"),
                        ("tall", (200003, 4), "<f4"), ("wide", (4, 200003), "<f8"),
                        ("plain", (3001, 1024), "<f4"), ("plaintall", (200003, 4), "<f4"),
                        ("plainwide", (4, 200004), "<f4"), ("nan", (1031, 517), "<f4")):
    if dt[1] != "f":
        a = rng.integers(-2**31, 2**31 - 1, size=shape).astype(dt)
    elif name.startswith("plain") or name == "nan":   # no exponent spread: the fast paths
        a = rng.uniform(-1, 1, size=shape).astype(dt)
        if name == "nan":
            a.reshape(-1)[rng.choice(a.size, 40, replace=False)] = np.nan
            a.reshape(-1)[rng.choice(a.size, 20, replace=False)] = np.inf
            a[:, 7] = a[:, 7].max()   # ties in a column
    else:
        a = (rng.standard_normal(shape) * np.exp2(rng.integers(-40, 40, size=shape))).astype(dt)
    with h5py.File("%s/%s.h5" % (sys.argv[1], name), "w") as f:
        f["data"] = a
PY
fail=0
for f in ${GP_REDUCE_FILES:-plain plaintall plainwide nan f32 f64 i32 tall wide}; do
  for op in ${GP_REDUCE_OPS:-sum mean sumsq norm2 min max absmax argmin argmax}; do
    for axis in all rows cols; do
      for pr in "" "--panel-rows 97"; do
        c=$(mpirun --allow-run-as-root --oversubscribe -q -n 2 "$gp" reduce "$tmp/$f.h5" --op $op --axis $axis --device cpu $pr --json - -q | sed 's/.*"bits"://')
        for v in ${GP_REDUCE_VARIANTS:-default}; do
          [ "$v" = default ] && v=
          g=$(GP_CUDA_REDUCE=$v mpirun --allow-run-as-root --oversubscribe -q -n 1 "$gp" reduce "$tmp/$f.h5" --op $op --axis $axis --device cuda $pr --json - -q | sed 's/.*"bits"://')
          if [ -z "$c" ] || [ "$c" != "$g" ]; then echo "FAIL $f $op $axis $pr ${v:-default}: cpu and cuda bits differ"; fail=1; fi
        done
      done
    done
  done
done
[ $fail = 0 ] && echo "PASS: cpu and cuda bit-identical on every case"
exit $fail
