#!/usr/bin/env bash
# bench/run-multigpu.sh — issue 9 on a machine with several GPUs, in one pass: the NCCL tests,
# the exchange against nccl-tests' all-to-all at 1..N ranks, and strong scaling of a transpose
# (in memory and out of core) on 1..N GPUs with the MPI and the NCCL exchange, per-stage times
# from --json. Results in $OUT (or /tmp/gpipe-mgpu); a short table last.
# usage (GPU machine): source .devdeps/activate.sh && bash bench/run-multigpu.sh [build-gpu] [GiB]
set -u
B=${1:-build-gpu}
GIB=${2:-32}
PARTS=${PARTS:-"tests exchange mem ooc"}   # which parts to run
NPS=${NPS:-}                               # rank counts for the scaling (default 1 2 4 8 <= GPUs)
O=${OUT:-/tmp/gpipe-mgpu}
mkdir -p "$O"
export LD_LIBRARY_PATH=$PWD/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# NVLink multicast stays off: it can take a shared host's GPUs out of service
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ -z "${GPIPE_NCCL_LIBRARY:-}" ]; then
    GPIPE_NCCL_LIBRARY=$(find /usr/local /opt /usr/lib -name 'libnccl.so.2' 2>/dev/null | head -1)
    export GPIPE_NCCL_LIBRARY=${GPIPE_NCCL_LIBRARY:-libnccl.so.2}
fi
MPI="mpirun -q -x NCCL_NVLS_ENABLE -x GPIPE_NCCL_LIBRARY -x LD_LIBRARY_PATH"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
{ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader; nvidia-smi topo -m; nproc; free -g | head -2
  echo "NCCL: $GPIPE_NCCL_LIBRARY"; } > "$O/machine.txt" 2>&1
t0=$SECONDS
step() { printf '%-40s %s\n' "$1" "$2" | tee -a "$O/summary.txt"; }

case " $PARTS " in *" tests "*)
timeout 300 ctest --test-dir "$B" -R gpu_nccl --output-on-failure > "$O/ctest-nccl.log" 2>&1
step "ctest gpu_nccl ($ngpu GPUs)" "rc=$? $(grep -E '^== ' "$O/ctest-nccl.log" | tail -1) ($((SECONDS - t0)) s)";;
esac

nps="1"; for p in 2 4 8; do [ "$p" -le "$ngpu" ] && nps="$nps $p"; done
[ -n "$NPS" ] && nps=$NPS
case " $PARTS " in *" exchange "*) ;; *) nps_x="";; esac
for np in ${nps_x-$nps}; do
    timeout 120 $MPI -n "$np" "$B/bench/bench_exchange" --mib 1024 --reps 20 --json > "$O/exchange-np$np.txt" 2>&1
    step "bench_exchange np=$np" "rc=$? $(grep 'gpipe NCCL' "$O/exchange-np$np.txt" | awk '{print $(NF-4), "GB/s, ratio", $NF}') ref $(grep ceiling "$O/exchange-np$np.txt" | awk '{print $(NF-2)}') mpi $(grep 'MPI exchange' "$O/exchange-np$np.txt" | awk '{print $(NF-4)}')"
done

# strong scaling, matrices in /dev/shm (memory: the exchange and the GPU path are measured, not
# a disk): in memory, an IN GiB f32 matrix in one panel per rank; out of core, a GIB GiB f32
# matrix streamed under --mem 2G per rank.
W=/dev/shm/gpipe-mgpu
rm -rf "$W"; mkdir -p "$W"
IN=${IN_GIB:-8}
cols=131072
rows_in=$(( IN * 1024 * 1024 * 1024 / 4 / cols )) rows_ooc=$(( GIB * 1024 * 1024 * 1024 / 4 / cols ))
modes=""
for m in mem ooc; do case " $PARTS " in *" $m "*) modes="$modes $m";; esac; done
case "$modes" in *mem*) timeout 200 $MPI -n 16 "$B/gpipe" gen "$W/in.h5" --shape ${rows_in}x${cols} --dtype f32 -q;; esac
case "$modes" in *ooc*) timeout 300 $MPI -n 16 "$B/gpipe" gen "$W/ooc.h5" --shape ${rows_ooc}x${cols} --dtype f32 -q;; esac
[ -n "$modes" ] && step "gen (${rows_in} and) ${rows_ooc} x ${cols} f32" "rc=$? ($((SECONDS - t0)) s)"
for mode in $modes; do
  for np in $nps; do
    for x in mpi nccl; do
      if [ $mode = mem ]; then f=$W/in.h5 opt="--panel-rows $(( (rows_in + np - 1) / np ))"; else f=$W/ooc.h5 opt="--mem 2G"; fi
      rm -f "$W/t.h5"
      timeout 240 $MPI -n "$np" "$B/gpipe" transpose "$f" -o "$W/t.h5" --force -q --device cuda --exchange $x $opt \
          --json "$O/scale-np$np-$x-$mode.jsonl" 2> "$O/scale-np$np-$x-$mode.err"
      rc=$?
      step "transpose $mode np=$np $x" "rc=$rc $(env -u LD_LIBRARY_PATH python3 -c "
import json,sys
j=json.loads(open('$O/scale-np$np-$x-$mode.jsonl').readlines()[-1]); s=j['stage_seconds_max']
print('%.2f s %.2f GB/s panels %d |' % (j['seconds'], j['gbps'], j['panels']), ' '.join('%s %.2f' % (k, v) for k, v in s.items() if v >= 0.005))
" 2>/dev/null || tail -1 "$O/scale-np$np-$x-$mode.err")"
    done
  done
done
rm -rf "$W"
echo "== summary ($((SECONDS - t0)) s)"
cat "$O/summary.txt"
