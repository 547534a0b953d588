#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Control-flow enforcement (Intel CET) of the generated assembly.
#   cet_test.sh field CC DIR NAME RUNTIME OUT   compile DIR/NAME/fg_NAME.c (headers
#                                       of RUNTIME) and its .S with -fcf-protection,
#                                       link them relocatably
#   cet_test.sh library AR LIB OUT      the objects of the built LIB (a build whose
#                                       C flags ask for CET: CMake passes the option
#                                       on to the .S files)
# and check (1) the linked object keeps the x86 feature property IBT and SHSTK,
# which the linker ANDs over its inputs (one object without it turns CET off
# for the whole program), and (2) every global function of the assembly
# starts with ENDBR64 (the kernels are reached through pointers too).
# Exit 77 (CTest: Skipped) when the compiler has no -fcf-protection.
set -eu
mode=$1
if [ "$mode" = field ]; then
    cc=$2 dir=$3 name=$4 runtime=$5 out=$6
    rm -rf "$out" && mkdir -p "$out"
    echo 'int main(void) { return 0; }' > "$out/probe.c"
    "$cc" -fcf-protection -c "$out/probe.c" -o "$out/probe.o" 2>/dev/null || exit 77
    "$cc" -fcf-protection -O1 -I"$dir/$name" -I"$runtime" -c "$dir/$name/fg_$name.c" -o "$out/c.o"
    "$cc" -fcf-protection -c "$dir/$name/fg_${name}_x86_64.S" -o "$out/s.o"
    asm="$out/s.o"
    ld -r "$out/c.o" "$out/s.o" -o "$out/all.o"
else
    ar=$2 lib=$3 out=$4
    rm -rf "$out" && mkdir -p "$out/x"
    (cd "$out/x" && "$ar" x "$lib")
    asm=$(ls "$out"/x/*_x86_64.S.o 2>/dev/null || true)
    [ -n "$asm" ] || { echo "no assembly objects in $lib"; exit 1; }
    ld -r "$out"/x/*.o -o "$out/all.o"
fi
if ! readelf -n "$out/all.o" | grep -q "x86 feature: IBT, SHSTK"; then
    echo "FAIL: the linked objects lost the IBT/SHSTK property; objects without it:"
    for o in "$out"/*.o "$out"/x/*.o; do
        [ -f "$o" ] || continue
        readelf -n "$o" | grep -q "x86 feature: IBT, SHSTK" || echo "  $o"
    done
    exit 1
fi
bad=0 funcs=0
for o in $asm; do
    # the first instruction after each global function's label
    for f in $(nm -g --defined-only "$o" | awk '$2 == "T" { print $3 }'); do
        funcs=$((funcs + 1))
        first=$(objdump -d --no-show-raw-insn "$o" --disassemble="$f" | awk '/^[0-9a-f]+ </ { getline; print $2; exit }')
        if [ "$first" != endbr64 ]; then
            echo "FAIL: $f starts with '$first', not endbr64"
            bad=1
        fi
    done
done
[ "$funcs" -gt 0 ] || { echo "FAIL: no global function found"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "IBT and SHSTK kept; $funcs functions start with endbr64"
