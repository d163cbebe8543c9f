#!/bin/bash
# slurm/gpipe-chain.sh — submit a transpose and then a reduction of its result as two Slurm
# jobs chained with --dependency=afterok: the reduce job starts only if the transpose job
# ended with exit code 0; otherwise Slurm cancels it (--kill-on-invalid-dep=yes).
#
#   slurm/gpipe-chain.sh [options] IN.h5 [-- sbatch options for both jobs]
#
#   -o, --output T.h5    transpose output (default: IN.T.h5 next to IN)
#   -s, --sums OUT.h5    reduce output (default: T.sums.h5 next to T)
#       --op OP          reduce operation (default sum)
#       --axis AXIS      reduce axis: rows, cols or all (default cols: one value per column of T)
#   -f, --force          overwrite existing outputs (gpipe --force on both steps)
#   -w, --wait           wait for both jobs to end; exit 0 only if both COMPLETED (else the
#                        failing job's exit code, or 1)
#
# It runs on a login node (not inside a job) and submits slurm/gpipe-transpose.sbatch and
# slurm/gpipe-reduce.sbatch from its own folder, so their #SBATCH lines (ranks, GPUs, time,
# partition: see the comment blocks there) apply; sbatch options after -- override them for
# both jobs. Prints `transpose job N` and `reduce job M`. Logs: gpipe-transpose_N.out and
# gpipe-reduce_M.out in the current directory.
# Environment: GPIPE=/path/to/gpipe (exported to the jobs; default: gpipe on PATH).
#
# Example:
#   GPIPE=$PWD/build/gpipe slurm/gpipe-chain.sh data/m.h5 -- -n 8 -t 30 --partition=gpu
set -euo pipefail

die() { printf 'gpipe-chain: error: %s\n' "$*" >&2; exit 2; }
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
out="" sums="" op=sum axis=cols wait=0
force=()
while (( $# )); do
    case $1 in
        -o|--output) out=${2:?}; shift 2 ;;
        -s|--sums) sums=${2:?}; shift 2 ;;
        --op) op=${2:?}; shift 2 ;;
        --axis) axis=${2:?}; shift 2 ;;
        -f|--force) force=(--force); shift ;;
        -w|--wait) wait=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --) die "no input file before --" ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) break ;;
    esac
done
(( $# >= 1 )) || die "usage: gpipe-chain.sh [options] IN.h5 [-- sbatch options]  (see --help)"
in=$1; shift
sbopts=()
if (( $# )); then
    [[ $1 == -- ]] || die "unexpected argument '$1' (sbatch options go after --)"
    shift; sbopts=("$@")
fi
[[ -n ${SLURM_JOB_ID:-} ]] && echo "gpipe-chain: note: running inside job $SLURM_JOB_ID; the jobs are submitted separately" >&2
[[ -n $out ]] || { out=${in%.h5}; out=${out%.hdf5}.T.h5; }
[[ -n $sums ]] || sums=${out%.h5}.sums.h5
command -v sbatch >/dev/null || die "sbatch not found: run this where Slurm's client commands are"

# The reduce step needs a gpipe with a reduce command; say so now rather than after the transpose.
gpipe=${GPIPE:-gpipe}
if command -v "$gpipe" >/dev/null && ! "$gpipe" --help 2>&1 | grep -qw reduce; then
    echo "gpipe-chain: warning: $gpipe has no reduce command; the reduce job will fail" >&2
fi

jid() { local s; s=$(sbatch --parsable "$@") || exit $?; echo "${s%%;*}"; }
t=$(jid "${sbopts[@]}" "$here/gpipe-transpose.sbatch" "$in" -- -o "$out" "${force[@]}")
echo "transpose job $t: gpipe transpose $in -o $out"
r=$(jid --dependency=afterok:"$t" --kill-on-invalid-dep=yes "${sbopts[@]}" \
        "$here/gpipe-reduce.sbatch" "$out" -- --op "$op" --axis "$axis" -o "$sums" "${force[@]}")
echo "reduce job $r: gpipe reduce $out --op $op --axis $axis -o $sums (after transpose job $t succeeds)"
(( wait )) || exit 0

# --wait: poll until both jobs have ended, then judge them by their final state.
state() { scontrol show job -o "$1" 2>/dev/null | grep -o "\b$2=[^ ]*" | head -1 | cut -d= -f2 || true; }
active() {
    case $(state "$1" JobState) in
        PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUE*|RESIZING|SIGNALING|STAGE_OUT) return 0 ;;
        *) return 1 ;;   # ended, or no longer known to slurmctld (MinJobAge)
    esac
}
while active "$t" || active "$r"; do sleep 2; done
rc=0
for j in "$t" "$r"; do
    s=$(state "$j" JobState) e=$(state "$j" ExitCode)
    echo "job $j: ${s:-unknown (no longer in slurmctld)} exit ${e:-?}"
    if [[ $s != COMPLETED ]] && (( rc == 0 )); then
        rc=${e%%:*}; [[ $rc =~ ^[0-9]+$ && $rc != 0 ]] || rc=1
    fi
done
exit "$rc"
