# device call 1 (session 32; written in session 31, plus the lo-list of column results): the exact whole sum's last points. (1) does its load order cost?
# plain_sum (4 loads, 256 x 8, block-tile order) against plain_sum_wc (a warp's loads contiguous),
# plain_sum_8 (8 loads, 256 x 4) and plain_sum_8wc; the exact kernels with tuning wc=1 (k_sum_all:
# the whole sum, rows of 4 x 2^27, columns of 2^27 x 4) against the default. (2) the exponent test
# on 16-bit halves (build with -DGP_SPAN16=1, v/sp/): 1.5 integer instructions an element against
# 2.5. (3) rows of the row kernel with segments interleaved by chunks (ri=1: 512 x 2^20).
# (4) the defaults table with rws=0 (the last session's change) on every shape.
# (5) test_cuda_reduce --quick of both builds (wc=1 in variants 1, 3, 4;
# ri=1 in 3, 7).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory,memory.total --format=csv,noheader | tee $O/sum.txt
B=v/bench/bench_reduce_gpu; S=v/sp/bench_reduce_gpu
timeout 60 $B --ops sum_all,sum_rows,sum_cols --probes --variants 'wc=1;ri=1;rws=0' --reps 20 > $O/b1.txt 2>&1
echo "bench round 1 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 60 $S --ops sum_all,sum_rows,sum_cols --probes --variants 'wc=1' --reps 20 > $O/s1.txt 2>&1
echo "span16 bench round 1 rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 30 v/tests/gpu/test_cuda_reduce --quick > $O/quick.txt 2>&1
echo "test_cuda_reduce --quick rc=$? $(tail -1 $O/quick.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 30 v/sp/test_cuda_reduce --quick > $O/quick-sp.txt 2>&1
echo "span16 test_cuda_reduce --quick rc=$? $(tail -1 $O/quick-sp.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
if [ $((SECONDS-t0)) -lt 150 ]; then
  timeout 60 $B --ops sum_all,sum_rows,sum_cols --variants 'wc=1;ri=1' --reps 20 > $O/b2.txt 2>&1
  timeout 60 $S --ops sum_all,sum_rows,sum_cols --reps 20 > $O/s2.txt 2>&1
  echo "round 2 ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
fi
# (5b) column sums of wide data: every lo nonzero, the lo-list's worst case
timeout 40 $B --ops sum_cols --data wide --reps 20 > $O/w1.txt 2>&1
echo "wide columns rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
# (6) the whole test (every variant, the big shapes: 4 x 200004 columns in one y-block, the lo-list at scale)
timeout 100 v/tests/gpu/test_cuda_reduce > $O/full.txt 2>&1
echo "test_cuda_reduce (full, 100 s) rc=$? $(grep -c FAIL $O/full.txt) FAIL lines; $(tail -1 $O/full.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
for f in $O/b*.txt $O/s*.txt $O/w*.txt; do
  echo "== $(basename $f)"; grep -E "^(cub_sum|sum_|plain_sum)" $f | awk '{printf "%s %s %s %s\n", $1, $2, $3, $5}'
  grep -iE "FAIL|differ|mismatch" $f | head -3
done | tee -a $O/sum.txt
