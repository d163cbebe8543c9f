# device call 1 (session 20): the L2::256B loads of e80c182 against the code before them (brg_base:
# reduce.cu of e80c182^ relinked), two interleaved rounds; test_cuda_reduce --quick on the new code
source .devdeps/activate.sh; tar xJf .gpucarry/v.tar.xz
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do
  for v in base new; do
    timeout 120 v/brg_$v --reps 20 --ops sum_all,sum_rows,sum_cols,max_rows,max_cols > $O/brg_${v}_$r.txt 2>&1; echo "brg $v $r rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
  done
done
timeout 200 v/ggb --reps 20 --match default > $O/ggb_new.txt 2>&1; echo "ggb rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 240 v/test_cuda_reduce --quick > $O/tcr.txt 2>&1; echo "tcr rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tail -3 $O/tcr.txt
for f in $O/brg_*.txt; do echo "== $(basename $f)"; grep -E '^(cub_sum|sum_all|sum_rows|sum_cols|max_rows|max_cols) ' $f | awk '{printf "%s %s %s\n", $1, $2, $5}' | paste -sd' ' ; grep -ciE 'differ|mismatch|FAIL' $f; done
grep -A7 '^summary' $O/ggb_new.txt | tail -6 | tr -s ' ' | cut -c1-90
cat $O/sum.txt
