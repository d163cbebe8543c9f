# device call 3 (session 20): row sums of 2^20 x 512 (shape 2) with fewer lanes per row
# (rsteps=8: 2 lanes, 16/32: 1 lane, i.e. a thread per 2 KiB row with L1 serving its 8 loads),
# and the wide data (many binades) for the default, two rounds
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz
O=$OUT
for r in 1 2; do
  timeout 100 v/brg_new --reps 20 --shape 2 --ops sum_rows,max_rows --variants 'rsteps=8;rsteps=16;rsteps=16,unroll=4;rsteps=2' > $O/rows_$r.txt 2>&1; echo "rows $r rc=$?"
done
grep -E '^(cub_sum|sum_rows|max_rows)' $O/rows_1.txt $O/rows_2.txt | awk '{print $1, $2, $5, $8, $9, $10}'
grep -ciE 'differ|mismatch|FAIL' $O/rows_1.txt $O/rows_2.txt
