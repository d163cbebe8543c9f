# session 39 call 1: on an H200, the final code of session 38 (its c6.sh: test, fin=2 against fin=1,
# verified bench, transposes); on an H100, where those figures exist, the pitch-alignment experiment
# below instead
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
case "$name" in
*H200*) bash bench/results/2026-12-07-s38/c6.sh ;;
*) bash bench/results/2026-12-07-s39/align.sh ;;
esac
