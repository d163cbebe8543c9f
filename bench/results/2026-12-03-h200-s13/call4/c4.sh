source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
CS="compute-sanitizer --error-exitcode 9"
$CS --tool memcheck $B/tests/gpu/test_cuda_reduce --quick > $O/mem.txt 2>&1; echo "memcheck test_cuda_reduce --quick rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 260 $CS --tool racecheck $B/tests/gpu/test_cuda_reduce --quick > $O/race.txt 2>&1; echo "racecheck test_cuda_reduce --quick rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
env -u LD_LIBRARY_PATH python3 -c "
import numpy as np, h5py
r = np.random.default_rng(5)
for n, s in (('w', (4, 2200007)), ('t', (300007, 4))):
    a = r.uniform(-1, 1, size=s).astype('<f4'); a[1, 12345 % s[1]] = 7.0
    h5py.File('/tmp/%s.h5' % n, 'w')['data'] = a
    np.save('/tmp/%s.npy' % n, a)
"
for f in w t; do for op in max argmax; do for tool in memcheck racecheck; do
  $CS --tool $tool $B/gpipe reduce /tmp/$f.h5 --op $op --axis rows --device cuda -o /tmp/$f-$op-$tool.h5 > $O/san-$f-$op-$tool.txt 2>&1
  echo "$tool gpipe reduce $f $op rows rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
done; done; done
env -u LD_LIBRARY_PATH python3 -c "
import numpy as np, h5py
for f in 'wt':
    a = np.load('/tmp/%s.npy' % f)
    for op in ('max', 'argmax'):
        want = a.max(axis=1).astype(np.float64) if op == 'max' else a.argmax(axis=1)
        for tool in ('memcheck', 'racecheck'):
            try:
                got = h5py.File('/tmp/%s-%s-%s.h5' % (f, op, tool), 'r')['/rows'][...]
                print(f, op, tool, 'numpy-equal' if got.shape == want.shape and (got == want).all() else 'DIFFERENT', got.dtype, got.shape)
            except Exception as e:
                print(f, op, tool, 'ERROR', e)
" 2>&1 | tee -a $O/sum.txt
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|Error" $O/mem.txt $O/race.txt $O/san-*.txt | sort | uniq -c | head
cat $O/sum.txt
