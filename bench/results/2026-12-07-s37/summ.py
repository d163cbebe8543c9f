# summary of a bench_reduce_gpu output with rounds prefixed "rN ": x CUB per line name, min/max/mean
import re, collections, sys
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r'(r\d) (\S+)\s+(\S+)\s+\S+\s+\S+\s+(\S+)', l)
    if m: d[m.group(2)].append(float(m.group(4)))
    elif not l.startswith('r'): print(l.strip())
for k, v in d.items(): print(f"{k:22s} min {min(v):.3f} max {max(v):.3f} mean {sum(v)/len(v):.4f} n={len(v)}")
