#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Vendoring check: copy generated/p256 and runtime/ into a scratch folder and
# build them with one cc command, as a user's project would, then run a demo.
# The link treats warnings as errors: an object without its stack note (the
# .S built for a target it has no code for) makes the linker warn that the
# program's stack becomes executable. FIELDGEN_RUN: the cross build's
# emulator (CMAKE_CROSSCOMPILING_EMULATOR), empty natively.
set -eu
root=$1 cc=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir/fieldgen"
cp "$root"/generated/p256/* "$root"/runtime/* "$dir/fieldgen/"
cp "$root/tests/vendor_demo.c" "$dir/"
cd "$dir"
set -x
"$cc" -std=c99 -O2 -Wall -Wextra -Werror -Wl,--fatal-warnings -Ifieldgen -o demo vendor_demo.c fieldgen/*.c \
    $(ls fieldgen/*.S 2>/dev/null || true)
${FIELDGEN_RUN:-} ./demo
