#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Mach-O (macOS x86-64) build check, run on Linux: cross-compile each field's
# generated C and assembly for x86_64-apple-macos with clang, link them into a
# dylib with ld64.lld refusing any undefined symbol, and check that the dylib
# exports every kernel the dispatcher calls (_fg_NAME_OP_LEVEL, with Mach-O's
# leading underscore). What this proves: the .S files assemble as Mach-O, their
# constant tables and relocations link, and the C dispatchers reach the
# assembly (FG_HAVE_X86_64_ASM is on for __APPLE__). What it cannot: run them
# (no macOS here); the code is the same SysV x86-64 code the other tests run.
# The runtime (fg_cpu.c, which needs the macOS SDK's libc headers) is replaced
# by a stub: the dispatch words, and the memcpy/memset the compiler may call
# for struct copies (libSystem's, on a Mac).
#
# usage: macho_test.sh CLANG LD64_LLD LLVM_NM RUNTIME_DIR WORK_DIR FIELD_DIR...
# Exit 77 (CTest: skipped) when a tool is missing.
set -eu
clang=$1 ld64=$2 nm=$3 runtime=$4 work=$5
shift 5
for tool in "$clang" "$ld64" "$nm"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: $tool not found (apt-get install clang lld llvm)"
        exit 77
    fi
done
target="-target x86_64-apple-macos10.15"
rm -rf "$work" && mkdir -p "$work"
cat > "$work/stub.c" <<'EOF'
typedef unsigned long size_t;
int fg_cpu_isa;
unsigned fg_cpu_sel;
void *memcpy(void *d, const void *s, size_t n)
{ unsigned char *o = d; const unsigned char *i = s; while (n--) *o++ = *i++; return d; }
void *memset(void *d, int c, size_t n)
{ unsigned char *o = d; while (n--) *o++ = (unsigned char)c; return d; }
EOF
"$clang" $target -ffreestanding -fno-builtin -c "$work/stub.c" -o "$work/stub.o"
status=0
nfields=0
for dir in "$@"; do
    for h in "$dir"/*/fg_*.h; do
        fdir=$(dirname "$h")
        f=$(basename "$fdir")
        [ -f "$fdir/fg_${f}_x86_64.S" ] || continue
        nfields=$((nfields + 1))
        out="$work/$f"
        mkdir -p "$out"
        "$clang" $target -ffreestanding -fno-stack-protector -O2 -std=c99 -Werror \
            -I"$runtime" -I"$fdir" -c "$fdir/fg_$f.c" -o "$out/c.o"
        "$clang" $target -c "$fdir/fg_${f}_x86_64.S" -o "$out/s.o"
        "$ld64" -arch x86_64 -platform_version macos 10.15 10.15 -dylib \
            "$out/c.o" "$out/s.o" "$work/stub.o" -o "$out/lib.dylib"
        # every kernel the C references must be an exported text symbol of the dylib
        need=$("$nm" -u "$out/c.o" | awk '{print $NF}' | grep "^_fg_${f}_" | sort -u)
        have=$("$nm" -g --defined-only "$out/lib.dylib" | awk '$2 == "T" {print $3}' | sort -u)
        if [ -z "$need" ]; then
            echo "FAIL [$f]: the Mach-O C objects call no assembly kernel (dispatch compiled C-only?)"
            status=1
            continue
        fi
        missing=$(printf '%s\n' "$need" | while read -r s; do
            printf '%s\n' "$have" | grep -qx "$s" || echo "$s"; done)
        if [ -n "$missing" ]; then
            echo "FAIL [$f]: not exported by the Mach-O dylib: $missing"
            status=1
            continue
        fi
        # the assembly object is Mach-O and defines nothing unprefixed
        if "$nm" "$out/s.o" | awk '$2 == "T" && $3 !~ /^_fg_/' | grep -q .; then
            echo "FAIL [$f]: assembly defines text symbols without the Mach-O underscore"
            status=1
            continue
        fi
        echo "ok [$f]: $(printf '%s\n' "$need" | wc -l) kernels linked from Mach-O objects"
    done
done
if [ "$nfields" -eq 0 ]; then
    echo "FAIL: no field with assembly found in: $*"
    exit 1
fi
exit $status
