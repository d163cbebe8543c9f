# device call 9 (session 16): which pitch makes a shape slow? The default kernel with one side of a slow shape
# fixed and the other varied (1 B: 50000 x 42944 was 77%; 4 B: 20000 x 26832 was 91%)
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS; W=$(mktemp -d)
r() { timeout 30 $B/gb --esize $1 --rows $2 --cols $3 --match default --reps 20 --json $W/j > $W/t 2>&1 || { echo "rc=$? $*"; cat $W/t; }; cat $W/j >> $O/pitch.jsonl; }
for pass in 1 2; do
for R in 50000 49152 48000 46336 44000 40000 32768; do r 1 $R 42944; done
for C in 42944 42752 40960 40000 36864 32768 46336; do r 1 50000 $C; done
for R in 20000 19968 18000 16384 23168; do r 4 $R 26832; done
for C in 26832 26624 25000 24576 16384 23168; do r 4 20000 $C; done
done
echo "$((SECONDS-t0)) s"
env -u LD_LIBRARY_PATH python3 - $O/pitch.jsonl <<'PY' | tee $O/table.txt
import json,sys,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    j=json.loads(l)
    if j['variant']=='default': d[(j['esize'],j['rows'],j['cols'])].append(j['pct_of_copy'])
for k in d: print("es %2d %6d x %-7d (src pitch %6d B, dst pitch %6d B) default %s" % (k[0],k[1],k[2],k[2]*k[0],k[1]*k[0]," ".join("%.1f%%"%v for v in d[k])))
PY
