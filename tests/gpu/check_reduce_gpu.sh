#!/bin/sh
# tests/gpu/check_reduce_gpu.sh — issue 5 on the GPU machine: every `gpipe reduce` case of
# tests/mpi/check_reduce.py (argmin/argmax included) and every `gpipe stats` and `gpipe verify`
# case run with --device cuda at 1 and 2 ranks. The
# references are exact (math.fsum, Python integers, numpy on total-order keys), so passing proves
# the CUDA results equal the CPU results bit for bit, for every op, axis, type and panel size.
# Then larger random matrices are reduced with both backends and the JSON bits compared directly
# (every op and axis, and `stats`, as the stages of one `gpipe run` job, at the default and 97-row
# panels):
# plain data (the fast kernels' paths: 4-element exact adds, compact row/column results), wide
# exponents (the exact fallbacks), NaN/Inf, 16-byte rows (2^k x 4), 2 and 1 columns (their column
# sums run as whole sums), wide short matrices, and GP_REDUCE_VARIANTS kernel configurations
# (GP_CUDA_REDUCE; "default" = none).
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
  py "$here/tests/mpi/check_reduce.py" --gpipe "$gp" --np $np --device cuda --only reduce_ --only stats_ --only verify_
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py - "$tmp" <<'PY'
import sys, numpy as np, h5py
rng = np.random.default_rng(3)
for name, shape, dt in (("f32", (4099, 1031), "<f4"), ("f64", (1031, 2053), "<f8"), ("i32", (2049, 513), "<i4"),
                        ("tall", (200003, 4), "<f4"), ("wide", (4, 200003), "<f8"),
                        ("plain", (3001, 1024), "<f4"), ("plaintall", (200003, 4), "<f4"),
                        ("plainwide", (4, 200004), "<f4"), ("nan", (1031, 517), "<f4"),
                        ("narrow2", (200003, 2), "<f4"), ("plainnarrow1", (300007, 1), "<f4"),
                        ("plain512", (20011, 512), "<f4"), ("wide512", (4099, 512), "<f4")):
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
# every op and axis of every file as the reduce stages of one job: a launch per backend and panel
# size (one `gpipe reduce` launch per case did not finish within an hour of device time)
ops=${GP_REDUCE_OPS:-sum mean sumsq norm2 min max absmax argmin argmax}
files=${GP_REDUCE_FILES:-plain plaintall plainwide nan f32 f64 i32 tall wide narrow2 plainnarrow1 plain512 wide512}
stages=
for op in $ops; do for axis in all rows cols; do stages="$stages\n[reduce]\nop = $op\naxis = $axis\n"; done; done
stages="$stages\n[stats]\n"
printf "[read]\nfile = *.h5\ndataset = /data\n$stages" > "$tmp/default.ini"
printf "[job]\npanel_rows = 97\n\n[read]\nfile = *.h5\ndataset = /data\n$stages" > "$tmp/p97.ini"
keep=" $files "
for f in "$tmp"/*.h5; do b=$(basename "$f" .h5); case "$keep" in *" $b "*) ;; *) rm -f "$f" ;; esac; done
run() {   # run NAME NP DEVICE JOB VARIANT: $tmp/JOB.ini's JSON lines into $tmp/NAME.jsonl
  : > "$tmp/$1.jsonl"
  GP_CUDA_REDUCE=$5 mpirun --allow-run-as-root --oversubscribe -q -n $2 "$gp" run "$tmp/$4.ini" --device $3 \
    --json "$tmp/$1.jsonl" -q || { echo "FAIL $1: gpipe run exited $?"; return 1; }
}
fail=0
run cpu 2 cpu default "" || fail=1
run cpu_p97 2 cpu p97 "" || fail=1
names="cpu_p97"
for v in ${GP_REDUCE_VARIANTS:-default}; do
  [ "$v" = default ] && vv= || vv=$v
  n=$(echo "cuda_$v" | tr -c 'A-Za-z0-9_\n' _)
  run $n 1 cuda default "$vv" || fail=1
  run ${n}_p97 1 cuda p97 "$vv" || fail=1
  names="$names $n ${n}_p97"
done
py - "$tmp" "$(ls "$tmp"/*.h5 | wc -l)" "$(echo $ops | wc -w)" cpu $names <<'PY' || fail=1
import json, os, sys
tmp, nfiles, nops, ref, others = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
want = nfiles * (nops * 3 + 1)   # one result per (input, op, axis) and one stats line in every run
def load(name):
    out, panels = {}, set()
    for line in open(os.path.join(tmp, name + ".jsonl")):
        r = json.loads(line)
        if "bits" in r:
            out[(os.path.basename(r["input"]), r["op"], r["axis"])] = r["bits"]
            panels.add(r["panels"])
        elif r.get("op") == "stats":
            out[(os.path.basename(r["input"]), "stats", "-")] = tuple(r[k] for k in (
                "count", "finite", "nan", "posinf", "neginf", "min_str", "max_str", "mean_bits", "std_bits", "checksum"))
    return out, panels
base, bp = load(ref)
bad = 0
if len(base) != want:
    print("FAIL %s: %d results, expected %d" % (ref, len(base), want))
    bad = 1
for name in others:
    got, gp = load(name)
    diff = sorted(k for k in got if got[k] != base.get(k))
    for k in diff[:20]:
        print("FAIL %s %s %s %s: bits differ from %s" % (name, k[0], k[1], k[2], ref))
    if len(got) != want:
        print("FAIL %s: %d results, expected %d" % (name, len(got), want))
        bad = 1
    bad |= bool(diff)
    print("%s: %d results, %d differ from %s, panels per input %s" % (name, len(got), len(diff), ref, sorted(gp)))
sys.exit(bad)
PY
[ $fail = 0 ] && echo "PASS: cpu and cuda bit-identical on every case"
exit $fail
