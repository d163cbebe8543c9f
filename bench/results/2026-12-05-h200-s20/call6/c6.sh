# device call 6 (session 20): the retuned AutoShape (short rows 256 x 8, narrow columns 512 x 8)
# against the committed defaults, every op and shape, two interleaved rounds; test_cuda_reduce --quick
source .devdeps/activate.sh; rm -rf w; tar xJf .gpucarry/v.tar.xz
O=$OUT
for r in 1 2; do for v in old tuned; do
  timeout 120 w/brg_$v --reps 20 --ops sum_all,sum_rows,sum_cols,max_rows,max_cols > $O/brg_${v}_$r.txt 2>&1; echo "brg $v $r rc=$?"
done; done
timeout 200 w/tcr --quick > $O/tcr.txt 2>&1; echo "tcr rc=$?"; tail -1 $O/tcr.txt
for op in sum_rows sum_cols sum_all; do for v in old tuned; do echo "$op $v: $(for r in 1 2; do grep -E "^$op " $O/brg_${v}_$r.txt | awk '{printf "%s ", $5}'; echo -n '| '; done)"; done; done
grep -ciE 'differ|mismatch|FAIL' $O/brg_*.txt
