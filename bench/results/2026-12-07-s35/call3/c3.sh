# session 35 call 3: batch=3 (directed-rounding runs) as its own loop copy (B) against c32e583 (A)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
for r in 1 2; do
  timeout 30 v/A --no-verify --ops sum_all --reps 20 2>&1 | grep -E "^(sum_all|VERIFY)" | sed "s/^/A$r /"
  timeout 30 v/B --no-verify --ops sum_all --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(sum_all|VERIFY)" | sed "s/^/B$r /"
done
timeout 40 v/tests/gpu/test_cuda_reduce --quick > /tmp/quick.txt 2>&1; echo "test_cuda_reduce --quick (kind 7, batch=3, fin=2) rc=$? $(tail -1 /tmp/quick.txt)"; grep -m3 FAIL /tmp/quick.txt
timeout 30 v/A --no-verify --ops sum_rows,sum_cols --reps 20 2>&1 | grep -E "^(sum_|VERIFY)" | sed "s/^/A /"
timeout 30 v/B --no-verify --ops sum_rows,sum_cols --reps 20 --variants 'batch=3' 2>&1 | grep -E "^(sum_|VERIFY)" | sed "s/^/B /"
