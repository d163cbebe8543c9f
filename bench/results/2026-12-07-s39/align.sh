# Which pitch alignment makes a transpose shape slow? 1 B 50000 x 42944 ran at 76% of copy
# (dst rows of 50000 B: 16 mod 32). Prediction if partial 32-byte sectors on the stores are the
# cause: dst pitches that are multiples of 32 B run at >= 93%, those at 16 mod 32 stay near 76%.
# Same for the src side (40000 x 53680: src rows 16 mod 32) and 4 B 20000 x 26832 (64 mod 128).
set -u
G=v/gpipe
one() { # esize rows cols
  for k in 1 2; do
    timeout 60 $G bench kernels --size-mib 2100 --reps 20 --esize $1 --rows $2 --cols $3 --match default > $OUT/al_$1_$2_$3_$k.txt 2>&1
    printf "%2s B %6s x %6s dst%%32=%2s dst%%128=%3s src%%32=%2s src%%128=%3s run%s: %s\n" $1 $2 $3 \
      $(( $2*$1 % 32 )) $(( $2*$1 % 128 )) $(( $3*$1 % 32 )) $(( $3*$1 % 128 )) $k \
      "$(grep -E '^ *default' $OUT/al_$1_$2_$3_$k.txt | head -1 | tr -s ' ')" | tee -a $OUT/align.txt
  done
}
for r in 50000 50016 50048 49920 50032 49984; do one 1 $r 42944; done
for c in 53680 53696 53760 53664; do one 1 40000 $c; done
for c in 26832 26848 26880; do one 4 20000 $c; done
for c in 26832 26816 26880; do one 2 40000 $c; done
head -5 $OUT/al_1_50000_42944_1.txt
