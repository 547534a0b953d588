#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every source file carries the project's SPDX licence line.

fieldgen is MIT OR Apache-2.0 (LICENSE). Every file git tracks that is code
or build input (C, assembly, Python, shell, CMake, Jinja2, TOML, the
launchers) and every file the generator writes (generated/, whatever its
type) must name that licence in an `SPDX-License-Identifier:` line within
its first 40 lines (a generated file: in its header comment). Documentation
and data (Markdown, the licence texts, test vectors, JSON) are not checked.

    python3 tests/spdx_check.py [REPO_ROOT]        # report, exit 1 if any file lacks it
    python3 tests/spdx_check.py --fix [REPO_ROOT]  # insert the line where it is missing

--fix never touches generated/ (the generator's header writes the line
there: regenerate instead) and keeps a shebang or an encoding line first.
"""

import pathlib
import subprocess
import sys

LICENSE = "MIT OR Apache-2.0"
TAG = "SPDX-License-Identifier:"
HEAD_LINES = 40

# comment syntax per kind of file
C_STYLE = {".c", ".h", ".S"}
HASH_STYLE = {".py", ".sh", ".cmake", ".toml", ".txt.in", ".pc.in"}
JINJA = {".j2"}
HASH_NAMES = {"CMakeLists.txt", "run", "fieldgen"}


def style(path):
    """The comment form of `path`'s licence line, or None if not checked."""
    name = path.name
    if name in HASH_NAMES:
        return "#"
    for suffixes, kind in ((C_STYLE, "c"), (JINJA, "jinja"), (HASH_STYLE, "#")):
        if any(name.endswith(s) for s in suffixes):
            return kind
    if name.endswith(".kat") or name.endswith(".in"):
        return "#"
    return None


def line_for(kind):
    return {"c": f"/* {TAG} {LICENSE} */",
            "#": f"# {TAG} {LICENSE}",
            "jinja": f"{{# {TAG} {LICENSE} #}}"}[kind]


def tracked(root):
    """The files git tracks under `root`; None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return None
    return [root / p for p in out.split("\0") if p]


def has_line(path):
    try:
        head = path.read_text(errors="replace").splitlines()[:HEAD_LINES]
    except OSError:
        return True
    return any(TAG in l and LICENSE in l for l in head)


def fix(path, kind):
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    at = 0
    if lines and lines[0].startswith("#!"):
        at = 1
    if len(lines) > at and "coding" in lines[at] and lines[at].startswith("#"):
        at += 1
    if kind == "jinja" and not (lines and lines[0].lstrip().startswith(("{%-", "{#-", "{{-"))):
        # a line of its own would add a newline to the rendered output (and
        # change every generated file): the comment goes in front of line 1,
        # which renders exactly as before
        lines[0:1] = [line_for(kind) + (lines[0] if lines else "")]
    else:
        # (a template whose first tag strips the whitespace before it
        # swallows the newline after the comment line)
        lines.insert(at, line_for(kind) + "\n")
    tmp = path.with_name(path.name + ".spdx-tmp")
    tmp.write_text("".join(lines))
    tmp.chmod(path.stat().st_mode)
    tmp.replace(path)


def main(argv):
    do_fix = "--fix" in argv
    args = [a for a in argv if a != "--fix"]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent).resolve()
    files = tracked(root)
    if files is None:
        print(f"spdx_check: {root} is not a git checkout: skipped")
        return 77
    missing = []
    for path in files:
        rel = path.relative_to(root)
        generated = rel.parts[0] == "generated"
        kind = style(path)
        if generated and kind is None:
            kind = "#"
        if kind is None or not path.is_file() or "vectors" in rel.parts and not generated:
            continue
        if has_line(path):
            continue
        if do_fix and not generated:
            fix(path, kind)
        else:
            missing.append(rel)
    for rel in missing:
        print(f"{rel}: no '{TAG} {LICENSE}' line in its first {HEAD_LINES} lines")
    if missing:
        print(f"spdx_check: {len(missing)} file(s) without the licence line"
              + (" (generated/: regenerate with gen/fieldgen)" if any(r.parts[0] == "generated" for r in missing) else ""))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
