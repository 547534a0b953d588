#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Integration checks (label integration): fieldgen used as a user's project
# uses it (docs/integration.md).
#   vendor ROOT CC WORK              examples/vendor's README: the copy and its one cc line
#   presets ROOT WORK                every preset of CMakePresets.json configures
#   subdir ROOT CC WORK              examples/hello through add_subdirectory(ROOT)
#                                    (FIELDGEN_FIELDS=p25519: the parent needs none)
#   package BUILD ROOT CC WORK       `cmake --install BUILD`, then examples/hello
#                                    through find_package(fieldgen 1.0), and a
#                                    program on the shipped fields through
#                                    pkg-config --cflags --libs fieldgen; the
#                                    consumer compiles and links with BUILD's
#                                    C flags (FIELDGEN_IT_CFLAGS): a library
#                                    built with -fsanitize=... needs them at
#                                    the program's link, as any user's would
# hello's output is checked: 1/7 mod p exactly, sqrt(2)'s square is 2 (by
# Python), the bytes round trip, the final "ok".
set -eu
mode=$1
shift
check_hello() { # the hello program's output file
    out=$1
    cat "$out"
    grep -qx 'inv(7)  = 0xdb6db6db6db6db6db6db6db6db6db6db6db6db6db6db6db6db6db6da9249214d' "$out" ||
        { echo "FAIL: inv(7) is not 1/7 mod 2^256 - 2^32 - 977"; exit 1; }
    grep -qx 'bytes   = 0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20' "$out" ||
        { echo "FAIL: the bytes round trip"; exit 1; }
    sq=$(sed -n 's/^sqrt(2) = 0x//p' "$out")
    [ -n "$sq" ] && ${FIELDGEN_PYTHON:-python3} -c "import sys; p = 2**256 - 2**32 - 977; sys.exit(pow(int('$sq', 16), 2, p) != 2)" ||
        { echo "FAIL: sqrt(2) squared is not 2"; exit 1; }
    grep -q '^hello (k256, level [a-z0-9_]*): ok$' "$out" || { echo "FAIL: hello did not report ok"; exit 1; }
}
case "$mode" in
subdir)
    root=$1 cc=$2 dir=$3
    rm -rf "$dir" && mkdir -p "$dir"
    cp -r "$root/examples/hello" "$dir/hello"
    cmake -S "$dir/hello" -B "$dir/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
        -DFIELDGEN_SOURCE_DIR="$root" -DFIELDGEN_FIELDS=p25519 >"$dir/configure.log"
    # a subproject builds no tests, benchmark, protocols or extra primes
    grep -q 'tests            OFF' "$dir/configure.log" || { echo "FAIL: the subproject builds its tests"; exit 1; }
    grep -q 'benchmark        OFF' "$dir/configure.log" || { echo "FAIL: the subproject builds the benchmark"; exit 1; }
    cmake --build "$dir/build" -j2 >/dev/null
    ${FIELDGEN_RUN:-} "$dir/build/hello" >"$dir/out.txt"
    check_hello "$dir/out.txt"
    # a second build does nothing (the generator's rule is up to date)
    cmake --build "$dir/build" -j2 | grep 'fieldgen: generating' && { echo "FAIL: regenerated with nothing changed"; exit 1; }
    echo "add_subdirectory: ok"
    # two fieldgen_add_library targets in one program (one NO_ASM, one with
    # FIELDS picking one field of two): they link together, the runtime once
    mkdir -p "$dir/two"
    cat >"$dir/two/a.toml" <<'TOML'
# SPDX-License-Identifier: MIT OR Apache-2.0
[k256]
modulus = "2^256 - 2^32 - 977"
byte_order = "big"
TOML
    cat >"$dir/two/b.toml" <<'TOML'
# SPDX-License-Identifier: MIT OR Apache-2.0
[m255]
modulus = "2^255 - 19"
byte_order = "little"
[unused]
modulus = "2^127 - 1"
byte_order = "little"
TOML
    cat >"$dir/two/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(two C)
