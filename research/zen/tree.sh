# SPDX-License-Identifier: MIT OR Apache-2.0
# Sourced by fp2_cpath.sh and kara.sh after `here` is set and their own
# arguments are shifted off: [FIELDS_TOML [FIELD...]] -> root, config (an
# absolute path), fields (default p503 p751), work (a temporary directory,
# removed at exit) and work/tree, a copy of the repository's tracked files
# for the caller to patch.
root=$(cd "$here/../.." && pwd)
config=$(cd "$(dirname "${1:-$root/fields.toml}")" && pwd)/$(basename "${1:-$root/fields.toml}")
[ $# -gt 0 ] && shift
fields=${*:-p503 p751}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tree"
(cd "$root" && git ls-files | tar -cf - -T -) | tar -xf - -C "$work/tree"
