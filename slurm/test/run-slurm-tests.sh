#!/bin/bash
# slurm/test/run-slurm-tests.sh — test the scripts of slurm/ against a real, private, one-node
# Slurm cluster started on this machine (root needed; Debian/Ubuntu).
#
#   slurm/test/run-slurm-tests.sh [--keep] [TEST...]
#   slurm/test/run-slurm-tests.sh --shell     # the cluster only: a shell with SLURM_CONF set
#
# 1. installs slurm-wlm and munge with apt-get when they are missing;
# 2. writes everything under a new temporary folder (mktemp -d /tmp/gpipe-slurm.XXXXXX): a munge
#    key (1024 random bytes, owner munge, mode 400) and socket, slurm.conf generated from
#    slurm/test/slurm.conf.in (this machine's short hostname, `slurmd -C` CPUs and memory,
#    no cgroups: proctrack/linuxproc, task/none; free TCP ports from 16817 up), state, spool,
#    logs and pid files. SLURM_CONF points there: /etc/slurm and /etc/munge are not touched,
#    and a Slurm or munge already running here is left alone;
# 3. starts munged (as user munge), slurmctld and slurmd in the background, waits until the
#    node is idle;
# 4. submits the real scripts of slurm/ with sbatch (--wait) on small inputs and checks the
#    outputs (tests/verify_transpose.py, h5py) and the job states and exit codes
#    (`scontrol show job`: no accounting daemon, so no sacct; MinJobAge keeps finished jobs
#    for an hour; jobcomp/filetxt also appends every finished job to log/jobcomp.txt);
# 5. stops the daemons and removes the folder at exit, also on failure or Ctrl-C (--keep, or
#    GPIPE_SLURM_KEEP=1: keep the folder for a look at the logs; the daemons are stopped anyway).
#
# Tests (all by default; name some to run only those): static, dryrun, transpose, transpose-mpirun,
# fallback, array, fail, chain (SKIP when `gpipe --help` has no reduce command), chain-fail, signal.
# --shell starts the cluster, runs no test but an interactive bash (or the commands on stdin)
# with SLURM_CONF set, and stops the cluster when that shell exits.
# Exit 0 only if every test that ran passed; 1 if one failed; 2 if the cluster did not come up.
# Environment: GPIPE (default build/gpipe), GP_PYTHON (python with h5py, default /usr/bin/python3).
set -euo pipefail

REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
SL=$REPO/slurm
export GPIPE=${GPIPE:-$REPO/build/gpipe}
GPIPE_BIN=$GPIPE   # the real one (a test may point GPIPE at a stand-in)
PY=${GP_PYTHON:-/usr/bin/python3}
KEEP=${GPIPE_SLURM_KEEP:-0} SHELL_MODE=0
ALL_TESTS="static dryrun transpose transpose-mpirun fallback array fail chain chain-fail signal"
TESTS=()
for a in "$@"; do
    case $a in
        --keep) KEEP=1 ;;
        --shell) SHELL_MODE=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-slurm-tests: unknown option $a" >&2; exit 2 ;;
        *) [[ " $ALL_TESTS " == *" $a "* ]] || { echo "run-slurm-tests: unknown test $a (tests: $ALL_TESTS)" >&2; exit 2; }
           TESTS+=("$a") ;;
    esac
