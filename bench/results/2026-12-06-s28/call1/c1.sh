# device call 1 (session 28): on an H200, session 27's call 4 (k_sum_rows_w against the row kernel on
# 2^20 x 512, rx=2 on 512 x 2^20, the defaults table beside rw=0). On any card: the CLI check of the
# two inputs added for k_sum_rows_w (20011 x 512 uniform, 4099 x 512 wide f32: every op and axis as
# `gpipe run` stages, cpu at 2 ranks against cuda at 1, default and 97-row panels, bit for bit),
# which have run only on the emulation, and test_cuda_reduce --quick.
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu
if grep -q H200 $O/sum.txt; then
  for r in 1 2; do
    timeout 90 $B --ops sum_rows --shape 2 --variants 'rw=0;rwr=4;unroll=16,rwr=4' --reps 20 > $O/s2-$r.txt 2>&1
    timeout 60 $B --ops sum_rows --shape 1 --variants 'rx=2' --reps 20 > $O/s1-$r.txt 2>&1
    timeout 100 $B --ops sum_all,sum_rows,sum_cols --variants 'rw=0' --reps 20 > $O/b-$r.txt 2>&1
    echo "round $r ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
  done
fi
GP_REDUCE_NPS=" " GP_REDUCE_FILES="plain512 wide512" timeout 200 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "check_reduce_gpu.sh rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tail -4 $O/reduce-gpu.log | tee -a $O/sum.txt
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 60 $T --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/s2-*.txt $O/s1-*.txt $O/b-*.txt; do
  [ -f $f ] || continue
  echo "== $(basename $f)"; grep -E "^(sum_|plain)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL|differ|mismatch|error" $f | head -3
done | tee -a $O/sum.txt
