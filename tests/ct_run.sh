#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs one constant-time check: ct_run.sh VALGRIND PROGRAM LEVEL.
# The level must exist on this CPU (probed natively, without FIELDGEN_ISA);
# then the program runs under memcheck with FIELDGEN_ISA=LEVEL and
# FIELDGEN_ISA_UNCHECKED=1, because Valgrind's CPUID hides ADX although it
# executes ADX code (without UNCHECKED the runtime clamps the level to what
# CPUID reports: docs/dispatch.md).
valgrind=$1 prog=$2 level=$3
env -u FIELDGEN_ISA "$prog" --can "$level"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
FIELDGEN_ISA=$level FIELDGEN_ISA_UNCHECKED=1 exec "$valgrind" --quiet --error-exitcode=99 --track-origins=yes "$prog" --level "$level"
