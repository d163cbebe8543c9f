# device call 2 (session 32): the lo-list of column results against the dense (hi, lo) before it
# (v/old: commit 0c1d830), column sums on every shape, uniform and wide data (wide: nearly every
# lo nonzero, the lo-list's worst case), two rounds in alternation, --no-verify (call 1 verified
# the new binary on every shape).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi --query-gpu=name,vbios_version,clocks.max.memory --format=csv,noheader | tee $O/sum.txt
for r in 1 2; do for d in uniform wide; do for b in old bench; do
  timeout 40 v/$b/bench_reduce_gpu --ops sum_cols --no-verify --data $d --reps 20 > $O/$b-$d-$r.txt 2>&1
  echo "$b $d round $r rc=$? ($((SECONDS-t0)) s)" >> $O/sum.txt
  grep -E "^sum_cols" $O/$b-$d-$r.txt | awk -v t="$b $d $r" '{printf "%s %s %s x%s r+w %s\n", t, $2, $3, $5, $4}' >> $O/sum.txt
done; done; done
cat $O/sum.txt
