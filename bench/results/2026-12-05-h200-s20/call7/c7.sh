# device call 7 (session 20): the H200 of call 6 — clocks and clock-event reasons under the sums
source .devdeps/activate.sh; [ -d w ] || tar xJf .gpucarry/v.tar.xz
O=$OUT
nvidia-smi --query-gpu=name,serial,vbios_version,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,power.limit,ecc.mode.current --format=csv > $O/card.txt 2>&1
nvidia-smi dmon -s pc -d 1 > $O/dmon.txt 2>&1 & D=$!
timeout 60 w/brg_tuned --reps 20 --ops sum_all > $O/brg_all.txt 2>&1
nvidia-smi -q -d PERFORMANCE,CLOCK > $O/smi_mid.txt 2>&1
kill $D
cat $O/card.txt; grep -E '^(cub_sum|plain_sum|sum_all) ' $O/brg_all.txt | awk '{print $1, $2, $3, $5}'
awk '$1 !~ /#/ {print $2, $5, $6}' $O/dmon.txt | sort | uniq -c | sort -rn | head -8
grep -B2 -A12 'Clocks Event Reasons$' $O/smi_mid.txt | head -16; grep -A4 '^    Clocks$' $O/smi_mid.txt
