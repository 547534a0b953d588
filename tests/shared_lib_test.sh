#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# BUILD_SHARED_LIBS=ON (label integration): fieldgen configured as a shared
# library (p256 alone, no tests), built and installed; then
#   1. every dynamic symbol libfieldgen.so defines is a fg_* name that the
#      installed headers declare (the functions, the fg_NAME_P tables): no
#      helper of the generated C (pow_sqrt, sg_inverse, ...), no local
#      constant of the assembly (.Lfg_NAME_mont_*), not the runtime's hidden
#      selector words fg_cpu_isa and fg_cpu_sel;
#   2. the public API is there: fg_isa_best, fg_isa_active, fg_p256_mul,
#      fg_p256_inv, fg_p256_sqrt, fg_p256_from_bytes and an adx kernel;
#   3. tests/vendor_demo.c built with pkg-config --cflags --libs fieldgen
#      against the installed shared library runs.
# usage: shared_lib_test.sh ROOT CC WORK_DIR
set -eu
root=$1 cc=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
cmake -S "$root" -B "$dir/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DFIELDGEN_TESTS=OFF -DFIELDGEN_BENCH=OFF -DFIELDGEN_PROTOCOLS=OFF -DFIELDGEN_FIELDS=p256 >/dev/null
cmake --build "$dir/build" -j2 >/dev/null
cmake --install "$dir/build" --prefix "$dir/prefix" >/dev/null
so=$(find "$dir/prefix" -name 'libfieldgen.so.*' -type f | head -1)
[ -n "$so" ] || { echo "FAIL: no libfieldgen.so installed"; exit 1; }
nm -D --defined-only "$so" | awk '{ print $3 }' | sort -u >"$dir/exported"
grep -ho '\bfg_[A-Za-z0-9_]*' "$dir"/prefix/include/fieldgen/*.h | sort -u >"$dir/declared"
bad=$(comm -23 "$dir/exported" "$dir/declared")
if [ -n "$bad" ]; then
    echo "FAIL: libfieldgen.so exports symbols its headers do not declare:" $bad
    exit 1
fi
for s in fg_cpu_isa fg_cpu_sel; do
    if grep -qx "$s" "$dir/exported"; then echo "FAIL: the hidden $s is exported"; exit 1; fi
done
for s in fg_isa_best fg_isa_active fg_p256_mul fg_p256_inv fg_p256_sqrt fg_p256_from_bytes fg_p256_mul_adx fg_p256_P; do
    grep -qx "$s" "$dir/exported" || { echo "FAIL: $s is not exported"; exit 1; }
done
echo "libfieldgen.so: $(wc -l <"$dir/exported") symbols exported, each a declared fg_* name"
pc=$(find "$dir/prefix" -name fieldgen.pc)
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs fieldgen)
"$cc" -std=c99 -O2 -o "$dir/demo" "$root/tests/vendor_demo.c" $flags
LD_LIBRARY_PATH=$(dirname "$so") "$dir/demo"
# the demo resolved fieldgen from the shared object
LD_LIBRARY_PATH=$(dirname "$so") ldd "$dir/demo" | grep -q 'libfieldgen\.so' ||
    { echo "FAIL: the demo is not linked to libfieldgen.so"; exit 1; }
echo "shared library: ok"
