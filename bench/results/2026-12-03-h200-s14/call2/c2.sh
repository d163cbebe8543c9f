source .devdeps/activate.sh; tar xJf .gpucarry/g.tar.xz; export LD_LIBRARY_PATH=$PWD/build-gpu/lib:$LD_LIBRARY_PATH
B=build-gpu; O=$OUT; t0=$SECONDS
ldd $B/gpipe | grep -i -c cublas | sed 's/^/gpipe links cublas: /' | tee -a $O/sum.txt
timeout 400 $B/tests/gpu/test_cuda_reduce > $O/tcr.txt 2>&1; echo "test_cuda_reduce rc=$? $(tail -1 $O/tcr.txt) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
tail -3 $O/tcr.txt
timeout 120 $B/gpipe bench kernels --match cublas --reps 20 > $O/bk.txt 2>&1; echo "bench kernels (cublas) rc=$? ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
cat $O/bk.txt | tail -30
cat $O/sum.txt
