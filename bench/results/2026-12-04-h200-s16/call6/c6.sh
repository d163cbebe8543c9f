# device call 6 (session 16): racecheck of every transpose kernel on the small shapes (final code); the bench again
source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-slim/lib:$LD_LIBRARY_PATH
B=build-slim; O=$OUT; t0=$SECONDS
timeout 100 $B/tests/gpu/gp_gpu_bench --reps 20 --json $O/bk.jsonl > $O/bk.txt 2>&1; echo "bench kernels rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
timeout 400 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/gpu/test_cuda_transpose --max-elems 140000 > $O/race.txt 2>&1; echo "racecheck rc=$? $(tail -1 $O/race.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -ci hazard $O/race.txt | sed 's/^/lines naming a hazard: /' | tee -a $O/sum.txt
grep -A7 '^summary' $O/bk.txt
cat $O/sum.txt
