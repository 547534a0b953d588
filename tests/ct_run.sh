#!/bin/sh
# Runs one constant-time check: ct_run.sh VALGRIND PROGRAM LEVEL.
# The level must exist on this CPU (probed natively, without FIELDGEN_ISA);
# then the program runs under memcheck with FIELDGEN_ISA=LEVEL, because
# Valgrind's CPUID hides ADX although it executes ADX code.
valgrind=$1 prog=$2 level=$3
env -u FIELDGEN_ISA "$prog" --can "$level"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
FIELDGEN_ISA=$level exec "$valgrind" --quiet --error-exitcode=99 --track-origins=yes "$prog" --level "$level"
