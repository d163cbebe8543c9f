# session 36 call 12: the product path on the final kernels (caf225f): check_reduce_gpu.sh's job part
# (every op and axis as `gpipe run` stages, cpu at 2 ranks against cuda, default and 97-row panels,
# bit for bit) on the inputs whose sums take k_sum_all: the whole sums of every file, columns as
# whole sums (200003 x 4 plain and wide-exponent, 200003 x 2, 300007 x 1), few long rows (4 x 200004)
set -u
source .devdeps/activate.sh; rm -rf v; tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,vbios_version --format=csv,noheader
GP_REDUCE_NPS=" " GP_REDUCE_FILES="plain plaintall plainwide narrow2 plainnarrow1 tall" timeout 280 bash tests/gpu/check_reduce_gpu.sh v/gpipe > /tmp/reduce-gpu.log 2>&1
echo "check_reduce_gpu.sh rc=$?"; tail -8 /tmp/reduce-gpu.log