done
(( ${#TESTS[@]} )) || read -ra TESTS <<< "$ALL_TESTS"

T0=$SECONDS
say() { printf 'run-slurm-tests: [%3ds] %s\n' $((SECONDS - T0)) "$*"; }
fatal() { say "ERROR: $*"; exit 2; }

# ---- prerequisites -------------------------------------------------------------------------
[[ $(id -u) == 0 ]] || fatal "needs root (it installs packages and starts munged, slurmctld and slurmd)"
[[ -x $GPIPE ]] || fatal "no gpipe binary at $GPIPE (build it: cmake --build build, or set GPIPE)"
"$PY" -c 'import h5py, numpy' 2>/dev/null || fatal "$PY lacks h5py/numpy (apt-get install python3-h5py python3-numpy, or set GP_PYTHON)"
missing=()
for c in slurmctld slurmd sbatch munged; do command -v $c >/dev/null || missing+=("$c"); done
if (( ${#missing[@]} )); then
    say "installing slurm-wlm munge (missing: ${missing[*]})"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null \
        || fatal "apt-get install slurm-wlm munge failed"
fi
for c in setpriv munge unmunge scontrol sinfo squeue scancel; do command -v $c >/dev/null || fatal "$c not found"; done
id munge >/dev/null 2>&1 || fatal "no user munge (the munge package creates it)"

# ---- the private cluster -------------------------------------------------------------------
W=$(mktemp -d /tmp/gpipe-slurm.XXXXXX)
chmod 755 "$W"   # munged (user munge) must reach its folder below
mkdir -p "$W"/{etc,state,spool,run,log,munge,munge-run,jobs}
PIDS=()
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    # jobs first (while slurmd still runs), then the daemons in reverse order of start
    if [[ -n ${SLURM_CONF:-} ]] && (( ${#PIDS[@]} > 1 )); then scancel --quiet --user=root 2>/dev/null || true; fi
    for (( p = ${#PIDS[@]} - 1; p >= 0; p-- )); do kill -TERM "${PIDS[p]}" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    (( ${#PIDS[@]} )) && say "daemons stopped"
    if (( KEEP )); then say "kept $W (logs in $W/log, job folders in $W/jobs)"; else rm -rf "$W"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; [[ -z ${BG:-} ]] || kill -TERM "$BG" 2>/dev/null; exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${GPIPE_SLURM_PORT:-16817}
until port_free "$port" && port_free $((port + 1)); do port=$((port + 2)); done
HOST=$(hostname -s)
read -r -a hw < <(slurmd -C | head -1)
node_hw="" mem=0
for kv in "${hw[@]}"; do
    case $kv in
        CPUs=*|Boards=*|SocketsPerBoard=*|CoresPerSocket=*|ThreadsPerCore=*) node_hw+=" $kv" ;;
        RealMemory=*) mem=${kv#*=} ;;
    esac
done
[[ -n $node_hw ]] || node_hw="CPUs=$(nproc)"
(( mem > 0 )) || mem=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
mem=$(( mem * 9 / 10 ))   # a margin: slurmd drains a node whose memory is below RealMemory

dd if=/dev/urandom of="$W/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$W/munge" "$W/munge-run"
chmod 700 "$W/munge"; chmod 400 "$W/munge/munge.key"
chmod 755 "$W/munge-run"   # munged wants its socket's folder open to all (execute)
MSOCK=$W/munge-run/munge.socket
: > "$W/etc/plugstack.conf"
sed -e "s|@HOST@|$HOST|g" -e "s|@CTLD_PORT@|$port|" -e "s|@SLURMD_PORT@|$((port + 1))|" \
    -e "s|@MUNGE_SOCKET@|$MSOCK|" -e "s|@DIR@|$W|g" -e "s|@NODE_HW@|${node_hw# }|" \
    -e "s|@MEM_MB@|$mem|" -e "s|@PARTITION@|gptest|" "$SL/test/slurm.conf.in" > "$W/etc/slurm.conf"
export SLURM_CONF=$W/etc/slurm.conf
# the jobs' environment: nothing of an outer Slurm job (the scripts pass mpirun
# --allow-run-as-root themselves, as they do for a user who runs as root)
unset "${!SLURM_@}" "${!OMPI_ALLOW_RUN_AS_ROOT@}" 2>/dev/null || true
export SLURM_CONF=$W/etc/slurm.conf
say "cluster in $W: node $HOST ($node_hw, RealMemory=$mem), ports $port/$((port + 1))"

setpriv --reuid=munge --regid=munge --init-groups \
    munged -F --socket="$MSOCK" --key-file="$W/munge/munge.key" --pid-file="$W/munge/munged.pid" \
    --log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed" > "$W/log/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [[ -S $MSOCK ]] && break; sleep 0.2; done
munge -n -S "$MSOCK" | unmunge -S "$MSOCK" >/dev/null 2>&1 \
    || { cat "$W/log/munged.out" "$W/munge/munged.log" 2>/dev/null; fatal "munged does not answer on $MSOCK"; }

slurmctld -D > "$W/log/slurmctld.out" 2>&1 &
PIDS+=($!)
sleep 1
slurmd -D -N "$HOST" > "$W/log/slurmd.out" 2>&1 &
PIDS+=($!)
state=""
for _ in $(seq 60); do
    state=$(sinfo -h -n "$HOST" -o %T 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 1
done
if [[ $state != idle ]]; then
    tail -n 20 "$W"/log/slurmctld.log "$W"/log/slurmd.log "$W"/log/*.out 2>/dev/null || true
    fatal "node $HOST is '${state:-not known}' after 60 s, not idle"
fi
mpilist=$(srun --mpi=list 2>&1 | tr -s ' \t\n' ' ')
say "node $HOST idle; srun --mpi=list: $mpilist"
expect_launcher=mpirun
grep -qw pmix <<< "$mpilist" && expect_launcher=srun

# ---- helpers -------------------------------------------------------------------------------
FAILS=() PASSES=() SKIPS=()
why=""
bad() { why=${why:+$why; }$*; return 1; }   # a test fails if it returns non-zero or called bad

job_field() {   # job_field JOBID FIELD [ARRAY_TASK]: a field of `scontrol show job`
    scontrol show job -o "$1" 2>/dev/null |
        { if [[ -n ${3:-} ]]; then grep -w "ArrayTaskId=$3"; else head -1; fi; } |
        grep -o "\b$2=[^ ]*" | head -1 | cut -d= -f2- || true
}
expect_job() {  # expect_job JOBID STATE EXIT [ARRAY_TASK]
    local s e
    s=$(job_field "$1" JobState "${4:-}") e=$(job_field "$1" ExitCode "${4:-}")
    [[ $s == "$2" && $e == "$3" ]] || bad "job $1${4:+_$4}: JobState=$s ExitCode=$e, expected $2 and $3"
}
BG=""
bg_wait() {     # wait for the command just started with &: a signal to this script interrupts it
    BG=$!
    local rc=0
    wait "$BG" || rc=$?
    BG=""
    return "$rc"
}
submit_wait() { # submit_wait DIR OUTFILE SBATCH-ARGS...: sbatch --wait in DIR; sets SUB_RC and JOB
    local dir=$1 out=$2; shift 2
    SUB_RC=0
    (cd "$dir" && exec timeout 240 sbatch --wait "$@") > "$out" 2>&1 &
    bg_wait || SUB_RC=$?
    JOB=$(grep -o 'Submitted batch job [0-9]*' "$out" | grep -o '[0-9]*$' || true)
    [[ -n $JOB ]] || bad "sbatch did not submit: $(tr '\n' ' ' < "$out")"
}
wait_ended() {  # wait_ended JOBID SECONDS
    local s
    for _ in $(seq "$2"); do
        s=$(job_field "$1" JobState)
        case $s in PENDING|CONFIGURING|RUNNING|COMPLETING|SIGNALING|REQUEUE*|"") sleep 1 ;; *) return 0 ;; esac
    done
    bad "job $1 still $s after $2 s"
}
no_cr() { ! grep -q $'\r' "$1" || bad "$1 has carriage returns"; }
verify() { "$PY" "$REPO/tests/verify_transpose.py" "$1" "$2" > "$3" 2>&1 || bad "verify $2: $(cat "$3")"; }
attr_is() {     # attr_is FILE NAME VALUE: the attribute NAME of FILE's /data is VALUE
    local v
    v=$("$PY" -c 'import h5py,sys
f=h5py.File(sys.argv[1],"r"); v=f["data"].attrs.get(sys.argv[2])
v=v.decode() if isinstance(v,bytes) else v; print(v)' "$1" "$2" 2>&1) || true
    [[ $v == "$3" ]] || bad "$1: attribute $2 is '$v', expected '$3'"
}
gen() {         # gen FILE SHAPE DTYPE SEED [CHUNK]
    "$GPIPE_BIN" gen "$1" --shape "$2" --dtype "$3" --seed "$4" ${5:+--chunk "$5"} -q --force \
        || bad "gpipe gen $1 failed"
}
log_has() { grep -q -e "$2" "$1" || bad "$1 lacks '$2'"; }
job_ranks() {   # job_ranks JOBID: the pids of the gpipe processes of the job (on this one node)
    local p
    for p in $(pgrep -x gpipe); do
        tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$1" && printf '%s ' "$p"
    done
    return 0
}
usr1_pending() {   # usr1_pending PID: SIGUSR1 (10, mask bit 9) is pending for the process
    local m
    for m in $(awk '/^(SigPnd|ShdPnd):/ {print $2}' "/proc/$1/status" 2>/dev/null); do
        (( 0x$m & 0x200 )) && return 0
    done
    return 1
}
journal_rows() {   # journal_rows FILE: gpipe_rows_done of a partial output (0 if unreadable)
    HDF5_USE_FILE_LOCKING=FALSE "$PY" -c 'import h5py,sys
try:
    v=h5py.File(sys.argv[1],"r").attrs["gpipe_rows_done"]; v=v.decode() if isinstance(v,bytes) else str(v)
    print(int(v.strip("\0").strip() or 0))
except Exception: print(0)' "$1" 2>/dev/null || echo 0
}
newdir() { D=$W/jobs/$1; mkdir -p "$D"; }

# ---- the tests -----------------------------------------------------------------------------
# static: the scripts parse, open with their comment block, and share one launcher block.
t_static() {
    local f ref="" blk
    for f in "$SL"/gpipe-*.sbatch "$SL"/gpipe-chain.sh; do
        bash -n "$f" || bad "$f: syntax error"
        [[ $(sed -n 2p "$f") == "# slurm/$(basename "$f") — "* ]] || bad "$f: no opening comment block"
        grep -q '^set -euo pipefail$' "$f" || bad "$f: no set -euo pipefail"
        grep -q '^# Example' "$f" || bad "$f: no example in the comment block"
    done
    for f in "$SL"/gpipe-*.sbatch; do
        for l in '#SBATCH --signal=B:USR1@120' '#SBATCH --output=%x_' '#SBATCH --time=' '##SBATCH --gpus-per-task=1'; do
            grep -q -e "^$l" "$f" || bad "$f: no '$l' line"
        done
        blk=$(sed -n '/^# --- launcher:/,/^# --- end of launcher/p' "$f")
        [[ -n $blk ]] || bad "$f: no launcher block"
        [[ -z $ref || $blk == "$ref" ]] || bad "$f: its launcher block differs from gpipe-transpose.sbatch's"
        [[ -n $ref ]] || ref=$blk
    done
}

# dryrun: the launch command the scripts build, with and without GPUs (GPIPE_SLURM_DRYRUN=1
# prints it instead of running it; the fake SLURM_* variables stand for the job's).
t_dryrun() {
    newdir dryrun
    local o=$D/out
    env GPIPE_SLURM_DRYRUN=1 GPIPE_LAUNCHER=srun SLURM_NTASKS=4 SLURM_GPUS_PER_TASK=1 SLURM_JOB_GPUS=0,1,2,3 \
        bash "$SL/gpipe-transpose.sbatch" in.h5 -- -o out.h5 > "$o" 2>&1 || bad "dry run failed: $(cat "$o")"
    log_has "$o" "run: srun --mpi=pmix --kill-on-bad-exit=1 --gpus-per-task=1 --gpu-bind=per_task:1 $GPIPE transpose in.h5 -o out.h5\$" || return 1
    log_has "$o" "bound per task (device 0 in every rank)" || return 1
    env GPIPE_SLURM_DRYRUN=1 GPIPE_LAUNCHER=srun SLURM_NTASKS=2 \
        bash "$SL/gpipe-transpose.sbatch" in.h5 > "$o" 2>&1 || bad "dry run failed: $(cat "$o")"
    log_has "$o" "run: srun --mpi=pmix --kill-on-bad-exit=1 $GPIPE transpose in.h5\$" || return 1
    env GPIPE_SLURM_DRYRUN=1 GPIPE_LAUNCHER=mpirun SLURM_NTASKS=4 SLURM_GPUS_ON_NODE=4 SLURM_JOB_GPUS=0,1,2,3 \
        bash "$SL/gpipe-transpose.sbatch" in.h5 > "$o" 2>&1 || bad "dry run failed: $(cat "$o")"
    log_has "$o" "run: mpirun -q -n 4 --allow-run-as-root $GPIPE transpose in.h5\$" || return 1
    log_has "$o" "each rank takes local rank modulo visible devices" || return 1
    local rc=0
    env GPIPE_SLURM_DRYRUN=1 SLURM_ARRAY_TASK_ID=5 bash "$SL/gpipe-array.sbatch" /dev/null > "$o" 2>&1 || rc=$?
    [[ $rc == 2 ]] && log_has "$o" "gpipe-slurm: error: array task 5, but /dev/null lists only 0 file" \
        || bad "array task out of range: exit $rc, $(cat "$o")"
}

# transpose: one job at 2 tasks through the default launcher (srun --mpi=pmix here).
t_transpose_with() {   # t_transpose_with NAME LAUNCHER
    newdir "$1"
    gen "$D/in.h5" 301x203 f64 7 64x64 || return 1
    submit_wait "$D" "$D/sbatch.out" --ntasks=2 --time=10 "$SL/gpipe-transpose.sbatch" in.h5 -- -o out.h5 || return 1
    local log=$D/gpipe-transpose_$JOB.out
    [[ $SUB_RC == 0 ]] || bad "sbatch --wait returned $SUB_RC, expected 0; log: $(cat "$log" 2>/dev/null)" || return 1
    [[ -f $log ]] || bad "no log $log (--output=%x_%j.out)" || return 1
    expect_job "$JOB" COMPLETED 0:0 || return 1
    [[ $(job_field "$JOB" NumTasks) == 2 ]] || bad "job $JOB: NumTasks=$(job_field "$JOB" NumTasks), expected 2" || return 1
    log_has "$log" "launcher: $2 (" || return 1
    log_has "$log" "2 task(s)" || return 1
    log_has "$log" "gpipe finished: exit 0" || return 1
    log_has "$log" "gpipe: transposed in.h5:/data (301x203 f64.*on 2 ranks" || return 1
    no_cr "$log" || return 1
    verify "$D/in.h5" "$D/out.h5" "$D/verify.out" || return 1
    attr_is "$D/out.h5" slurm_job_id "$JOB"
}
t_transpose() {
    t_transpose_with transpose "$expect_launcher" || return 1
    [[ $expect_launcher == mpirun ]] || log_has "$D/gpipe-transpose_$JOB.out" "launcher: srun (srun --mpi=list offers pmix and a probe step started the MPI ranks)"
}
t_transpose_mpirun() { GPIPE_LAUNCHER=mpirun t_transpose_with transpose-mpirun mpirun; }

# fallback: when srun --mpi=pmix cannot start the ranks (simulated: a gpipe that fails unless
# mpirun started it), the script says so and runs the job with mpirun.
t_fallback() {
    [[ $expect_launcher == srun ]] || { say "fallback: srun offers no pmix here, mpirun is the default (tested above)"; return 0; }
    newdir fallback
    printf '#!/bin/bash\n%s\n%s\n%s\nexec %q "$@"\n' \
        '# a gpipe whose MPI_Init fails under srun --mpi=pmix; mpirun sets OMPI_COMM_WORLD_RANK' \
        'if [[ -z ${OMPI_COMM_WORLD_RANK:-} ]]; then' \
        '    echo "gpipe: error: MPI_Init failed (simulated)" >&2; exit 2; fi' "$GPIPE" > "$D/gpipe"
    chmod +x "$D/gpipe"
    GPIPE=$D/gpipe t_transpose_with fallback mpirun || return 1
    log_has "$D/gpipe-transpose_$JOB.out" "launcher: mpirun (srun --mpi=pmix could not start MPI ranks (gpipe: error: MPI_Init failed (simulated)): falling back to mpirun)"
}

# array: 3 array tasks, one file each, from a list with a comment and a blank line.
t_array() {
    newdir array
    gen "$D/a.h5" 120x77 f64 1 32x32 && gen "$D/b.h5" 64x200 f32 2 && gen "$D/c.h5" 1x333 i32 3 || return 1
    printf '# three inputs\na.h5\n\n  b.h5\n%s\n' "$D/c.h5" > "$D/files.txt"
    submit_wait "$D" "$D/sbatch.out" --array=0-2 --ntasks=1 --time=10 "$SL/gpipe-array.sbatch" files.txt || return 1
    [[ $SUB_RC == 0 ]] || bad "sbatch --wait returned $SUB_RC, expected 0: $(cat "$D"/gpipe-array_*.out 2>/dev/null)" || return 1
    local i f
    for i in 0 1 2; do
        f=$(echo a b c | cut -d' ' -f$((i + 1)))
        [[ -f $D/gpipe-array_${JOB}_$i.out ]] || bad "no log gpipe-array_${JOB}_$i.out (--output=%x_%A_%a.out)" || return 1
        log_has "$D/gpipe-array_${JOB}_$i.out" "array task $i of files.txt: .*$f.h5" || return 1
        no_cr "$D/gpipe-array_${JOB}_$i.out" || return 1
        expect_job "$JOB" COMPLETED 0:0 "$i" || return 1
        verify "$D/$f.h5" "$D/$f.T.h5" "$D/verify.out" || return 1
    done
}

# fail: bad input (not HDF5) must end FAILED with gpipe's exit code 2, and leave no output.
t_fail() {
    newdir fail
    echo "this is not an HDF5 file" > "$D/bad.h5"
    submit_wait "$D" "$D/sbatch.out" --ntasks=2 --time=10 "$SL/gpipe-transpose.sbatch" bad.h5 || return 1
    local log=$D/gpipe-transpose_$JOB.out
    [[ $SUB_RC == 2 ]] || bad "sbatch --wait returned $SUB_RC, expected 2; log: $(cat "$log" 2>/dev/null)" || return 1
    expect_job "$JOB" FAILED 2:0 || return 1
    log_has "$log" "^gpipe: error: " || return 1
    log_has "$log" "gpipe failed: exit 2" || return 1
    [[ $(grep -c '^gpipe: error: ' "$log") == 1 ]] || bad "expected one 'gpipe: error:' line in $log" || return 1
    [[ ! -e $D/bad.T.h5 ]] || bad "an output was left: $D/bad.T.h5"
}

# chain: transpose, then reduce after it (afterok); outputs checked against numpy.
t_chain() {
    newdir chain
    gen "$D/in.h5" 203x157 f64 11 64x64 || return 1
    local rc=0 t r
    (cd "$D" && exec timeout 300 "$SL/gpipe-chain.sh" --wait in.h5 -- --ntasks=2 --time=10) > "$D/chain.out" 2>&1 &
    bg_wait || rc=$?
    t=$(sed -n 's/^transpose job \([0-9]*\):.*/\1/p' "$D/chain.out") r=$(sed -n 's/^reduce job \([0-9]*\):.*/\1/p' "$D/chain.out")
    [[ -n $t && -n $r ]] || bad "no job ids from gpipe-chain.sh: $(cat "$D/chain.out")" || return 1
    [[ $rc == 0 ]] || bad "gpipe-chain.sh --wait returned $rc: $(cat "$D/chain.out" "$D"/gpipe-*.out)" || return 1
    expect_job "$t" COMPLETED 0:0 && expect_job "$r" COMPLETED 0:0 || return 1
    [[ $(date -d "$(job_field "$r" StartTime)" +%s) -ge $(date -d "$(job_field "$t" EndTime)" +%s) ]] \
        || bad "reduce job $r started before transpose job $t ended" || return 1
    no_cr "$D/gpipe-transpose_$t.out" && no_cr "$D/gpipe-reduce_$r.out" || return 1
    verify "$D/in.h5" "$D/in.T.h5" "$D/verify.out" || return 1
    # column sums of T = A^T are the row sums of A
    "$PY" - "$D/in.h5" "$D/in.T.sums.h5" > "$D/sums.out" 2>&1 <<'EOF' || bad "sums: $(cat "$D/sums.out")"
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")["data"][...]
f = h5py.File(sys.argv[2], "r")
ds = []
f.visititems(lambda n, o: ds.append(o) if isinstance(o, h5py.Dataset) else None)
assert len(ds) == 1, f"expected one dataset in {sys.argv[2]}, found {[d.name for d in ds]}"
got, want = np.asarray(ds[0][...], dtype=np.float64).ravel(), a.sum(axis=1)
assert got.shape == want.shape, f"{got.shape} values, expected {want.shape}"
assert np.allclose(got, want, rtol=1e-12, atol=1e-12), f"max difference {np.max(np.abs(got - want))}"
print("sums ok")
EOF
}

# chain-fail: the transpose fails, so the reduce job must never run (afterok, kill-on-invalid-dep).
t_chain_fail() {
    newdir chain-fail
    echo "not HDF5" > "$D/bad.h5"
    local rc=0 t r
    (cd "$D" && exec timeout 300 "$SL/gpipe-chain.sh" --wait bad.h5 -- --ntasks=1 --time=10) > "$D/chain.out" 2>&1 &
    bg_wait || rc=$?
    t=$(sed -n 's/^transpose job \([0-9]*\):.*/\1/p' "$D/chain.out") r=$(sed -n 's/^reduce job \([0-9]*\):.*/\1/p' "$D/chain.out")
    [[ -n $t && -n $r ]] || bad "no job ids from gpipe-chain.sh: $(cat "$D/chain.out")" || return 1
    [[ $rc == 2 ]] || bad "gpipe-chain.sh --wait returned $rc, expected 2: $(cat "$D/chain.out")" || return 1
    expect_job "$t" FAILED 2:0 || return 1
    [[ $(job_field "$r" JobState) == CANCELLED ]] || bad "reduce job $r: JobState=$(job_field "$r" JobState), expected CANCELLED" || return 1
    [[ $(job_field "$r" Reason) == DependencyNeverSatisfied ]] || bad "reduce job $r: Reason=$(job_field "$r" Reason)" || return 1
    [[ ! -e $D/gpipe-reduce_$r.out ]] || bad "the reduce job ran: $D/gpipe-reduce_$r.out exists"
}

# signal: SIGUSR1 to the batch shell (what --signal=B:USR1@120 sends before the time limit) is
# forwarded to the step and gpipe stops at a panel boundary. With a gpipe that has --resume,
# the job requeues itself, its second run continues with --resume and the job ends COMPLETED
# with the exact transpose; without --resume it ends FAILED with exit code 2 and no output.
t_signal() {
    newdir signal
    # 2048 x 4096 f64, --panel-rows 4 on 2 ranks: 256 panels. Both runs journal after every panel
    # (below), and a journal entry is two H5Fflush, each an fsync: ~90 ms on this 2-core VM, so
    # the resumed run takes ~25 s idle and 2-3x that under CI's load (8192 rows took 92 s idle
    # and ran past the 180 s below in CI). The signal comes after the first journal entry (below).
    gen "$D/big.h5" 2048x4096 f64 5 || return 1
    local out job log resumable=0
    "$GPIPE" transpose --help 2>/dev/null | grep -q -- --resume && resumable=1
    # GPIPE_JOURNAL_SECONDS=0: gpipe records the finished rows after every panel (default every
    # 5 s), so that it has kept a partial output by the time the signal comes
    out=$(cd "$D" && GPIPE_JOURNAL_SECONDS=0 sbatch --parsable --ntasks=2 --time=10 \
          "$SL/gpipe-transpose.sbatch" big.h5 -- --panel-rows 4) \
        || bad "sbatch failed: $out" || return 1
    job=${out%%;*} log=$D/gpipe-transpose_$job.out
    for _ in $(seq 60); do grep -q 'gpipe-slurm: .* run: ' "$log" 2>/dev/null && break; sleep 0.5; done
    grep -q 'gpipe-slurm: .* run: ' "$log" 2>/dev/null || bad "job $job did not start gpipe within 30 s" || return 1
    # The signal must reach gpipe after its first journal entry and before its last panel. A
    # sleep races either way (256 panels take ~1 s where fsync is cheap, ~25 s where it is not),
    # so the ranks are held with SIGSTOP: they run in slices of 0.1 s until the journal of the
    # stopped partial output says rows are done; then, still stopped, they get SIGUSR1 through
    # the batch script and the launcher, and SIGCONT once it is pending in every rank.
    for _ in $(seq 200); do [ -e "$D/.big.T.h5.gpipe-tmp" ] && break; sleep 0.05; done
    [ -e "$D/.big.T.h5.gpipe-tmp" ] || bad "no partial output $D/.big.T.h5.gpipe-tmp within 10 s" || return 1
    local pids=() rows=0 p
    for _ in $(seq 100); do
        read -ra pids <<< "$(job_ranks "$job")"
        (( ${#pids[@]} == 2 )) || bad "job $job: ${#pids[@]} gpipe ranks running, expected 2" || return 1
        kill -STOP "${pids[@]}"
        rows=$(journal_rows "$D/.big.T.h5.gpipe-tmp")
        (( rows > 0 )) && break
        kill -CONT "${pids[@]}"
        sleep 0.1
    done
    (( rows > 0 )) || { kill -CONT "${pids[@]}"; bad "the partial output's journal stayed at 0 rows"; return 1; }
    scancel --batch --signal=USR1 "$job" || { kill -CONT "${pids[@]}"; bad "scancel --batch --signal=USR1 $job failed"; return 1; }
    for _ in $(seq 100); do
        local all=1
        for p in "${pids[@]}"; do usr1_pending "$p" || all=0; done
        (( all )) && break
        sleep 0.1
    done
    kill -CONT "${pids[@]}"
    wait_ended "$job" 300 || return 1
    log_has "$log" "received SIGUSR1 (the time limit is near): forwarding SIGUSR1 to the $expect_launcher step" || return 1
    log_has "$log" "^gpipe: error: .*interrupted by signal 10 at panel [0-9]*/[0-9]*" \
        || bad "gpipe finished before the signal came: make the input of this test bigger" || return 1
    no_cr "$log" || return 1
    if (( resumable )); then
        expect_job "$job" COMPLETED 0:0 || { why+="; log: $(cat "$log")"; return 1; }
        [[ $(job_field "$job" Restarts) == 1 ]] || bad "job $job: Restarts=$(job_field "$job" Restarts), expected 1" || return 1
        log_has "$log" "stopped early on SIGUSR1 with its partial output kept: requeueing job $job" || return 1
        log_has "$log" "run 2 of job $job (requeued after a stop): continuing with --resume" || return 1
        log_has "$log" "run: .* transpose big.h5 --panel-rows 4 --resume\$" || return 1
        log_has "$log" "gpipe finished: exit 0" || return 1
        verify "$D/big.h5" "$D/big.T.h5" "$D/verify.out" || return 1
        rm -f "$D/verify.out" "$D/big.T.h5"
    else
        expect_job "$job" FAILED 2:0 || { why+="; log: $(cat "$log")"; return 1; }
        log_has "$log" "stopped early on SIGUSR1: nothing was written and this gpipe has no --resume" || return 1
    fi
    [[ $(cd "$D" && ls -A | grep -v -e '^big\.h5$' -e "^gpipe-transpose_$job\.out$" | wc -l) == 0 ]] \
        || bad "files left behind: $(cd "$D" && ls -A)"
}

# ---- run -----------------------------------------------------------------------------------
if (( SHELL_MODE )); then
    say "cluster up: SLURM_CONF=$SLURM_CONF, GPIPE=$GPIPE; exit the shell to stop it"
    rc=0
    if [[ -t 0 ]]; then (cd "$W/jobs" && PS1='[gpipe-slurm \W]\$ ' bash --norc -i) || rc=$?
    else (cd "$W/jobs" && bash) || rc=$?; fi
    exit "$rc"
fi
for t in "${TESTS[@]}"; do
    if [[ $t == chain ]] && ! "$GPIPE" --help 2>&1 | grep -qw reduce; then
        say "SKIP chain: $GPIPE has no reduce command yet (gpipe --help lists none)"
        SKIPS+=("$t"); continue
    fi
    t1=$SECONDS why=""
    if "t_${t//-/_}" && [[ -z $why ]]; then
        say "PASS $t ($((SECONDS - t1)) s)"; PASSES+=("$t")
    else
        say "FAIL $t ($((SECONDS - t1)) s): ${why:-see above}"; FAILS+=("$t")
    fi
done
say "${#PASSES[@]} passed, ${#FAILS[@]} failed, ${#SKIPS[@]} skipped${FAILS:+ (failed: ${FAILS[*]})}${SKIPS:+ (skipped: ${SKIPS[*]})}"
if (( ${#FAILS[@]} )); then
    say "slurmctld.log and slurmd.log, last lines:"
    tail -n 15 "$W/log/slurmctld.log" "$W/log/slurmd.log" 2>/dev/null || true
    exit 1
fi
exit 0