add_subdirectory($root fieldgen)
fieldgen_add_library(fa CONFIG a.toml)
fieldgen_add_library(fb CONFIG b.toml FIELDS m255 NO_ASM)
add_executable(two two.c)
target_link_libraries(two PRIVATE fa fb)
CMAKE
    cat >"$dir/two/two.c" <<'C'
#include <stdio.h>
#include "fg_k256.h"
#include "fg_m255.h"
int main(void)
{
    fg_k256 a, ai, one_a;
    fg_m255 b, bi, one_b;
    fg_k256_from_u64(&a, 3);
    fg_m255_from_u64(&b, 3);
    fg_k256_one(&one_a);
    fg_m255_one(&one_b);
    int ok = fg_k256_inv(&ai, &a) & fg_m255_inv(&bi, &b);
    fg_k256_mul(&ai, &ai, &a);
    fg_m255_mul(&bi, &bi, &b);
    ok &= fg_k256_eq(&ai, &one_a) & fg_m255_eq(&bi, &one_b);
    printf("two libraries: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
C
    cmake -S "$dir/two" -B "$dir/two/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
        -DFIELDGEN_FIELDS=p25519 >/dev/null
    cmake --build "$dir/two/build" -j2 >/dev/null
    ${FIELDGEN_RUN:-} "$dir/two/build/two"
    n=$(find "$dir/two/build" -name 'libfieldgen-runtime.a' | wc -l)
    [ "$n" -eq 1 ] || { echo "FAIL: $n runtime libraries built"; exit 1; }
    [ ! -e "$dir/two/build/fieldgen/fb/unused" ] || { echo "FAIL: FIELDS m255 generated 'unused' too"; exit 1; }
    if find "$dir/two/build/CMakeFiles/fb.dir" -name '*.S.o' | grep -q .; then
        echo "FAIL: NO_ASM built assembly"; exit 1
    fi
    # the build-time rule: a config edit regenerates (here: a new field's file appears)
    printf '[q127]\nmodulus = "2^127 - 1"\nbyte_order = "little"\n' >>"$dir/two/a.toml"
    cmake --build "$dir/two/build" -j2 >/dev/null
    [ -f "$dir/two/build/fieldgen/fa/q127/fg_q127.c" ] || { echo "FAIL: the config edit did not regenerate"; exit 1; }
    nm "$dir/two/build/libfa.a" | grep -q ' T fg_q127_mul$' || { echo "FAIL: the new field is not in the library"; exit 1; }
    echo "two libraries, FIELDS, NO_ASM, regeneration: ok"
    # no usable Python: a clear error naming the packages
    if cmake -S "$dir/hello" -B "$dir/nopy" -DCMAKE_C_COMPILER="$cc" -DFIELDGEN_SOURCE_DIR="$root" \
        -DFIELDGEN_FIELDS=p25519 -DFIELDGEN_PYTHON=/bin/false >"$dir/nopy.log" 2>&1; then
        echo "FAIL: configured without a usable Python"; exit 1
    fi
    tr -s ' \n' '  ' <"$dir/nopy.log" | grep -q 'apt-get install python3-jinja2 python3-peachpy' ||
        { cat "$dir/nopy.log"; echo "FAIL: the error does not name the packages"; exit 1; }
    echo "no Python: clear error"
    ;;
package)
    build=$1 root=$2 cc=$3 dir=$4
    cflags=${FIELDGEN_IT_CFLAGS:-}
    rm -rf "$dir" && mkdir -p "$dir"
    cmake --install "$build" --prefix "$dir/prefix" >/dev/null
    cp -r "$root/examples/hello" "$dir/hello"
    cmake -S "$dir/hello" -B "$dir/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS="$cflags" -DCMAKE_PREFIX_PATH="$dir/prefix" >/dev/null
    cmake --build "$dir/build" -j2 >/dev/null
    ${FIELDGEN_RUN:-} "$dir/build/hello" >"$dir/out.txt"
    check_hello "$dir/out.txt"
    # the generator it ran is the installed one, not the checkout's
    grep -rq "$dir/prefix/share/fieldgen/gen/fieldgen" "$dir/build/CMakeFiles" "$dir/build/Makefile" 2>/dev/null ||
        grep -rq "$dir/prefix/share/fieldgen/gen/fieldgen" "$dir/build" ||
        { echo "FAIL: not generated by the installed generator"; exit 1; }
    echo "find_package(fieldgen 1.0): ok"
    # pkg-config: the shipped p256 field, one cc line
    pc=$(find "$dir/prefix" -name fieldgen.pc)
    flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs fieldgen)
    set -x
    "$cc" $cflags -std=c99 -O2 -o "$dir/pc_demo" "$root/tests/vendor_demo.c" $flags
    set +x
    ${FIELDGEN_RUN:-} "$dir/pc_demo"
    echo "pkg-config: ok"
    ;;
