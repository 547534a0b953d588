#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# research/radix51/run.sh: every figure of research/radix51/README.md.
#   sh research/radix51/run.sh [OUTDIR]     (from the repository root; default OUTDIR /tmp/r51)
# 1. the correctness test (x86-64 gcc and clang; AArch64 gcc and clang objects under qemu);
# 2. the x86-64 timing, gcc and clang, without and with -march=native, three
#    processes each, alternating, pinned to CPU 1;
# 3. the AArch64 model: research/aarch64/model.py with this study's rows.
# Needs gcc, clang, libgmp-dev, gcc-aarch64-linux-gnu, libgmp-dev:arm64,
# qemu-user, llvm (llvm-mca, llvm-objdump).
set -eu
OUT=${1:-/tmp/r51}
mkdir -p "$OUT"
N="nice -n 19"
G=generated/p25519
SRC="research/radix51/r51.c $G/fg_p25519.c runtime/fg_cpu.c"
INC="-I$G -Iruntime"

for CC in gcc clang; do
    $N $CC -O2 -Wall $INC research/radix51/test_r51.c $SRC $G/fg_p25519_x86_64.S -lgmp -o "$OUT/test_$CC"
    $N "$OUT/test_$CC" 200000
done
$N aarch64-linux-gnu-gcc -O3 -static $INC research/radix51/test_r51.c $SRC $G/fg_p25519_aarch64.S -lgmp -o "$OUT/test_a64"
$N qemu-aarch64 "$OUT/test_a64" 100000
$N clang --target=aarch64-linux-gnu -O3 -c research/radix51/r51.c -o "$OUT/r51_clang_a64.o"
$N aarch64-linux-gnu-gcc -O3 -static $INC research/radix51/test_r51.c "$OUT/r51_clang_a64.o" \
    $G/fg_p25519.c runtime/fg_cpu.c $G/fg_p25519_aarch64.S -lgmp -o "$OUT/test_a64_clang"
$N qemu-aarch64 "$OUT/test_a64_clang" 100000

for CC in gcc clang; do
    $N $CC -O3 $INC research/radix51/bench_r51.c $SRC $G/fg_p25519_x86_64.S -o "$OUT/bench_$CC"
    $N $CC -O3 -march=native $INC research/radix51/bench_r51.c $SRC $G/fg_p25519_x86_64.S -o "$OUT/bench_${CC}_native"
done
: > "$OUT/x86.txt"
for rep in 1 2 3; do
    for b in gcc clang gcc_native clang_native; do
        echo "== $b rep $rep ($(date -u +%H:%M:%S))" >> "$OUT/x86.txt"
        $N taskset -c 1 "$OUT/bench_$b" 2001 >> "$OUT/x86.txt"
    done
done

# AArch64: both compilers' r51.c in one harness, so their symbols are renamed
A="$OUT/a64"
mkdir -p "$A"
$N clang --target=aarch64-linux-gnu -O3 -c research/radix51/r51.c -o "$A/r51_clang.o"
$N aarch64-linux-gnu-gcc -O3 -c research/radix51/r51.c -o "$A/r51_gcc.o"
for c in clang gcc; do
    t=$(echo $c | cut -c1)
    args=""
    for s in mul sqr mul_b sqr_b mul_p sqr_p mul5 sqr5 to51 from51; do
        args="$args --redefine-sym r51_$s=r51${t}_$s"
    done
    aarch64-linux-gnu-objcopy $args "$A/r51_$c.o" "$A/r51$t.o"
done
# fieldgen's lazy C kernels (clang), one relocatable object with its dispatch targets
$N clang --target=aarch64-linux-gnu -O3 $INC -c $G/fg_p25519.c -o "$A/fgc_main.o"
$N clang --target=aarch64-linux-gnu -O3 -Iruntime -c runtime/fg_cpu.c -o "$A/fgc_cpu.o"
$N aarch64-linux-gnu-gcc $INC -c $G/fg_p25519_aarch64.S -o "$A/fg_asm.o"
aarch64-linux-gnu-ld -r "$A/fgc_main.o" "$A/fgc_cpu.o" "$A/fg_asm.o" -o "$A/fgc.o"
set --
for c in "c clang 14" "g gcc 12"; do
    t=${c%% *}
    cname=${c#* }
    set -- "$@" \
        --row "r51_mul 5x51 converting ($cname -O3)" "$A/r51$t.o" r51${t}_mul mul p25519 \
        --row "r51_mul_b 5x51 converting, exit b ($cname -O3)" "$A/r51$t.o" r51${t}_mul_b mul p25519 \
        --row "r51_sqr 5x51 converting ($cname -O3)" "$A/r51$t.o" r51${t}_sqr sqr p25519 \
        --row "r51_sqr_b 5x51 converting, exit b ($cname -O3)" "$A/r51$t.o" r51${t}_sqr_b sqr p25519 \
        --row "r51_mul_p 5x51 converting, exit p ($cname -O3)" "$A/r51$t.o" r51${t}_mul_p mul p25519 \
        --row "r51_sqr_p 5x51 converting, exit p ($cname -O3)" "$A/r51$t.o" r51${t}_sqr_p sqr p25519 \
        --row "r51_mul5 5x51 no conversion ($cname -O3)" "$A/r51$t.o" r51${t}_mul5 static p25519 \
        --row "r51_sqr5 5x51 no conversion ($cname -O3)" "$A/r51$t.o" r51${t}_sqr5 static p25519
done
set -- "$@" \
    --row "fieldgen mul_lazy C (clang 14 -O3)" "$A/fgc.o" fg_p25519_mul_lazy_c mul p25519 \
    --row "fieldgen sqr_lazy C (clang 14 -O3)" "$A/fgc.o" fg_p25519_sqr_lazy_c sqr p25519
$N python3 research/aarch64/model.py --fields p25519 --jobs 2 "$@" > "$OUT/aarch64.md"
echo "wrote $OUT/x86.txt and $OUT/aarch64.md"
