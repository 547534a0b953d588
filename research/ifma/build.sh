#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Build and run the AVX-512 IFMA feasibility study (see README.md here).
# Needs a built fieldgen (default: ../../build) and GMP; gcc only (clang 14
# rejects the non-literal lane indices). usage: sh build.sh [BUILD_DIR]
set -e
cd "$(dirname "$0")"
B=${1:-../../build}
CF="-O2 -mavx512f -mavx512vl -mavx512ifma -mavx512vbmi -mavx512bw -mavx512dq"
LIB=$B/libfieldgen.a
O=${TMPDIR:-/tmp}/fieldgen-ifma
mkdir -p "$O"
gcc $CF -c ifma.c -o "$O/ifma.o"
gcc $CF -c fp2.c -o "$O/fp2.o"
gcc $CF -DFP2 test.c "$O/ifma.o" "$O/fp2.o" "$LIB" -lgmp -o "$O/test"
gcc $CF -DFP2 bench.c "$O/ifma.o" "$O/fp2.o" "$LIB" -o "$O/bench"
gcc $CF ab503.c "$O/ifma.o" "$O/fp2.o" "$LIB" -o "$O/fp2ab"
"$O/test" 100000
taskset -c 1 "$O/bench" 3000
taskset -c 1 "$O/fp2ab"
