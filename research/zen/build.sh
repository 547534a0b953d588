#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Zen: every adx kernel with a Zen form against that form and the bmi2 kernel,
# in one process (research/zen/README.md).
#   sh build.sh [FIELDS_TOML [FIELD...]]   (default: fields.toml, p503 p751)
# Generates the fields with the current generator into a temporary directory,
# assembles their kernels, writes the harness (kernels.py), runs it on cpu 1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
config=${1:-$root/fields.toml}
[ $# -gt 0 ] && shift
fields=${*:-p503 p751}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/gen/fieldgen" --config "$config" --out "$work/out" >/dev/null
objs=
for f in $fields; do
    cc -c "$work/out/$f/fg_${f}_x86_64.S" -o "$work/$f.o"
    objs="$objs $work/$f.o"
done
if grep -qw avx512ifma /proc/cpuinfo; then   # the IFMA Fp mul beside them (research/zen5)
    /usr/bin/python3 "$root/research/zen5/ifma_mul.py" "$config" "$work/out" $fields
    for f in $fields; do
        [ -f "$work/out/${f}_mul_ifma.S" ] || continue
        cc -c "$work/out/${f}_mul_ifma.S" -o "$work/${f}_ifma.o"
        objs="$objs $work/${f}_ifma.o"
    done
fi
python3 "$here/kernels.py" "$work/out" $fields > "$work/harness.c"
cc -O2 "$work/harness.c" $objs -o "$work/harness"
taskset -c 1 "$work/harness"
