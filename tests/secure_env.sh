#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# fieldgen.runtime.secure: a privileged process ignores FIELDGEN_ISA,
# FIELDGEN_TUNE and FIELDGEN_ISA_UNCHECKED, for real (AT_SECURE set by the
# kernel, not by a test hook): a setuid-root copy of test_isa_trust run as
# nobody. secure_env.sh PROGRAM WORKDIR. Exit 77 (skipped) where that cannot be
# arranged: not root, no setpriv, a nosuid file system, no user nobody.
prog=$1 dir=$2
[ "$(id -u)" = 0 ] || { echo "secure_env: not root: skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "secure_env: no setpriv (util-linux): skipped"; exit 77; }
nobody=$(id -u nobody 2>/dev/null) || { echo "secure_env: no user nobody: skipped"; exit 77; }
mkdir -p "$dir" && chmod 755 "$dir" || exit 1
copy=$dir/test_isa_trust_setuid
cp "$prog" "$copy" && chown 0:0 "$copy" && chmod 4755 "$copy" || exit 1
as_nobody() { setpriv --reuid="$nobody" --regid="$nobody" --clear-groups "$@"; }
# what the runtime resolves with no variable, as nobody
want=$(as_nobody env -u FIELDGEN_ISA -u FIELDGEN_TUNE -u FIELDGEN_ISA_UNCHECKED "$copy" --print)
rc=$?
[ "$rc" = 77 ] && { echo "secure_env: no override applies in this build: skipped"; exit 77; }
[ "$rc" = 0 ] || { echo "FAIL: the setuid copy could not run as nobody (rc $rc)"; exit 1; }
# the same with every variable set to something else
for isa in c x86_64; do
    for tune in generic zen zen4; do
        got=$(as_nobody env FIELDGEN_ISA=$isa FIELDGEN_TUNE=$tune FIELDGEN_ISA_UNCHECKED=1 "$copy" --print 2>"$dir/err")
        if [ "$(cat "$dir/err")" != "" ]; then echo "FAIL: stderr: $(cat "$dir/err")"; exit 1; fi
        if [ "$got" = "$isa $tune" ] && [ "$want" != "$isa $tune" ]; then
            echo "FAIL: the setuid copy honoured FIELDGEN_ISA=$isa FIELDGEN_TUNE=$tune"; exit 1
        fi
        if [ "$got" != "$want" ]; then echo "FAIL: got '$got', expected '$want'"; exit 1; fi
    done
done
# and the check can fail: the same program without the setuid bit honours them
chmod 0755 "$copy"
got=$(as_nobody env FIELDGEN_ISA=c FIELDGEN_TUNE=zen4 "$copy" --print)
case $got in
    "c zen4") ;;
    *) echo "FAIL: the unprivileged copy did not honour the variables ($got): the check proves nothing"; exit 1 ;;
esac
if [ "$want" = "c zen4" ]; then echo "secure_env: this machine resolves c zen4 anyway: skipped"; exit 77; fi
echo "secure_env: setuid copy ran '$want' whatever the variables said; unprivileged copy ran '$got'"
