#!/usr/bin/env bash
# tests/gpu/check_nccl.sh — `gpipe transpose --exchange nccl` (GPU-to-GPU exchange, issue 9):
# byte-identical to the CPU backend on odd shapes and element sizes, in one panel and in many,
# with ranks that own no rows; at 1 rank (a one-GPU communicator) on any GPU machine and at
# 2..min(GPUs, 4) ranks where there are that many GPUs; auto picks NCCL only with one GPU per
# rank; two ranks on one GPU are refused; a rank that never joins an exchange makes every rank
# exit non-zero within seconds (no hang) with no output left.
# Exit 77 (skip) when no GPU or no NCCL library is usable.
# usage: check_nccl.sh GPIPE MPIEXEC PYTHON REPO_DIR
set -u
G=$1 MPIEXEC=$2 PY=$3 REPO=$4
W=$(mktemp -d "${TMPDIR:-/tmp}/gpipe-nccl-XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0   # never NVLink multicast (shared machines)
run() { "$MPIEXEC" -q -x NCCL_NVLS_ENABLE -x GPIPE_NCCL_LIBRARY -n "$@"; }
env -u LD_LIBRARY_PATH "$PY" -c "import h5py" 2>/dev/null || PY=python3
py() { env -u LD_LIBRARY_PATH "$PY" "$@"; }

# NCCL: the system's, or one shipped with a Python package (PyTorch's nvidia-nccl wheel)
if [ -z "${GPIPE_NCCL_LIBRARY:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2'; then
    lib=$(find /usr/local /opt /usr/lib "$HOME" -name 'libnccl.so.2' 2>/dev/null | head -1)
    [ -n "$lib" ] && export GPIPE_NCCL_LIBRARY=$lib
fi
export GPIPE_NCCL_LIBRARY=${GPIPE_NCCL_LIBRARY:-libnccl.so.2}

run 1 "$G" gen "$W/probe.h5" --shape 3x5 --dtype f32 -q || exit 1
if ! run 1 "$G" transpose "$W/probe.h5" -o "$W/probe.T.h5" --device cuda --exchange nccl -q 2>"$W/probe.err"; then
    if grep -q "no usable\|without CUDA\|cannot run\|cannot load NCCL\|without NCCL" "$W/probe.err"; then
        echo "SKIP: $(cat "$W/probe.err")"; exit 77
    fi
    cat "$W/probe.err"; exit 1
fi
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
maxnp=$(( ngpu < 4 ? ngpu : 4 ))
echo "GPUs: $ngpu; NCCL: $GPIPE_NCCL_LIBRARY"

fail=0 n=0
ok()  { n=$((n + 1)); echo "PASS $*"; }
bad() { n=$((n + 1)); fail=$((fail + 1)); echo "FAIL $*"; }
same() {   # a.h5 b.h5: same type and bytes
    py - "$1" "$2" <<'PYEOF'
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
da, db = a[list(a.keys())[0]], b[list(b.keys())[0]]
sys.exit(0 if da.id.get_type() == db.id.get_type() and da[...].tobytes() == db[...].tobytes() else 1)
PYEOF
}
check() {   # name file np options...
    local name=$1 f=$2 np=$3; shift 3
    rm -f "$W/cpu.h5" "$W/gpu.h5" "$W/gpu.json"
    if run "$np" "$G" transpose "$f" -o "$W/cpu.h5" --device cpu -q "$@" &&
       run "$np" "$G" transpose "$f" -o "$W/gpu.h5" --device cuda --exchange nccl -q --json "$W/gpu.json" "$@" &&
       grep -q '"exchange":"nccl"' "$W/gpu.json" && same "$W/cpu.h5" "$W/gpu.h5" &&
       py "$REPO/tests/verify_transpose.py" "$f" "$W/gpu.h5" >/dev/null; then
        ok "$name np=$np $*"
    else
        bad "$name np=$np $*"
    fi
}

for spec in "4097x8191 f32" "257x509 u8" "509x257 i16" "1x100003 f64" "100003x1 f64" "1021x1031 c128" "3x7 c64" "2x5 i32"; do
    set -- $spec
    f="$W/in-$1-$2.h5"
    run 1 "$G" gen "$f" --shape "$1" --dtype "$2" --seed 9 -q || { bad "gen $spec"; continue; }
    check "$1 $2" "$f" 1
    [ "$maxnp" -ge 2 ] && check "$1 $2" "$f" "$maxnp"
    check "$1 $2 panels" "$f" "$maxnp" --panel-rows 7
    check "$1 $2 gpu-mem" "$f" "$maxnp" --gpu-mem 4M   # panels cut to fit the device budget
done

# auto: NCCL only with one GPU per rank
run 1 "$G" gen "$W/a.h5" --shape 300x200 --dtype f32 -q
if [ "$ngpu" -ge 2 ]; then
    run 2 "$G" transpose "$W/a.h5" -o "$W/auto.h5" --device cuda -q --json "$W/auto.json" &&
        grep -q '"exchange":"nccl"' "$W/auto.json" && ok "auto picks nccl at 2 ranks on 2 GPUs" ||
        bad "auto picks nccl at 2 ranks on 2 GPUs"
fi
rm -f "$W/auto.h5" "$W/auto.json"
run $((ngpu + 1)) "$G" transpose "$W/a.h5" -o "$W/auto.h5" --device cuda -q --json "$W/auto.json" &&
    grep -q '"exchange":"mpi"' "$W/auto.json" && ok "auto picks mpi with $((ngpu + 1)) ranks on $ngpu GPUs" ||
    bad "auto picks mpi with $((ngpu + 1)) ranks on $ngpu GPUs"
# explicit nccl with two ranks on one GPU: a clear error, exit 2, no output
rm -f "$W/shared.h5"
run $((ngpu + 1)) "$G" transpose "$W/a.h5" -o "$W/shared.h5" --device cuda --exchange nccl 2>"$W/shared.err"
rc=$?
[ $rc -eq 2 ] && grep -q "share a GPU" "$W/shared.err" && [ ! -e "$W/shared.h5" ] &&
    ok "two ranks on one GPU refused (rc=$rc)" || bad "two ranks on one GPU refused (rc=$rc: $(cat "$W/shared.err"))"

# no hang: rank 1 never joins exchange 2; every rank must exit non-zero quickly, nothing left
if [ "$ngpu" -ge 2 ]; then
    rm -f "$W/hang.h5"
    t0=$SECONDS
    GPIPE_FAULT=nccl:2:1 timeout 120 "$MPIEXEC" -q -x NCCL_NVLS_ENABLE -x GPIPE_NCCL_LIBRARY -x GPIPE_FAULT -n 2 \
        "$G" transpose "$W/a.h5" -o "$W/hang.h5" --device cuda --exchange nccl --panel-rows 10 -q 2>"$W/hang.err"
    rc=$? dt=$((SECONDS - t0))
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $dt -lt 60 ] && grep -q "rank 1: .*injected fault" "$W/hang.err" &&
        [ -z "$(ls -A "$W" | grep hang.h5)" ] && ok "rank 1 skips exchange 2: rc=$rc in ${dt}s" ||
        bad "rank 1 skips exchange 2: rc=$rc in ${dt}s: $(cat "$W/hang.err")"
fi
echo "== $((n - fail)) of $n passed"
[ "$fail" -eq 0 ]
