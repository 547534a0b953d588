#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Issue 53, defects 1 and 6, on real (emulated) CPUs: .ci/trust.sh BUILD_DIR
# (a configured and built tree, the README stage's). Needs qemu-user,
# valgrind and clang with libclang-rt (TSan); .ci/run installs them.
#  - under qemu-x86_64 -cpu Nehalem (no BMI2) and -cpu Haswell (BMI2, no ADX),
#    every forced level above the model's is clamped: the program runs the
#    model's level, prints the one clamp line, and its results are right
#    (before the fix: SIGILL); forcing a level the model lacks is refused
#    (the test programs report it skipped), never executed;
#  - under valgrind (whose CPUID hides ADX and AVX-512) FIELDGEN_ISA=ifma is
#    clamped, and FIELDGEN_ISA_UNCHECKED=1 restores the trusted override;
#  - ThreadSanitizer: threads dispatching while the runtime starts
#    (tests/test_threads.c) with the runtime and a field built with
#    -fsanitize=thread report no race.
set -uo pipefail
build=${1:?usage: .ci/trust.sh BUILD_DIR}
cd "$(dirname "$0")/.."
passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
threads=$build/tests/test_threads
field=$build/tests/test_field_p256
[ -x "$threads" ] && [ -x "$field" ] || { echo "trust: build $build first (test_threads, test_field_p256)"; exit 1; }
quiet_qemu() { qemu-x86_64 "$@" 2> >(grep -v "TCG doesn't support" >&2); }

# model: the level it allows
for model in Nehalem:x86_64 Haswell:bmi2; do
    cpu=${model%%:*} allows=${model##*:}
    for isa in bmi2 adx ifma; do
        out=$(FIELDGEN_ISA=$isa quiet_qemu -cpu "$cpu" "$threads" 2>&1); rc=$?
        want_line=1
        case "$allows:$isa" in x86_64:*|bmi2:adx|bmi2:ifma) ;; *) want_line=0 ;; esac
        expect=$allows; [ $want_line = 0 ] && expect=$isa
        if [ $rc -ne 0 ]; then
            bad "qemu -cpu $cpu FIELDGEN_ISA=$isa: exit $rc: $out"
        elif ! grep -q "^level after start-up: $expect$" <<<"$out"; then
            bad "qemu -cpu $cpu FIELDGEN_ISA=$isa: not at $expect: $out"
        elif [ $want_line = 1 ] && [ "$(grep -c "^fieldgen: FIELDGEN_ISA=$isa needs instructions this CPU does not report (CPUID and XCR0 allow $allows): running $allows" <<<"$out")" != 1 ]; then
            bad "qemu -cpu $cpu FIELDGEN_ISA=$isa: no single clamp line: $out"
        else
            ok "qemu -cpu $cpu FIELDGEN_ISA=$isa: runs $expect, results right"
        fi
    done
    # a level above the model's, asked for explicitly: refused (skipped), not run
    for level in bmi2 adx; do
        [ "$allows:$level" = bmi2:bmi2 ] && continue
        FIELDGEN_ISA=$level quiet_qemu -cpu "$cpu" "$field" --level "$level" --suite kat --kat generated/vectors/p256.kat >/dev/null 2>&1; rc=$?
        if [ $rc = 77 ]; then ok "qemu -cpu $cpu: --level $level refused (skipped)"; else bad "qemu -cpu $cpu: --level $level exit $rc (want 77)"; fi
    done
    # the model's own level: the known answers hold
    quiet_qemu -cpu "$cpu" "$field" --level "$allows" --suite kat --kat generated/vectors/p256.kat >/dev/null 2>&1; rc=$?
    if [ $rc = 0 ]; then ok "qemu -cpu $cpu: p256 known answers at $allows"; else bad "qemu -cpu $cpu: p256 kat at $allows exit $rc"; fi
done

# valgrind: its CPUID hides ADX and AVX-512
if command -v valgrind >/dev/null; then
    out=$(FIELDGEN_ISA=ifma valgrind --quiet --error-exitcode=99 "$threads" 2>&1); rc=$?
    if [ $rc = 0 ] && grep -q "^fieldgen: FIELDGEN_ISA=ifma needs instructions" <<<"$out"; then
        ok "valgrind FIELDGEN_ISA=ifma: clamped ($(grep '^level after' <<<"$out"))"
    else
        bad "valgrind FIELDGEN_ISA=ifma: exit $rc: $out"
    fi
    out=$(FIELDGEN_ISA=adx FIELDGEN_ISA_UNCHECKED=1 valgrind --quiet --error-exitcode=99 "$threads" 2>&1); rc=$?
    if [ $rc = 0 ] && grep -q "^level after start-up: adx$" <<<"$out" && ! grep -q "^fieldgen:" <<<"$out"; then
        ok "valgrind FIELDGEN_ISA=adx FIELDGEN_ISA_UNCHECKED=1: trusted, adx runs"
    else
        bad "valgrind FIELDGEN_ISA=adx FIELDGEN_ISA_UNCHECKED=1: exit $rc: $out"
    fi
else
    bad "valgrind not installed"
fi

# ThreadSanitizer: the runtime, p25519 and the threaded test built with -fsanitize=thread
tsan=$build/trust-tsan
mkdir -p "$tsan"
if clang -O1 -g -fsanitize=thread -Iruntime -Igenerated/p25519 tests/test_threads.c runtime/fg_cpu.c \
        generated/p25519/fg_p25519.c generated/p25519/fg_p25519_x86_64.S -o "$tsan/test_threads" -lpthread; then
    for i in 1 2 3; do
        out=$(TSAN_OPTIONS=halt_on_error=1:exitcode=66 "$tsan/test_threads" 2>&1); rc=$?
        if [ $rc = 0 ] && ! grep -q "ThreadSanitizer" <<<"$out"; then
            ok "TSan run $i: threads dispatching during start-up, no race"
        else
            bad "TSan run $i: exit $rc: $out"
        fi
    done
else
    bad "TSan build failed (clang, libclang-rt-14-dev)"
fi

echo "trust: $passed passed, $failed failed"
[ $failed = 0 ]
