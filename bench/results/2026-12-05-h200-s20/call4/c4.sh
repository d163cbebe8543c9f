# device call 4 (session 20): row sums of 2^20 x 512 (shape 2), a sweep of loads in flight (unroll),
# lanes per row (rsteps) and block size, two rounds
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz
O=$OUT
for r in 1 2; do
  timeout 200 v/brg_new --reps 20 --shape 2 --ops sum_rows --variants 'unroll=4,rsteps=1,bs=128;unroll=4,rsteps=1,bs=256;unroll=4,rsteps=2,bs=128;unroll=4,rsteps=2,bs=256;unroll=4,rsteps=4,bs=128;unroll=4,rsteps=4,bs=256;unroll=4,rsteps=8,bs=128;unroll=4,rsteps=8,bs=256;unroll=4,rsteps=16,bs=128;unroll=4,rsteps=16,bs=256;unroll=8,rsteps=1,bs=128;unroll=8,rsteps=1,bs=256;unroll=8,rsteps=2,bs=128;unroll=8,rsteps=2,bs=256;unroll=8,rsteps=4,bs=128;unroll=8,rsteps=4,bs=256;unroll=8,rsteps=8,bs=128;unroll=8,rsteps=8,bs=256;unroll=8,rsteps=16,bs=128;unroll=8,rsteps=16,bs=256' > $O/sweep_$r.txt 2>&1; echo "sweep $r rc=$?"
done
paste <(grep -E '^sum_rows' $O/sweep_1.txt | awk '{print $1, $5}') <(grep -E '^sum_rows' $O/sweep_2.txt | awk '{print $5}')
grep -ciE 'differ|mismatch|FAIL' $O/sweep_1.txt $O/sweep_2.txt
