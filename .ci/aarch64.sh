#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The AArch64 build under qemu-user: Debian's cross compiler, arm64 GMP and
# OpenSSL, the aarch64 assembly on (FIELDGEN_AARCH64_ASM, the default there),
# the shipped fields and eight of the extra primes (.ci/extra_subset.sh: 1, 2,
# 3, 9 and 16 limbs, both forms; every limb count's kernels are checked by
# fieldgen.gen.aarch64's interpreter on the host), and the whole suite at the c level and the aarch64 level of one
# build: FIELDGEN_ISA_LEVEL=runtime keeps the selector word that the default
# AArch64 build folds into direct calls, so the tests can force either level
# (docs/aarch64.md); the protocols at both levels, 50 random key pairs a test;
# fieldgen-bench built and its shortest table run once (fieldgen.bench.smoke:
# every field at c and aarch64, beside OpenSSL's armv8 code and GMP; the other
# bench tests are for a real machine). Needs: gcc-aarch64-linux-gnu libc6-dev-arm64-cross
# libgmp-dev:arm64 libssl-dev:arm64 qemu-user. Run from the repository root;
# BUILD (default build-aarch64-asm) is the build folder, FIELDGEN_TEST_COUNT
# (default 2000) the differential inputs per op (extra primes: a quarter).
# About 75 s on 2 idle cores (docs/aarch64.md has the measured time).
set -eu
build=${BUILD:-build-aarch64-asm}
count=${FIELDGEN_TEST_COUNT:-2000}
jobs=${JOBS:-$(nproc)}
mkdir -p "$build"
case $build in /*) ;; *) build=$PWD/$build ;; esac
sh .ci/extra_subset.sh "$build/extra_subset.toml"
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=tests/cross/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DFIELDGEN_BENCH=ON -DFIELDGEN_CT=OFF -DFIELDGEN_PROTOCOLS=ON -DFIELDGEN_PROTOCOL_TEST_MAX=50 \
    -DFIELDGEN_AARCH64_ASM=ON -DFIELDGEN_ISA_LEVEL=runtime \
    -DFIELDGEN_EXTRA_PRIMES=ON -DFIELDGEN_EXTRA_PRIMES_FILE="$build/extra_subset.toml" \
    -DFIELDGEN_TEST_COUNT="$count" >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null
# The generator's own tests ran on the host already (the README suite); here
# the target's: diff (random, edge, carry-stress), kat and fp2 of every field
# at both levels, the ABI of every aarch64 kernel, the runtime. The sweeps
# (enumerated dangerous limbs) run at the aarch64 level on the shipped
# fields: at 3 and 4 limbs each takes ~30 s of qemu, and the c level's are
# swept natively and on s390x (.ci/run).
ctest --test-dir "$build" -j"$jobs" --output-on-failure -LE 'gen|bench' \
    -E '^fieldgen\.sweep\.(test_[a-z0-9_]+\.(c|aarch64)|[a-z0-9_]+\.c)$'
# the benchmark's table at both levels with its peers (docs/aarch64.md "fieldgen-bench")
ctest --test-dir "$build" --output-on-failure -L smoke
