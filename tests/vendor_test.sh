#!/bin/sh
# Vendoring check: copy generated/p256 and runtime/ into a scratch folder and
# build them with one cc command, as a user's project would, then run a demo.
set -eu
root=$1 cc=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir/fieldgen"
cp "$root"/generated/p256/* "$root"/runtime/* "$dir/fieldgen/"
cp "$root/tests/vendor_demo.c" "$dir/"
cd "$dir"
set -x
"$cc" -std=c99 -O2 -Wall -Wextra -Werror -Ifieldgen -o demo vendor_demo.c fieldgen/*.c $(ls fieldgen/*.S 2>/dev/null || true)
./demo
