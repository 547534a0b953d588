#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The Fp2 rows of README.md ("Fp2 mul and sqr"): the one-function kernels
# fg_F_fp2_{mul,sqr}_aarch64 against the C composition (templates/c_fp2.j2's
# C path calling the aarch64 Fp kernels), both under model.py.
#
#   nice -n 19 sh research/aarch64/fp2_rows.sh [REV] [FIELDS]
#
# REV (default a934120, the tree before the Fp2 kernels were wired) is the
# revision whose generated fg_F.c and fg_F.h give the composition: there
# fg_F_fp2_mul is the C path, each mul_wide/redc/mul a direct call to the
# aarch64 Fp kernel (FG_STATIC_ISA, as in a default AArch64 build). The
# kernels come from this tree's generated/F/fg_F_aarch64.S (whose Fp kernels
# are REV's). Both are linked into one object (ld -r) that model.py calls.
set -eu
REV=${1:-a934120}
FIELDS=${2:-p503 p751}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fg-fp2-rows.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for f in $FIELDS; do
    mkdir -p "$WORK/$f"
    git -C "$ROOT" show "$REV:generated/$f/fg_$f.c" > "$WORK/$f/fg_$f.c"
    git -C "$ROOT" show "$REV:generated/$f/fg_$f.h" > "$WORK/$f/fg_$f.h"
    inc="-I $ROOT/runtime -I $WORK/$f"
    clang --target=aarch64-linux-gnu -O3 -c "$WORK/$f/fg_$f.c" -o "$WORK/$f/c.o" $inc
    clang --target=aarch64-linux-gnu -O3 -c "$ROOT/runtime/fg_cpu.c" -o "$WORK/$f/cpu.o" $inc
    aarch64-linux-gnu-gcc -c "$ROOT/generated/$f/fg_${f}_aarch64.S" -o "$WORK/$f/s.o" $inc
    aarch64-linux-gnu-ld -r -o "$WORK/$f.o" "$WORK/$f/c.o" "$WORK/$f/cpu.o" "$WORK/$f/s.o"
done
CLV=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
# one model.py run per field: its rows share one harness, so one field's object
for f in $FIELDS; do
    set --
    for op in mul sqr; do
        set -- "$@" --row "fieldgen fp2_$op C composition (clang $CLV -O3, aarch64 Fp kernels)" \
            "$WORK/$f.o" "fg_${f}_fp2_$op" "fp2_$op" "$f"
        set -- "$@" --row "fieldgen fp2_$op asm (one function, fg_${f}_aarch64.S)" \
            "$WORK/$f.o" "fg_${f}_fp2_${op}_aarch64" "fp2_$op" "$f"
    done
    python3 "$ROOT/research/aarch64/model.py" --only-rows --jobs 2 "$@"
done
