#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Paired A/B timing of two builds of one field's kernels, in one process.

    research/ab/ab.py OLD.S NEW.S [KERNEL ...] [--levels adx_zen,adx,...]
                      [--rounds 301] [--iters 2000] [--cpu 1] [--keep DIR]

OLD.S and NEW.S are two generated fg_NAME_x86_64.S files of the same field
(say HEAD's generated/ and `gen/fieldgen --out DIR` of a patched
generator). The old file's symbols are renamed (fg_ -> old_, FG_ -> OLD_),
both are linked into one harness, and for every KERNEL (op_level: mul_adx,
fp2_sqr_adx_zen, redc_bmi2, ...; default: every mul, sqr, redc, fp2_mul
and fp2_sqr kernel both files have at the levels given) it
  - checks that old and new give the same output on 2000 random inputs,
  - times chained calls (latency: each output the next input, as
    fieldgen-bench does) and eight independent calls (throughput),
    RDTSC between LFENCEs, ITERS calls a sample, the kernels interleaved
    round by round (so the host's fast and slow phases hit both alike),
  - prints the median TSC ticks per call of each side and new / old.
Ratios are what compare; ticks are not core cycles. Needs gcc; pins to
--cpu with taskset when it is there.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

LEVELS = ("adx_zen", "x86_64", "adx", "bmi2")
KINDS = {"mul": 0, "fp2_mul": 0, "sqr": 1, "fp2_sqr": 1, "redc": 2}

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#define N @N@
typedef void (*f3)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*f2)(uint64_t *, const uint64_t *);
@DECLS@
static const uint64_t P[N] = {@P@};
static uint64_t rnd(void)
{
    static uint64_t s = 88172645463325252ull;
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    return s;
}
/* below p: the top limb below half of p's (every kernel's inputs are < p) */
static void elem(uint64_t *x) { for (int i = 0; i < N; i++) x[i] = rnd(); x[N - 1] %= P[N - 1] / 2 + 1; }
static uint64_t tsc(void) { _mm_lfence(); uint64_t t = __rdtsc(); _mm_lfence(); return t; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
struct k { const char *name; int kind; void *fn; int words; double lat[@ROUNDS@], thr[@ROUNDS@]; };
static uint64_t X[16][4 * N], B[4 * N];
static void fill(void)
{
    for (int j = 0; j < 16; j++) for (int h = 0; h < 4; h++) elem(X[j] + h * N);
    for (int h = 0; h < 4; h++) elem(B + h * N);
}
static void call(const struct k *k, uint64_t *r, uint64_t *a)
{
    if (k->kind == 0) ((f3)k->fn)(r, a, B); else ((f2)k->fn)(r, a);
}
static double lat(const struct k *k)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < @ITERS@; i++) call(k, X[0], X[0]);   /* redc: the low half is the last result */
    return (double)(tsc() - t0) / @ITERS@;
}
static double thr(const struct k *k)
{
    uint64_t t0 = tsc();
    for (int i = 0; i < @ITERS@; i++) for (int j = 0; j < 8; j++) call(k, X[8 + j], X[j]);
    return (double)(tsc() - t0) / (@ITERS@ * 8.0);
}
int main(void)
{
    struct k K[] = {@KLIST@};
    int nk = (int)(sizeof K / sizeof K[0]);
    for (int i = 0; i + 1 < nk; i += 2)
        for (int t = 0; t < 2000; t++) {
            uint64_t a[4 * N], o0[4 * N], o1[4 * N], c[4 * N];
            for (int h = 0; h < 4; h++) elem(a + h * N);
            memcpy(c, a, sizeof c); call(&K[i], o0, c);
            memcpy(c, a, sizeof c); call(&K[i + 1], o1, c);
            if (memcmp(o0, o1, 8 * (size_t)K[i].words)) { printf("outputs differ: %s\n", K[i + 1].name); return 1; }
        }
    for (int r = 0; r < @ROUNDS@; r++)
        for (int i = 0; i < nk; i++) { fill(); K[i].lat[r] = lat(&K[i]); fill(); K[i].thr[r] = thr(&K[i]); }
    printf("%-24s %22s %9s   %22s %9s\n", "kernel", "latency old -> new", "new/old", "throughput old -> new", "new/old");
    for (int i = 0; i < nk; i++) { qsort(K[i].lat, @ROUNDS@, 8, cmpd); qsort(K[i].thr, @ROUNDS@, 8, cmpd); }
    for (int i = 0; i + 1 < nk; i += 2) {
        double l0 = K[i].lat[@ROUNDS@ / 2], l1 = K[i + 1].lat[@ROUNDS@ / 2];
        double t0 = K[i].thr[@ROUNDS@ / 2], t1 = K[i + 1].thr[@ROUNDS@ / 2];
        printf("%-24s %10.2f -> %9.2f %9.3f   %10.2f -> %9.2f %9.3f\n", K[i + 1].name, l0, l1, l1 / l0, t0, t1, t1 / t0);
    }
    return 0;
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("kernels", nargs="*", help="op_level, e.g. mul_adx_zen (default: all found)")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--rounds", type=int, default=301)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--cpu", default="1")
    ap.add_argument("--keep", help="write the harness here and keep it")
    o = ap.parse_args()
    old, new = open(o.old).read(), open(o.new).read()
    m = re.search(r"field \[(\w+)\]", new)
    h = re.search(r"= (0x[0-9a-f]+)\s*\n.*?(\d+) x 64-bit limbs", new, re.S)
    if not m or not h:
        sys.exit("ab.py: %s: no field header (a generated fg_NAME_x86_64.S?)" % o.new)
    name, p, n = m.group(1), int(h.group(1), 16), int(h.group(2))
    if ("field [%s]" % name) not in old:
        sys.exit("ab.py: %s is not field %s" % (o.old, name))
    kernels = o.kernels or [op + "_" + lv for op in KINDS for lv in o.levels.split(",")
                            if ("fg_%s_%s_%s:" % (name, op, lv)) in old and ("fg_%s_%s_%s:" % (name, op, lv)) in new]
    decls, klist = [], []
    for kn in kernels:
        lv = next((lv for lv in LEVELS if kn.endswith("_" + lv)), None)
        op = kn[:-len(lv) - 1] if lv else None
        if op not in KINDS:
            sys.exit("ab.py: %s: not op_level with op in %s and level in %s" % (kn, "/".join(KINDS), "/".join(LEVELS)))
        sig = "(uint64_t *, const uint64_t *, const uint64_t *)" if KINDS[op] == 0 else "(uint64_t *, const uint64_t *)"
        for side in ("old", "fg"):
            sym = "%s_%s_%s" % (side, name, kn)
            decls.append("void %s%s;" % (sym, sig))
            klist.append('{"%s", %d, (void *)%s, %d, {0}, {0}}' % (
                kn if side == "fg" else "old " + kn, KINDS[op], sym, 2 * n if op.startswith("fp2") else n))
    src = HARNESS
    for key, val in (("N", str(n)), ("DECLS", "\n".join(decls)), ("KLIST", ",\n    ".join(klist)),
                     ("P", ", ".join("0x%xull" % ((p >> (64 * i)) & (2**64 - 1)) for i in range(n))),
                     ("ROUNDS", str(o.rounds)), ("ITERS", str(o.iters))):
        src = src.replace("@%s@" % key, val)
    d = o.keep or tempfile.mkdtemp(prefix="ab-")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "old.S"), "w") as f:
        f.write(old.replace("fg_" + name, "old_" + name).replace("FG_" + name.upper(), "OLD_" + name.upper()))
    shutil.copy(o.new, os.path.join(d, "new.S"))
    with open(os.path.join(d, "ab.c"), "w") as f:
        f.write(src)
    exe = os.path.join(d, "ab")
    subprocess.check_call(["gcc", "-O2", "-o", exe, os.path.join(d, "ab.c"), os.path.join(d, "old.S"),
                           os.path.join(d, "new.S")])
    cmd = ([shutil.which("taskset"), "-c", o.cpu] if shutil.which("taskset") and o.cpu else []) + [exe]
    rc = subprocess.call(cmd)
    if not o.keep:
        shutil.rmtree(d)
    sys.exit(rc)


if __name__ == "__main__":
    main()
