#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Zen: the Zen form of the adx mul and mul_wide as shipped (schoolbook rows up
# to 12 limbs) against the same with one Karatsuba level from N limbs, in one
# process (research/zen/README.md, "One Karatsuba level in the Zen form").
#   sh kara.sh N [FIELDS_TOML [FIELD...]]   (default: fields.toml, p503 p751)
# Generates the fields twice, as shipped and with x86_64.mont._kara's adx
# threshold lowered from 13 to N (a patched copy of the generator), renames the
# second copy's fg_ symbols to v_fg_, links both with the kernels.py harness.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kara=$1
shift
. "$here/tree.sh"
sed -i "s/\"adx\": 13}\[level\]/\"adx\": $kara}[level]/" "$work/tree/gen/fg/targets/x86_64/mont.py"
[ "$(grep -c "\"adx\": $kara}\[level\]" "$work/tree/gen/fg/targets/x86_64/mont.py")" = 2 ] || { echo "patch failed"; exit 1; }
"$root/gen/fieldgen" --config "$config" --out "$work/a" >/dev/null
"$work/tree/gen/fieldgen" --config "$config" --out "$work/b" >/dev/null
objs=
for f in $fields; do
    cc -c "$work/a/$f/fg_${f}_x86_64.S" -o "$work/a-$f.o"
    cc -c "$work/b/$f/fg_${f}_x86_64.S" -o "$work/b-$f.o"
    objcopy --prefix-symbols=v_ "$work/b-$f.o"
    objs="$objs $work/a-$f.o $work/b-$f.o"
done
python3 "$here/kernels.py" --vs "$work/b" "$work/a" $fields > "$work/harness.c"
cc -O2 "$work/harness.c" $objs -o "$work/harness"
taskset -c 1 "$work/harness"
