# SPDX-License-Identifier: MIT OR Apache-2.0
"""fieldgen-bench --runs N: the merged report is the stated merge of the N processes' reports.

Runs the benchmark with --runs 3 (quick, one field, a few ops) and
FGB_RUNS_KEEP, so the three processes' own reports stay on disk, then checks
every merged row against them: latency and throughput median = the median of
the three medians, min/max = the lowest/highest of them, batches summed,
q1/q3 the median of the quartiles, the paired dispatch-overhead figures the
median of the processes', each row's ratio to the best peer (vs_peer) the
median of its per-process ratios to that process's best peer, the paired
ratio to the best peer (paired_peer) the median of the processes' and each
process's plausible (check_peer_pair); the same rows
in all four reports; "runs" recorded in each; and the summaries' ratios (the
inversion table's Fermat/safegcd, latency and throughput, at every level it
prints) the median of the processes' own ratios, to the printed two decimals.
Also: the product-row probe (meta cpu.row_probe_ticks) is the median of the
processes' and measured wherever the CPU has BMI2 and ADX, a row with its
additions never faster than its MULX alone; and every kernel row's ALU count
(kernel_alu) is the header's FG_FIELD_OP_KERNEL_ALU.

usage: bench_runs.py BENCH FIELD WORKDIR
"""
import json
import os
import shutil
import statistics
import subprocess
import sys


# Two checks read timings, not the merge: a paired ratio against its rows'
# quartile band, and the product-row probe against its MULX alone. A host
# hiccup can break either in one process, so when only these fail the whole
# run is repeated once, and they must fail twice to fail the test.
TIMING = "timing: "


def key(row):
    return (row["field"], row["op"], row["impl"], row["level"])


def check_peer_pair(row, by_run, errors):
    """A row's paired ratio to its best peer (the dispatched row against the best
    peer, the x86_64 row against the best MULQ-path one): in each process the
    median within its confidence interval, the peer named one of that process's
    checked peer rows for the op, and the ratio near what the process's own rows
    say (within 1/1.33..1.33x of its quartile ratios: a pair measured apart from the
    table can sit in another host phase, an inverted ratio cannot); merged, each
    figure the median of the processes' and the peers named the first process's."""
    name = "/".join(key(row))
    parts = [b for b in by_run if key(row) in b and "paired_peer" in b[key(row)]]
    if len(parts) != len(by_run):
        errors.append("%s: paired_peer in %d of %d processes" % (name, len(parts), len(by_run)))
        return 0
    for k, b in enumerate(parts, 1):
        pp = b[key(row)]["paired_peer"]
        for t, what in enumerate(("latency", "throughput")):
            med, lo, hi = pp[what]
            if not 0 < lo <= med <= hi:
                errors.append("%s process %d paired %s: %r not a median inside its interval" % (name, k, what, pp[what]))
                continue
            peer = [x for x in b.values() if x["peer"] and x["check_ok"] and (x["field"], x["op"]) == key(row)[:2]
                    and "%s %s" % (x["impl"], x["level"]) == pp["peer_" + what]]
            if not peer:
                errors.append("%s process %d paired %s: %r is no checked peer row" % (name, k, what, pp["peer_" + what]))
                continue
            ours, theirs = b[key(row)][what], peer[0][what]
            low = ours["q1_ticks"] / theirs["q3_ticks"] / 1.33
            high = ours["q3_ticks"] / theirs["q1_ticks"] * 1.33
            if not low <= med <= high:
                errors.append(TIMING + "%s process %d paired %s %.4g outside %.4g..%.4g (its rows' quartile ratios)"
                              % (name, k, what, med, low, high))
    for what in ("latency", "throughput"):
        for i in range(3):
            want = statistics.median(b[key(row)]["paired_peer"][what][i] for b in parts)
            got = row["paired_peer"][what][i]
            if abs(got - want) > 1e-5 * max(1.0, abs(want)):
                errors.append("%s merged paired %s[%d]: %.6g, expected %.6g" % (name, what, i, got, want))
        if row["paired_peer"]["peer_" + what] != parts[0][key(row)]["paired_peer"]["peer_" + what]:
            errors.append("%s merged paired %s: peer %r, not the first process's" % (name, what,
                                                                                    row["paired_peer"]["peer_" + what]))
    return 1


