# the next session's first device call: e1.sh (ck and dyn against the default, whole sum, three
# rounds), then, if a variant's mean beats the default's by more than 0.2 point, e2.sh with it
# (three more rounds and the whole verified bench), all in one call (a machine is hard to get)
set -u
bash bench/results/2026-12-07-s40/e1.sh 2>&1 | tee $OUT/e1summ.txt
best=$(python3 - $OUT/e1summ.txt <<'PY'
import re, sys
m = {}
for l in open(sys.argv[1]):
    r = re.match(r'(sum_all\S*)\s+min \S+ max \S+ mean (\S+)', l)
    if r: m[r.group(1)] = float(r.group(2))
base = m.get('sum_all')
cands = {k: v for k, v in m.items() if k.startswith('sum_all_')}
if base is not None and cands:
    k = max(cands, key=cands.get)
    if cands[k] > base + 0.002: print(k[len('sum_all_'):])
PY
)
echo "best variant: ${best:-none beats the default by 0.2 point}"
[ -n "$best" ] && SPEC="$best" bash bench/results/2026-12-07-s40/e2.sh 2>&1