vendor)
    # examples/vendor: the README's copy, then its one cc line as written
    # (with this build's compiler), and the program's checks
    root=$1 cc=$2 dir=$3
    rm -rf "$dir" && mkdir -p "$dir/fieldgen"
    cp "$root/examples/vendor/main.c" "$dir/"
    cp "$root"/generated/p25519/fg_p25519* "$root"/runtime/fg_cpu* "$dir/fieldgen/"
    line=$(sed -n 's/^cc -std=/-std=/p' "$root/examples/vendor/README.md")
    [ -n "$line" ] || { echo "FAIL: no cc line in examples/vendor/README.md"; exit 1; }
    cd "$dir"
    set -x
    "$cc" $line
    set +x
    ${FIELDGEN_RUN:-} ./vendor >out.txt
    cat out.txt
    grep -qx 'inv(9)   = 12c7711cc7711cc7711cc7711cc7711cc7711cc7711cc7711cc7711cc7711c47' out.txt ||
        { echo "FAIL: inv(9) is not 1/9 mod 2^255 - 19"; exit 1; }
    grep -q '^vendored p25519 (level [a-z0-9_]*): ok$' out.txt || { echo "FAIL: the example did not report ok"; exit 1; }
    echo "vendor: ok"
    ;;
presets)
    # each configure preset of CMakePresets.json configures (into WORK, not
    # the preset's build/ folder) with the cache values it promises
    root=$1 dir=$2
    rm -rf "$dir" && mkdir -p "$dir"
    expect() { # preset VAR=VALUE...
        p=$1
        shift
        cmake -S "$root" --preset "$p" -B "$dir/$p" >"$dir/$p.log" 2>&1 || { cat "$dir/$p.log"; echo "FAIL: preset $p"; exit 1; }
        for kv in "$@"; do
            grep -q "^${kv%%=*}:[A-Z]*=${kv#*=}\$" "$dir/$p/CMakeCache.txt" || { echo "FAIL: preset $p: not $kv"; exit 1; }
        done
        echo "preset $p: ok"
    }
    expect release CMAKE_BUILD_TYPE=Release FIELDGEN_TESTS=OFF FIELDGEN_ASM=ON
    expect dev FIELDGEN_TESTS=ON FIELDGEN_TEST_COUNT=2000
    expect asan FIELDGEN_TESTS=ON CMAKE_BUILD_TYPE=Debug
    expect no-asm FIELDGEN_ASM=OFF FIELDGEN_TESTS=ON
    grep -q -- '-fsanitize=address' "$dir/asan/CMakeCache.txt" || { echo "FAIL: preset asan has no -fsanitize=address"; exit 1; }
    ;;
*)
    echo "usage: integration_test.sh subdir|package ..." >&2
    exit 2
    ;;
esac
