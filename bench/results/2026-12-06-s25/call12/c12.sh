# device call 12 (session 25): call 11 with 256-thread blocks for the short-row shape (call 11: 128 x 4 at 1024 threads per SM gave 0.944-0.948; 256 x 4 measured 0.951-0.955 in call 6); as the default on cards below 4 TB/s peak
# (c->mem_gbps from the memory clock and bus width: an H100 SXM 3.35 TB/s, an H200 4.9): the row
# sums with the default against the old shape spelt out (bs=128, unroll=8: autoshape off), three
# rounds; then test_cuda_reduce --quick (its default variant takes the new shape on this card).
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
for r in 1 2 3; do
  timeout 120 v/bench/bench_reduce_gpu --ops sum_all,sum_rows --variants 'bs=128,bps=8,unroll=8' --reps 20 > $O/b-$r.txt 2>&1
  echo "bench round $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done
T=$(find v -name test_cuda_reduce -type f | head -1)
timeout 100 $T --quick > $O/test.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/test.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/b-*.txt; do
  echo "== $(basename $f)"; grep -E "^(sum_rows)" $f | awk '{printf "%s %s %s\n", $1, $2, $5}'
  grep -iE "FAIL" $f | head -3
done | tee -a $O/sum.txt
