# device call 3 (session 19): loads with an L2 prefetch-size hint (GP_LDQ: 1 ld.global.nc.L2::256B,
# 2 .L1::no_allocate.L2::256B, 3 .L2::128B) against plain __ldg: the exact f32 sums (issue 5) and
# the default transposes (issue 3), interleaved, two rounds
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do
  for v in base ldq1 ldq2; do
    timeout 90 v/brg_$v --reps 20 --ops sum_all,sum_rows,sum_cols > $O/brg_${v}_$r.txt 2>&1; echo "brg $v $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
    timeout 60 v/ggb_$v --reps 20 --match default > $O/ggb_${v}_$r.txt 2>&1; echo "ggb $v $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
  done
  [ $r = 1 ] && { timeout 90 v/brg_ldq3 --reps 20 --ops sum_all,sum_rows,sum_cols > $O/brg_ldq3_$r.txt 2>&1; echo "brg ldq3 $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt; }
done
for f in $O/brg_*.txt; do echo "== $(basename $f) $(grep -E '^(sum_all|sum_rows|sum_cols) ' $f | awk '{printf "%s:%s ", substr($1,5), $5}')"; grep -ciE 'differ|mismatch|FAIL' $f; done
for f in $O/ggb_*.txt; do echo "== $(basename $f)"; grep -A7 '^summary' $f | tail -5 | tr -s ' ' | cut -c1-90; done
cat $O/sum.txt
