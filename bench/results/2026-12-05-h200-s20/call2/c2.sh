# device call 2 (session 20): the clocks under load. nvidia-smi dmon (power, SM/memory clocks) and
# the clock-event reasons while bench_reduce_gpu (sums) and gp_gpu_bench (transposes) run
source .devdeps/activate.sh; [ -d v ] || tar xJf .gpucarry/v.tar.xz
O=$OUT
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER > $O/smi_before.txt 2>&1
nvidia-smi --query-gpu=name,serial,vbios_version,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,power.limit,ecc.mode.current --format=csv > $O/card.txt 2>&1
nvidia-smi dmon -s pc -d 1 > $O/dmon.txt 2>&1 & D=$!
timeout 60 v/brg_new --reps 20 --ops sum_all > $O/brg_all.txt 2>&1
nvidia-smi -q -d PERFORMANCE > $O/smi_mid.txt 2>&1
timeout 60 v/ggb --reps 20 --match default > $O/ggb.txt 2>&1
kill $D
cat $O/card.txt; grep -E '^(cub_sum|plain_sum|sum_all) ' $O/brg_all.txt | awk '{print $1, $2, $3, $5}'
grep -A7 '^summary' $O/ggb.txt | tail -6 | tr -s ' ' | cut -c1-90
sort -k4 -n $O/dmon.txt | awk '$1 !~ /#/' | tail -40 | awk '{print $2, $3, $4, $5, $6, $7, $8}' | sort | uniq -c | sort -rn | head -12
grep -A14 'Clocks Event Reasons\|Clocks Throttle' $O/smi_mid.txt | head -16
