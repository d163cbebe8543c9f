# device call 7 (session 16): the default kernels on other 2 GiB shapes (gpipe bench kernels --rows N):
# is the 8 B matrix's power-of-two pitch (16384 x 16384) part of its 94.5-95% ceiling?
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS; W=$(mktemp -d)
run() { es=$1; shift; for r in "$@"; do timeout 30 $B/gb --esize $es --rows $r --match default --reps 20 --json $W/j > $W/t 2>&1 || echo "rc=$? es $es rows $r"; cat $W/j >> $O/shapes.jsonl; cat $W/t >> $O/shapes.txt; done; }
for pass in 1 2; do
run 8 16384 16000 15008 12288 20000 23168 8192 32768
run 4 23168 16384 20000 24000 30000 32768
run 1 46336 32768 40000 50000 65536
run 2 32768 30000 40000
run 16 11584 12000 8192
done
echo "$((SECONDS-t0)) s"
env -u LD_LIBRARY_PATH python3 - $O/shapes.jsonl <<'PY' | tee $O/table.txt
import json,sys,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    j=json.loads(l)
    if j['variant']=='default': d[(j['esize'],j['rows'],j['cols'])].append(j['pct_of_copy'])
for k in sorted(d): print("es %2d %6d x %-7d default %s" % (k[0],k[1],k[2]," ".join("%.1f%%"%v for v in d[k])))
PY
