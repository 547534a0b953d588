#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Shared-library check: the fields' generated C and assembly and runtime/,
# vendored into one shared object the way a user's library builds them
# (-fPIC -shared), keep the dispatcher rule. A call from the library to one
# of its own exported functions goes through a PLT stub, an indirect jump
# through the GOT, unless the symbol binds locally; fieldgen's functions are
# protected (runtime/fg_cpu.h, FG_VISIBILITY), so:
#   1. tests/dispatch_shape.py on the linked object: no fg_*@plt stub, no
#      indirect branch in the library's own code, each dispatcher's hot path
#      one conditional branch and a direct tail jump to its kernel;
#   2. the vendoring demo (p256), linked against the object, runs;
#   3. built with -DFG_VISIBILITY=hidden from the shipped fields (the
#      generated/ folders among FIELD_DIR: the visibility comes from
#      runtime/fg_cpu.h, the same for every field, and this halves the
#      test's compile time), the object exports no fieldgen function (only
#      the fg_NAME_P tables, data, which stay default), and 1. still holds.
#
# usage: shared_test.sh ROOT CC WORK_DIR PYTHON OBJDUMP FIELD_DIR...
#   each FIELD_DIR a generated field (generated/NAME, or an extra prime's
#   folder in the build tree); generated/p256 among them, for the demo
set -eu
root=$1 cc=$2 dir=$3 python=$4 objdump=$5
shift 5
rm -rf "$dir" && mkdir -p "$dir/fieldgen"
fields= shipped=
mkdir -p "$dir/shipped"
for d in "$@"; do
    cp "$d"/fg_* "$dir/fieldgen/"
    fields="$fields ${d##*/}"
    case "$d" in
        "$root"/generated/*) cp "$d"/fg_* "$dir/shipped/"; shipped="$shipped ${d##*/}" ;;
    esac
done
if [ -z "$shipped" ]; then
    echo "FAIL: no FIELD_DIR under $root/generated (the demo and the hidden build need them)"
    exit 1
fi
set -- $fields
cp "$root"/runtime/* "$dir/fieldgen/"
cp "$root"/runtime/* "$dir/shipped/"
cd "$dir"
# build_so OUT SRC_DIR [FLAG...]: the vendored sources in SRC_DIR as one shared object
build_so() {
    out=$1 src=$2
    shift 2
    "$cc" -std=c99 -O2 -Wall -Wextra -Werror -fPIC -shared -Wl,--fatal-warnings -I"$src" "$@" \
        -o "$out" "$src"/*.c "$src"/*.S
}
set -x
build_so libfieldgen.so fieldgen
"$python" -B "$root/tests/dispatch_shape.py" --objdump "$objdump" --headers fieldgen libfieldgen.so "$@"
"$cc" -std=c99 -O2 -Wall -Wextra -Werror -Ifieldgen -o demo "$root/tests/vendor_demo.c" \
    -L. -lfieldgen -Wl,-rpath,"$PWD"
./demo
set -- $shipped
build_so libfieldgen-hidden.so shipped -DFG_VISIBILITY=hidden
"$python" -B "$root/tests/dispatch_shape.py" --objdump "$objdump" --headers shipped libfieldgen-hidden.so "$@"
set +x
# objdump -T: the dynamic symbols; a defined function is in .text
exported=$("$objdump" -T libfieldgen-hidden.so | awk '$NF ~ /^fg_/ && / \.text/ { print $NF }')
if [ -n "$exported" ]; then
    echo "FAIL: built with -DFG_VISIBILITY=hidden, the library still exports:" $exported
    exit 1
fi
tables=$("$objdump" -T libfieldgen-hidden.so | awk '$NF ~ /^fg_.*_P$/' | wc -l)
if [ "$tables" -ne $# ]; then
    echo "FAIL: built with -DFG_VISIBILITY=hidden, $tables of the $# fields' fg_NAME_P tables are exported"
    exit 1
fi
echo "shared library: dispatcher rule kept, demo ok, FG_VISIBILITY=hidden exports only the $# tables"
