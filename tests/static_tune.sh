#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# fieldgen.runtime.static_tune: the tuning fg_cpu.h derives from the compiler's
# target macros under compile-time dispatch (FG_STATIC_TUNE when the CMake
# option FIELDGEN_TUNE is auto), for -march values this compiler knows.
# With TEST_RUNTIME (a runtime-dispatch build's test_runtime), -march=native
# must also derive the tuning this CPU's start-up probe picks.
#   sh static_tune.sh RUNTIME_DIR CC [TEST_RUNTIME]
set -eu
runtime=$1
cc=$2
probe=${3:-}
fail=0
tried=0
check() { # flags... expected
    eval "want=\${$#}"
    flags=$(echo "$@" | sed 's/ [^ ]*$//')
    # skip a -march this compiler does not know
    if ! echo 'int x;' | $cc $flags -x c -fsyntax-only - 2>/dev/null; then
        echo "skip: $cc $flags (not known to this compiler)"
        return 0
    fi
    tried=$((tried + 1))
    got=$(printf '#include "fg_cpu.h"\nFG_STATIC_TUNE\n' | $cc $flags -I"$runtime" -E -P -x c - | tail -n 1 | tr -d ' ')
    if [ "$got" = "$want" ]; then
        echo "ok: $flags -> FG_STATIC_TUNE $got"
    else
        echo "FAIL: $flags -> FG_STATIC_TUNE $got, expected $want"
        fail=1
    fi
}
check -march=x86-64 FG_STATIC_TUNE          # no BMI2/ADX: runtime dispatch, no static tuning
check -march=skylake 0                      # Intel: generic
check -march=icelake-server 0
check -march=znver2 1                       # Zen 2: zen
check -march=znver3 1                       # Zen 3: zen (no AVX-512)
check -march=znver3 -mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx512ifma -mavx512vbmi 2   # Zen 4 as GCC 12 / Clang 14 see it
check -march=znver3 -mavx512f -mavx512vl -mavx512bw -mavx512dq -mavx512ifma -mavx512vbmi -mmovdiri -mmovdir64b 1   # Zen 5 as GCC 12 / Clang 14 see it
check -march=x86-64-v4 -madx -mclzero -mavx512ifma -mavx512vbmi 2          # an unnamed Zen with AVX-512 (Clang 14's -march=native on a Zen 4)
check -march=x86-64-v4 -madx -mclzero -mavx512ifma -mavx512vbmi -mmovdiri 1  # ... and on a Zen 5
check -march=x86-64-v4 -madx 0                                            # an unnamed Intel
check -march=znver4 2                       # Zen 4, newer compilers
check -march=znver5 1                       # Zen 5: zen (full-width AVX-512)
if [ -n "$probe" ]; then
    # a compile-time dispatch build's test_runtime reports its fixed tuning, not the probe's
    rc=0
    FIELDGEN_TUNE=generic "$probe" --expect-tune generic >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || { echo "skip: $probe is a compile-time dispatch build"; probe=; }
fi
if [ -n "$probe" ]; then
    # the runtime probe's tuning (FIELDGEN_TUNE unset), as the number FG_STATIC_TUNE takes
    name=$(env -u FIELDGEN_TUNE "$probe" | sed -n 's/.*tuning best \([a-z0-9]*\),.*/\1/p')
    case $name in generic) n=0 ;; zen) n=1 ;; zen4) n=2 ;; *) n="" ;; esac
    if [ -z "$n" ]; then
        echo "FAIL: no tuning in the output of $probe"
        fail=1
    elif printf '#include "fg_cpu.h"\nFG_STATIC_TUNE\n' | $cc -march=native -I"$runtime" -E -P -x c - |
            tail -n 1 | grep -q FG_STATIC_TUNE; then
        echo "skip: -march=native gives no compile-time dispatch here (the probe says $name)"
    else
        check -march=native "$n"
    fi
fi
[ "$tried" -gt 0 ] || { echo "no -march value known to $cc"; exit 77; }
exit $fail