def main():
    bench, field, work = sys.argv[1:4]
    errors, message = check(bench, field, work)
    if errors and all(e.startswith(TIMING) for e in errors):
        print("bench_runs: only timing checks failed, running once more:\n  " + "\n  ".join(errors))
        first = errors
        errors, message = check(bench, field, work)
        if errors:
            errors = ["first run: " + e for e in first] + ["second run: " + e for e in errors]
    if errors:
        sys.exit("bench_runs: FAILED\n  " + "\n  ".join(errors))
    print(message)


def check(bench, field, work):
    """One --runs 3 benchmark and every check on it: (errors, the summary line)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    merged = os.path.join(work, "merged.json")
    env = dict(os.environ, FGB_RUNS_KEEP=work)
    cmd = [bench, "--quick", "--runs", "3", "--field", field, "--op", "mul,sqr,add,inv,inv_fermat",
           "--threads", "0", "--json", merged]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("bench_runs: %s exited %d\n%s%s" % (" ".join(cmd), out.returncode, out.stdout, out.stderr))
    if "merged over 3 processes" not in out.stdout:
        sys.exit("bench_runs: the table does not say it merged 3 processes")
    m = json.load(open(merged))
    runs = [json.load(open(os.path.join(work, "run-%d.json" % k))) for k in (1, 2, 3)]
    errors = []
    if m.get("runs") != 3:
        errors.append("merged report: runs = %r, not 3" % m.get("runs"))
    for r in runs:
        if r.get("runs") != 1:
            errors.append("a process report says runs = %r, not 1" % r.get("runs"))
    by_run = [{key(x): x for x in r["rows"]} for r in runs]
    keys = [key(x) for x in m["rows"]]
    for k, b in enumerate(by_run, 1):
        if sorted(b) != sorted(keys):
            errors.append("process %d measured other rows than the merge reports" % k)
    checked = 0
    vs_checked = [0]
    peer_pairs = [0]
    for row in m["rows"]:
        parts = [b[key(row)] for b in by_run if key(row) in b]
        for what in ("latency", "throughput"):
            if what not in row:
                continue
            got = row[what]
            ps = [p[what] for p in parts]
            meds = [p["median_ticks"] for p in ps]
            want = {
                "median_ticks": statistics.median(meds),
                "min_ticks": min(meds),
                "max_ticks": max(meds),
                "q1_ticks": statistics.median(p["q1_ticks"] for p in ps),
                "q3_ticks": statistics.median(p["q3_ticks"] for p in ps),
            }
            for name, w in want.items():
                if abs(got[name] - w) > 1e-6 * max(1.0, abs(w)):
                    errors.append("%s %s: %s %.6g, expected %.6g from the processes' %s"
                                  % ("/".join(key(row)), what, name, got[name], w,
                                     ", ".join("%.6g" % p[name] for p in ps)))
            if got["batches"] != sum(p["batches"] for p in ps):
                errors.append("%s %s: batches %d, not the sum" % ("/".join(key(row)), what, got["batches"]))
            checked += 1
        if "paired_overhead" in row:
            # written in core cycles, each report with its own cycles-per-tick: compare ticks
            ratio = [r["cpu"]["core_cycles_per_tick"] or 1.0 for r in runs]
            mratio = m["cpu"]["core_cycles_per_tick"] or 1.0
            for what in ("latency", "throughput"):
                got = [v / mratio for v in row["paired_overhead"][what]]
                for i in range(3):
                    w = statistics.median(b[key(row)]["paired_overhead"][what][i] / ratio[k]
                                          for k, b in enumerate(by_run) if key(row) in b)
                    if abs(got[i] - w) > 1e-4 * max(1.0, abs(w)):
                        errors.append("%s paired %s[%d]: %.6g, expected %.6g"
                                      % ("/".join(key(row)), what, i, got[i], w))
            checked += 1
        if "paired_peer" in row:
            peer_pairs[0] += check_peer_pair(row, by_run, errors)
        for t, what in enumerate(("latency", "throughput")):
            rs = []
            for b in by_run:
                peers = [x[what]["median_ticks"] for x in b.values() if x["peer"] and x["check_ok"]
                         and (x["field"], x["op"]) == key(row)[:2] and what in x]
                if key(row) in b and what in b[key(row)] and peers:
                    rs.append(b[key(row)][what]["median_ticks"] / min(peers))
            got = row.get("vs_peer", {}).get(what, 0)
            want = statistics.median(rs) if rs else 0
            if abs(got - want) > 1e-5 * max(1.0, want):
                errors.append("%s vs_peer %s: %.6g, expected %.6g from the processes' %s"
                              % ("/".join(key(row)), what, got, want, ", ".join("%.4g" % x for x in rs)))
            vs_checked[0] += bool(rs)
    if not vs_checked[0]:
        errors.append("no row with a peer: vs_peer unchecked")
    # the inversion summary: "field level inv fermat 4.75x 4.76x ..." per level
    lines = out.stdout.split("\ninversion:")[-1].splitlines() if "\ninversion:" in out.stdout else []
    summary = 0
    for line in lines:
        w = line.split()
        if len(w) < 6 or w[0] != field or not w[4].endswith("x"):
            continue
        for t, what in enumerate(("latency", "throughput")):
            rs = []
            for b in by_run:
                inv, fer = b.get((field, "inv", "fieldgen", w[1])), b.get((field, "inv_fermat", "fieldgen", w[1]))
                if inv and fer and what in inv and what in fer:
                    rs.append(fer[what]["median_ticks"] / inv[what]["median_ticks"])
            got = float(w[4 + t][:-1])
            if len(rs) != 3 or abs(got - statistics.median(rs)) > 0.0051:
                errors.append("inversion summary %s %s: %.2fx, expected the median of the processes' %s"
                              % (w[1], what, got, ", ".join("%.4f" % x for x in rs)))
            summary += 1
    if not summary:
        errors.append("no inversion summary row: the summaries' per-process ratios unchecked")
    # the product-row probe: measured where the CPU has BMI2 and ADX, merged by median
    flags = open("/proc/cpuinfo").read().split() if os.path.exists("/proc/cpuinfo") else []
    probes = [r["cpu"].get("row_probe_ticks", {}) for r in runs]
    if "bmi2" in flags and "adx" in flags:
        for k, pr in enumerate(probes, 1):
            if not (pr.get("mulx", 0) > 0 and pr.get("op", 0) > 0):
                errors.append("process %d: no product-row probe on a BMI2+ADX CPU (%r)" % (k, pr))
            elif 24 * pr["op"] < 0.9 * 8 * pr["mulx"]:
                errors.append(TIMING + "process %d: a row with its additions ran faster than its MULX alone (%r)"
                              % (k, pr))
    for what in ("mulx", "op"):
        vals = [pr.get(what, 0) for pr in probes if pr.get("op", 0) > 0]
        want = statistics.median(vals) if vals else 0
        got = m["cpu"].get("row_probe_ticks", {}).get(what, -1)
        if abs(got - want) > 1e-5 * max(1.0, want):
            errors.append("merged row_probe_ticks.%s %.6g, expected the median %.6g" % (what, got, want))
    # ALU counts: each direct kernel row carries its header's FG_FIELD_OP_KERNEL_ALU
    header = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "generated", field,
                          "fg_%s.h" % field)
    macros = {}
    if os.path.exists(header):
        for line in open(header):
            w = line.split()
            if len(w) == 3 and w[0] == "#define" and w[1].endswith("_ALU"):
                macros[w[1]] = int(w[2])
    alu_checked = 0
    for row in m["rows"]:
        if row["impl"] != "fieldgen/direct" or not row.get("kernel_mults"):
            continue
        name = "FG_%s_%s_%s_ALU" % (field.upper(), row["op"].upper(), row["level"].upper())
        if macros and row.get("kernel_alu") != macros.get(name):
            errors.append("%s: kernel_alu %r, header %s %r" % ("/".join(key(row)), row.get("kernel_alu"), name,
                                                              macros.get(name)))
        alu_checked += 1
    if macros and not alu_checked and "adx" in flags:
        errors.append("no direct kernel row: kernel_alu unchecked")
    if not peer_pairs[0]:
        errors.append("no paired ratio to the best peer in the merge (lost on the way?)")
    if not any("paired_overhead" in row for row in m["rows"]):
        errors.append("no paired dispatch-overhead rows in the merge (lost on the way?)")
    if checked < 6:
        errors.append("only %d figures checked: the run measured too little" % checked)
    return errors, ("bench_runs: %d merged figures, %d ratios to the best peer of %d rows, %d paired ratios to "
                    "the best peer and %d summary ratios match their 3 processes; %d kernel ALU counts match the "
                    "header" % (checked, vs_checked[0], len(keys), peer_pairs[0], summary, alu_checked))


if __name__ == "__main__":
    main()
