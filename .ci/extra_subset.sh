#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# .ci/extra_subset.sh OUT.toml: writes eight of tests/extra_fields.toml's 26
# extra primes to OUT.toml, for the CI stages whose builds are slow (the
# sanitizers at -O3, the AArch64 cross build under qemu): 1, 2, 3, 9 and 16
# limbs, Montgomery and pseudo-Mersenne, Fp2 at 1 limb (p33, m61), spare
# bits in the fold (pm189), no spare bit (r1024): the limb counts where the
# C's shifts and loops have their edge cases. All 26 run in the exhaustive
# stage, and every limb count's AArch64 kernels in fieldgen.gen.aarch64.
set -eu
awk -v keep="gold64 m61 p33 m127 pm189 m521 pm1021 r1024" '
    BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) K[k[i]] = 1; on = 1 }
    /^\[/ { name = $1; gsub(/[][]/, "", name); on = (name in K) }
    on' "$(dirname "$0")/../tests/extra_fields.toml" >"$1"
