# device call 5 (session 20): block size and loads in flight for the row sums of every shape, more
# around 256 x 8 on 2^20 x 512, and a sweep for the column sums of 2^20 x 512 and 2^27 x 4
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz
O=$OUT
for r in 1 2; do
  for s in 0 1 3 4; do timeout 100 v/brg_new --reps 20 --shape $s --ops sum_rows --variants 'bs=256,unroll=8;bs=256,unroll=16;bs=128,unroll=8;bs=512,unroll=8;bs=512,unroll=16' > $O/rows_s${s}_$r.txt 2>&1; done
  timeout 100 v/brg_new --reps 20 --shape 2 --ops sum_rows,max_rows --variants 'bs=256,unroll=8,bps=2;bs=512,unroll=8;bs=256,unroll=8,bps=4;bs=256,unroll=4,rsteps=4;bs=256,unroll=8,rsteps=3' > $O/rows_s2_$r.txt 2>&1
  for s in 2 3; do timeout 150 v/brg_new --reps 20 --shape $s --ops sum_cols --variants 'bs=128,unroll=4,bps=4;bs=128,unroll=4,bps=16;bs=128,unroll=8,bps=4;bs=128,unroll=8,bps=16;bs=256,unroll=4,bps=4;bs=256,unroll=4,bps=16;bs=256,unroll=8,bps=4;bs=256,unroll=8,bps=16;bs=512,unroll=4,bps=4;bs=512,unroll=4,bps=16;bs=512,unroll=8,bps=4;bs=512,unroll=8,bps=16' > $O/cols_s${s}_$r.txt 2>&1; done
  echo "round $r done"
done
for f in rows_s0 rows_s1 rows_s3 rows_s4 rows_s2 cols_s2 cols_s3; do echo "== $f"; paste <(grep -E '^(sum_rows|max_rows|sum_cols)' $O/${f}_1.txt | awk '{print $1, $2, $5}') <(grep -E '^(sum_rows|max_rows|sum_cols)' $O/${f}_2.txt | awk '{print $5}'); done
grep -ciE 'differ|mismatch|FAIL' $O/*.txt | grep -v ':0' ; echo checked
