#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Check the documentation's links into the repository.

Every Markdown link [text](target) in README.md, CHANGELOG.md, docs/*.md and
research/*.md whose target is a path (not a URL, not a bare #anchor)
must name a file or directory that exists, resolved from the linking file's
folder (any #anchor is dropped). README.md must stay within MAX_README_LINES.

    python3 tests/doc_links.py [REPO_ROOT]

Prints each broken link as FILE:LINE: target and exits 1 if there is one.
"""

import pathlib
import re
import sys

MAX_README_LINES = 250
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)   # https:, mailto:, ...


def doc_files(root):
    files = [root / "README.md", root / "CHANGELOG.md"]
    files += sorted((root / "docs").glob("*.md")) + sorted((root / "research").glob("*.md"))
    return [f for f in files if f.is_file()]


def broken_links(path):
    """(line number, target) of every link in `path` that does not resolve."""
    bad = []
    fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in LINK.findall(line):
            if EXTERNAL.match(target) or target.startswith("#"):
                continue
            file_part = target.split("#", 1)[0]
            if not (path.parent / file_part).exists():
                bad.append((number, target))
    return bad


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    failures = 0
    files = doc_files(root)
    if not files:
        print(f"doc_links: no documentation found under {root}")
        return 1
    for path in files:
        for number, target in broken_links(path):
            print(f"{path.relative_to(root)}:{number}: broken link: {target}")
            failures += 1
    readme = root / "README.md"
    lines = len(readme.read_text(encoding="utf-8").splitlines())
    if lines > MAX_README_LINES:
        print(f"README.md: {lines} lines, more than {MAX_README_LINES}")
        failures += 1
    checked = ", ".join(str(p.relative_to(root)) for p in files)
    print(f"doc_links: {failures} problem(s) in {checked}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
