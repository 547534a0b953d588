# SPDX-License-Identifier: MIT OR Apache-2.0
"""The generator's command line as the tests run it, and what they compare.

- run(args, cwd, env): `sh gen/fieldgen ARGS`, output captured, 300 s bound;
- snapshot(root): {relative path: (bytes, mtime_ns)} of every file under root,
  so a test can assert that a run wrote nothing (contents and times);
- age(root): every file's mtime set to OLD, a time no rerun can produce by
  accident, so a rewrite shows even within the clock's resolution.
"""

import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(REPO, "gen", "fieldgen")
OLD = 1_000_000_000


def run(args, cwd=None, env=None):
    return subprocess.run(["sh", LAUNCHER, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def snapshot(root):
    out = {}
    for d, _dirs, files in os.walk(root):
        for name in files:
            full = os.path.join(d, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, root)] = (f.read(), os.stat(full).st_mtime_ns)
    return out


def age(root):
    for d, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(d, name), ns=(OLD * 10**9, OLD * 10**9))
