#!/usr/bin/env python3
"""bench/sass_loads.py - how a kernel's global loads are grouped in its SASS.

ptxas may move predicated loads of an unrolled loop next to their uses (the twenty-seventh
session found k_sum_rows_w at 1-2 LDG between its DADDs, 0.93x CUB instead of 0.96x): the loads
are then no longer in flight together. This prints, for every kernel of a cuobjdump -sass listing,
the sizes of its runs of global loads (LDG) that no arithmetic, shuffle or shared-memory
instruction interrupts (address arithmetic does not), as {run size: how many such runs}.
usage: cuobjdump -sass kernels.o > k.sass; bench/sass_loads.py k.sass [--match NAME] [--wide]
  --wide: only 128-bit loads (LDG.E.128)"""
import collections
import re
import sys

BREAK = {'DADD', 'FADD', 'FMUL', 'FFMA', 'DFMA', 'F2F', 'DSETP', 'FSETP', 'SHFL', 'STS', 'LDS', 'STG',
         'PRMT', 'REDUX'}


def runs(body, wide):
    out, cur = [], 0
    for line in body.split('\n'):
        if not re.search(r'/\*[0-9a-f]{4,6}\*/', line):
            continue
        m = re.search(r'\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if not m:
            continue
        op = m.group(1)
        if op.startswith('LDG') and (not wide or '128' in op):
            cur += 1
        elif op.split('.')[0] in BREAK and cur:
            out.append(cur)
            cur = 0
    if cur:
        out.append(cur)
    return out


def main():
    args = sys.argv[1:]
    if not args or args[0] in ('-h', '--help'):
        print(__doc__)
        return 0 if args else 2
    match = args[args.index('--match') + 1] if '--match' in args else ''
    wide = '--wide' in args
    text = open(args[0]).read()
    for f in re.split(r'\n\s*Function : ', text)[1:]:
        name = f.split('\n', 1)[0].strip()
        if match not in name:
            continue
        r = runs(f, wide)
        if r:
            print(dict(sorted(collections.Counter(r).items())), name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
