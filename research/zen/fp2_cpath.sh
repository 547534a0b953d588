#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Zen: the shipped Fp2 mul and sqr against the template's C path at adx, in
# one process (research/zen/README.md, "The Fp2 kernels against the C path").
#   sh fp2_cpath.sh [FIELDS_TOML [FIELD...]]   (default: fields.toml, p503 p751;
#   the fields need extension = { degree = 2, ... })
# Generates the fields twice, as shipped and with the Zen tuning's Fp2 ops
# routed to the C path (a patched copy of the generator), renames the second
# copy's fg_ symbols to v_fg_, links both with a harness (fp2_cpath.py), runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tree.sh"
sed -i 's/^    fp2 = {op: zen_kernel("adx") for op in ("mul", "sqr") if "fp2_" + op in fa.zen_forms}$/    fp2 = {op: None for op in ("mul", "sqr")}/' \
    "$work/tree/gen/fg/targets/x86_64/mont.py"
grep -q 'fp2 = {op: None for op in ("mul", "sqr")}' "$work/tree/gen/fg/targets/x86_64/mont.py" || { echo "patch failed"; exit 1; }
"$root/gen/fieldgen" --config "$config" --out "$work/a" >/dev/null
"$work/tree/gen/fieldgen" --config "$config" --out "$work/b" >/dev/null
incs=
for f in $fields; do
    for v in a b; do
        cc -O3 -c -I "$root/runtime" -I "$work/$v/$f" "$work/$v/$f/fg_$f.c" -o "$work/$v-$f.o"
        cc -c "$work/$v/$f/fg_${f}_x86_64.S" -o "$work/$v-${f}_s.o"
    done
    incs="$incs -I $work/a/$f"
done
cc -O3 -c -I "$root/runtime" "$root/runtime/fg_cpu.c" -o "$work/a-cpu.o"
cp "$work/a-cpu.o" "$work/b-cpu.o"
ld -r "$work"/b-*.o -o "$work/b.o"
nm "$work/b.o" | awk '{print $NF}' | grep '^fg_' | sort -u | awk '{print $1" v_"$1}' > "$work/syms"
objcopy --redefine-syms="$work/syms" "$work/b.o"
python3 "$here/fp2_cpath.py" $fields > "$work/harness.c"
cc -O2 -I "$root/runtime" $incs "$work/harness.c" "$work"/a-*.o "$work/b.o" -o "$work/harness"
taskset -c 1 "$work/harness"
