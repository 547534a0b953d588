#!/bin/sh
# Zen 3 experiment: the fused Montgomery mul at adx with ADCX/ADOX product rows
# (no split ADD/ADC passes) against the shipped kernels, in one process.
#   sh build.sh [BUILD_DIR]   (a built fieldgen, default ../../build)
# Generates p503 and p751 with the patched generator into a temporary copy,
# prefixes the variant object's symbols with v_, links both, runs the harness.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && git ls-files | tar -cf - -T -) | tar -xf - -C "$work"
(cd "$work" && patch -p1 -s < "$here/adx_product_rows.patch")
printf '[p503]\nmodulus = "2^250 * 3^159 - 1"\nbyte_order = "little"\n\n[p751]\nmodulus = "2^372 * 3^239 - 1"\nbyte_order = "little"\n' > "$work/v.toml"
(cd "$work" && gen/fieldgen --config v.toml --out vout >/dev/null)
for f in p503 p751; do
    cc -c "$work/vout/$f/fg_${f}_x86_64.S" -o "$work/v_$f.o"
    objcopy --prefix-symbols=v_ "$work/v_$f.o"
done
cc -O2 -I "$root/runtime" -I "$root/generated/p503" -I "$root/generated/p751" "$here/product_rows.c" \
    "$work/v_p503.o" "$work/v_p751.o" "$build/libfieldgen.a" -o "$work/product_rows"
taskset -c 1 "$work/product_rows"
