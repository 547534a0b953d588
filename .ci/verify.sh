#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The checked build (issue 53 defect 7; docs/verify.md): FIELDGEN_VERIFY=ON,
# where every public function asserts its input contract and aborts naming
# the function, then the whole suite in it: every test must keep to the
# contracts, and fieldgen.verify.* shows that out-of-contract calls abort.
# Excluded by design: fieldgen.dispatch_shape (it checks the normal build's
# dispatchers, which the checked build wraps), the generator's tests, the
# documentation and licence checks and the Mach-O link (they do not depend on
# the build's flags and ran in the README stage), ct (not constant time) and
# bench, and integration (user projects with their own flags); the protocol
# tests at most 500 key pairs each. .ci/verify.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-verify}
jobs=$(nproc 2>/dev/null || echo 2)
CC=${CC:-gcc} cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O2" -DFIELDGEN_VERIFY=ON \
    -DFIELDGEN_TEST_COUNT=5000 -DFIELDGEN_PROTOCOL_TEST_MAX=500 -DFIELDGEN_BENCH=OFF -DFIELDGEN_EXTRA_PRIMES=OFF >/dev/null
cmake --build "$dir" -j"$jobs" >/dev/null
ctest --test-dir "$dir" -j"$jobs" --output-on-failure -LE "ct|bench|gen|fuzz|integration" \
    -E 'fieldgen\.(dispatch_shape|docs|license|macho)\.'
