# device call 4 (session 28), on the warm machine of call 3 (H100, vbios 96.00.99.00.0D), as run:
# compute-sanitizer racecheck over test_cuda_reduce --quick for the device time that was left (110 s).
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH; t0=$SECONDS; timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 v/tests/gpu/test_cuda_reduce --quick > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$? ($((SECONDS-t0)) s)"; tail -3 $OUT/racecheck.txt
