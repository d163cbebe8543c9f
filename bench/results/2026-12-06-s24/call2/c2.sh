# device call 2 (session 24), same machine as call 1 (H200, vbios 96.00.A5.00.1A, the card on which
# the exact whole sum measured 0.925-0.931x CUB in call 1): does another launch shape of the whole
# sum do better on this card (the defaults were chosen on an H200 that measured 0.98), and what
# clocks the card runs during the sums; then the reduce CLI CPU == CUDA at 2 ranks (cut by call 1's limit).
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz; export LD_LIBRARY_PATH=$PWD/v/lib:$LD_LIBRARY_PATH
O=$OUT; t0=$SECONDS
nvidia-smi -q -d CLOCK,PERFORMANCE > $O/clocks-before.txt
nvidia-smi dmon -s pucm -d 1 > $O/dmon.txt 2>&1 & DM=$!
timeout 200 v/bench/bench_reduce_gpu --ops sum_all --reps 20 --variants 'bs=256,bps=8,unroll=8;bs=256,bps=4,unroll=8;bs=512,bps=4,unroll=4;bs=512,bps=2,unroll=8;bs=128,bps=16,unroll=8;bs=256,bps=8,unroll=4;bs=256,bps=6,unroll=8;bs=512,bps=3,unroll=8' > $O/variants.txt 2>&1
echo "variants rc=$? ($((SECONDS-t0)) s)" | tee $O/sum.txt
kill $DM
GP_REDUCE_NPS="2" GP_REDUCE_OPS="sum sumsq max argmax" GP_REDUCE_FILES="plain plaintall plainwide nan f32 wide" timeout 240 bash tests/gpu/check_reduce_gpu.sh v/gpipe > $O/reduce-gpu.log 2>&1
echo "reduce CPU==CUDA np2 rc=$? $(tail -1 $O/reduce-gpu.log) ($((SECONDS-t0)) s)" | tee -a $O/sum.txt
grep -E "Clocks Event|SM  |Memory  |Graphics" $O/clocks-before.txt | head -12 | tee -a $O/sum.txt
awk 'NR>2 && $1+0==0 {print}' $O/dmon.txt | sort -k9 -n | tail -3 | tee -a $O/sum.txt
head -2 $O/dmon.txt | tee -a $O/sum.txt
grep -E "^(cub_sum|plain_sum|sum_all|bs=|variant)|whole sum|verif" $O/variants.txt | tee -a $O/sum.txt
