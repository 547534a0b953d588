#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Summarize run.sh's x86.txt: for each build and kernel, the ratio to the
4x64 C kernel (the median over rounds of per-round ratios, one figure per
process) as min-max over the processes, and the ticks of the last process.

    python3 research/radix51/summary.py /tmp/r51/x86.txt
"""
import collections
import re
import sys


def main(path):
    data = collections.defaultdict(list)
    order, cur = [], None
    for line in open(path):
        m = re.match(r"== (\S+) rep", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"(.+?) {2,}([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", line.rstrip())
        if m and cur:
            key = (cur, m.group(1).strip())
            if key not in data:
                order.append(key)
            data[key].append([float(m.group(i)) for i in range(2, 6)])
    print("| build | kernel | latency x 4x64 C | throughput x 4x64 C | ticks (lat / thr) |")
    print("|---|---|---|---|---|")
    for key in order:
        v = data[key]
        lr = [x[1] for x in v]
        tr = [x[3] for x in v]
        rng = lambda r: "%.2f" % r[0] if min(r) == max(r) else "%.2f-%.2f" % (min(r), max(r))
        print("| %s | %s | %s | %s | %s |" % (
            key[0], key[1], rng(lr), rng(tr),
            ", ".join("%.0f/%.0f" % (x[0], x[2]) for x in v)))


if __name__ == "__main__":
    main(sys.argv[1])
