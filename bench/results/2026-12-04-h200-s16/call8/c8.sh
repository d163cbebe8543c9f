# device call 8 (session 16): the shapes where the defaults fall (1 B 50000 and 40000 rows, 2 B 40000, 4 B 20000,
# 8 B 12288): do other tile orders (row-major, grouped panels) hold up there?
source .devdeps/activate.sh; O=$OUT; B=.gpucarry; t0=$SECONDS
t() { timeout 60 $B/gb --esize $1 --rows $2 --tune --match "$3" --reps 20 > $O/t_$1_$2.txt 2>&1 || echo "rc=$? $1 $2"; }
t 1 50000 'swizzle+cfgE+alt,pad+cfgE+alt,default+grp'
t 1 40000 'swizzle+cfgE+alt,default+grp'
t 1 46336 'swizzle+cfgE+alt,default+grp'
t 2 40000 'swizzle+cfgC,default+grp'
t 4 20000 'swizzle+cm,swizzle,default+grp'
t 8 12288 'swizzle+cm,swizzle,default+grp'
echo "$((SECONDS-t0)) s"
for f in $O/t_*.txt; do echo "== $f"; grep -E '^  [a-z]' $f | grep -v copy | sort -k4 -n -r | head -12; done
